import {
  assertContentWithinLimits,
  assertToolCallPairing,
  type ContentLimits,
  type ContentPart,
  InvalidMessageHistoryError,
  InvalidRequestError,
  type Message,
  type MessageContent,
} from '@org/core';
import { SCRIPTED_IMAGE_MEDIA_TYPES } from './content-limits.js';

const ROLES: ReadonlySet<string> = new Set(['system', 'user', 'assistant', 'tool']);
const REASONING_TEXT_FIELDS = ['signature', 'redactedData', 'id', 'encryptedContent'] as const;
// `type/subtype` with the token characters of RFC 9110 (no parameters: providers take the bare type).
const MEDIA_TYPE = /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function fail(messageIndex: number, role: string, problem: string): never {
  throw new InvalidMessageHistoryError({
    message: `Message ${messageIndex} (${role}): ${problem}`,
    messageIndex,
  });
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

/** What is wrong with a reasoning part of an assistant message, or `undefined`. */
function reasoningPartProblem(part: unknown): string | undefined {
  if (typeof part !== 'object' || part === null) return 'is not a reasoning part object.';
  const fields = part as Record<string, unknown>;
  if (fields.type !== 'reasoning') return `has type ${JSON.stringify(String(fields.type))}, not 'reasoning'.`;
  if (!isNonEmptyString(fields.provider))
    return 'needs the name of the provider that produced it (`provider`).';
  if (typeof fields.text !== 'string') return 'needs a string `text` (empty for withheld reasoning).';
  for (const field of REASONING_TEXT_FIELDS) {
    if (fields[field] !== undefined && typeof fields[field] !== 'string')
      return `\`${field}\` must be a string.`;
  }
  return undefined;
}

/** Checks an assistant message's fields: string content, well-formed tool calls and reasoning parts. */
function checkAssistant(fields: Record<string, unknown>, index: number): void {
  if (typeof fields.content !== 'string') fail(index, 'assistant', 'content must be a string.');
  const { toolCalls, reasoning } = fields;
  if (toolCalls !== undefined) {
    if (!Array.isArray(toolCalls)) fail(index, 'assistant', '`toolCalls` must be an array.');
    toolCalls.forEach((call: unknown, callIndex) => {
      const {
        id,
        toolName,
        arguments: args,
      } = (typeof call === 'object' && call !== null ? call : {}) as Record<string, unknown>;
      if (!isNonEmptyString(id) || !isNonEmptyString(toolName) || typeof args !== 'string') {
        fail(
          index,
          'assistant',
          `tool call ${callIndex} needs a non-empty \`id\` and \`toolName\`, and \`arguments\` as text.`,
        );
      }
    });
  }
  if (reasoning !== undefined) {
    if (!Array.isArray(reasoning))
      fail(index, 'assistant', '`reasoning` must be an array of reasoning parts.');
    reasoning.forEach((part: unknown, partIndex) => {
      const problem = reasoningPartProblem(part);
      if (problem !== undefined) fail(index, 'assistant', `reasoning part ${partIndex} ${problem}`);
    });
  }
}

/** Checks the fields of one message other than content parts (which `assertContentWithinLimits` checks). */
function checkMessageFields(message: unknown, index: number): void {
  if (typeof message !== 'object' || message === null) fail(index, 'unknown', 'is not a message object.');
  const fields = message as Record<string, unknown>;
  const role = fields.role;
  if (typeof role !== 'string' || !ROLES.has(role)) {
    fail(index, 'unknown', `has the role ${JSON.stringify(String(role))} (system, user, assistant or tool).`);
  }
  if (role === 'system' && typeof fields.content !== 'string') fail(index, role, 'content must be a string.');
  if (role === 'assistant') checkAssistant(fields, index);
  if (
    (role === 'user' || role === 'tool') &&
    typeof fields.content !== 'string' &&
    !Array.isArray(fields.content)
  ) {
    fail(index, role, 'content must be a string or an array of content parts.');
  }
  if (role === 'tool') {
    if (!isNonEmptyString(fields.toolCallId) || !isNonEmptyString(fields.toolName)) {
      fail(index, role, 'needs the `toolCallId` and `toolName` of the call it answers.');
    }
    if (fields.isError !== undefined && typeof fields.isError !== 'boolean') {
      fail(index, role, '`isError` must be a boolean.');
    }
  }
}

/** What a provider would refuse in a media part whose shape core already checked, or `undefined`. */
function mediaProblem(part: Exclude<ContentPart, { type: 'text' }>): string | undefined {
  if (part.mediaType !== undefined) {
    if (part.type === 'image' && !SCRIPTED_IMAGE_MEDIA_TYPES.includes(part.mediaType)) {
      return `has the media type '${part.mediaType}'; images must be ${SCRIPTED_IMAGE_MEDIA_TYPES.join(', ')}.`;
    }
    if (!MEDIA_TYPE.test(part.mediaType))
      return `has the media type '${part.mediaType}', not a type/subtype.`;
  }
  if (part.data !== undefined) {
    if (part.data === '') return 'has empty `data`.';
    if (part.data.length % 4 !== 0 || !BASE64.test(part.data)) {
      return '`data` is not base64 (the standard alphabet, padded; no data: URL prefix, no line breaks).';
    }
  }
  if (part.url !== undefined && !/^https?:\/\//i.test(part.url)) {
    return `has the URL '${part.url.slice(0, 80)}'; a URL must be http(s) (send inline media as \`data\`).`;
  }
  return undefined;
}

/**
 * Checks the messages of a request as a strict provider would, before anything is sent:
 *
 * - every message has a known role and the fields of its role: string content for system and assistant messages,
 *   a string or content parts for user and tool messages, well-formed tool calls and reasoning parts on assistant
 *   messages, the call's id and name on tool messages (`InvalidMessageHistoryError` naming the message);
 * - content parts are well formed and within `limits` (`assertContentWithinLimits` of `@org/core`:
 *   `InvalidMessageHistoryError`, `ContentTooLargeError`); images are PNG, JPEG, GIF or WebP, files have a
 *   `type/subtype` media type, inline data is base64 and URLs are http(s) (`InvalidMessageHistoryError`);
 * - every tool call is answered by exactly one tool result (`assertToolCallPairing`).
 *
 * @example
 * assertRequestMessages(request.messages, SCRIPTED_CONTENT_LIMITS, 'scripted');
 */
export function assertRequestMessages(
  messages: readonly Message[],
  limits: ContentLimits,
  provider: string,
): void {
  if (!Array.isArray(messages)) {
    throw new InvalidRequestError({
      provider,
      message: 'The request needs `messages`, an array of messages.',
    });
  }
  messages.forEach(checkMessageFields);
  assertContentWithinLimits(messages, limits, provider);
  messages.forEach((message, index) => {
    if (message.role !== 'user' && message.role !== 'tool') return;
    const content: MessageContent = message.content;
    if (typeof content === 'string') return;
    content.forEach((part, partIndex) => {
      if (part.type === 'text') return;
      const problem = mediaProblem(part);
      if (problem !== undefined) fail(index, message.role, `part ${partIndex} (${part.type}) ${problem}`);
    });
  });
  assertToolCallPairing(messages);
}
