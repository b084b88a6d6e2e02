import { ContentTooLargeError, InvalidMessageHistoryError } from './errors.js';
import type { ToolCall } from './tool-call.js';

/** A piece of text among a message's content parts. */
export interface TextContentPart {
  readonly type: 'text';
  readonly text: string;
}

/**
 * An image: inline base64 `data` with its `mediaType` (`image/png`, `image/jpeg`, `image/gif`, `image/webp`), or a
 * `url` the provider fetches itself.
 */
export type ImageContentPart =
  | { readonly type: 'image'; readonly mediaType: string; readonly data: string; readonly url?: never }
  | { readonly type: 'image'; readonly url: string; readonly mediaType?: string; readonly data?: never };

/** A document (a PDF, a text file): inline base64 `data` or a `url`, with its `mediaType` and an optional name. */
export type FileContentPart =
  | {
      readonly type: 'file';
      readonly mediaType: string;
      readonly data: string;
      readonly url?: never;
      readonly filename?: string;
    }
  | {
      readonly type: 'file';
      readonly url: string;
      readonly mediaType: string;
      readonly data?: never;
      readonly filename?: string;
    };

/** One part of a user message or of a tool result. */
export type ContentPart = TextContentPart | ImageContentPart | FileContentPart;

/** What a user message or a tool result carries: plain text, or parts (text, images, files) in order. */
export type MessageContent = string | readonly ContentPart[];

/**
 * The model's reasoning of one turn, kept so it can be sent back exactly as the provider requires across tool turns.
 * Only the provider that produced it reads its opaque fields; other providers drop the part (and report it).
 */
export interface ReasoningPart {
  readonly type: 'reasoning';
  /** The provider that produced it (`anthropic`, `openai`, `bedrock`, ...). */
  readonly provider: string;
  /** The reasoning text the provider showed; `''` when it was withheld (redacted or encrypted). */
  readonly text: string;
  /** The signature that proves the text unaltered (Anthropic thinking, Bedrock reasoningText). */
  readonly signature?: string;
  /** Reasoning the provider withheld, sent back verbatim (Anthropic `redacted_thinking`, Bedrock `redactedContent`). */
  readonly redactedData?: string;
  /** The provider's id of the reasoning item (OpenAI Responses `rs_...`). */
  readonly id?: string;
  /** Reasoning encrypted by the provider, sent back verbatim (OpenAI `encrypted_content`). */
  readonly encryptedContent?: string;
}

/** Instructions for the model. */
export interface SystemMessage {
  readonly role: 'system';
  readonly content: string;
}

/** What the user said: text, or parts (text, images, files). */
export interface UserMessage {
  readonly role: 'user';
  readonly content: MessageContent;
}

/** What the model said: text, tool calls, or both, and the reasoning that led there. */
export interface AssistantMessage {
  readonly role: 'assistant';
  readonly content: string;
  readonly toolCalls?: readonly ToolCall[];
  /** The turn's reasoning, in order, as the provider returned it (sent back with the tool results). */
  readonly reasoning?: readonly ReasoningPart[];
}

/** The result of one tool call, answering the assistant's call with the same id. */
export interface ToolMessage {
  readonly role: 'tool';
  readonly toolCallId: string;
  readonly toolName: string;
  /** Text, or parts: a tool may return an image or a file beside its text. */
  readonly content: MessageContent;
  /** The tool failed (or was refused); providers mark such results (`is_error`, `status: 'error'`). */
  readonly isError?: boolean;
}

/**
 * The text of a message's content: the string itself, or its text parts joined, with each image or file named in
 * brackets (`[image image/png]`), for token estimates, logs and text-only paths.
 *
 * @example
 * contentText([{ type: 'text', text: 'What is this?' }, { type: 'image', mediaType: 'image/png', data }]);
 * // 'What is this?\n[image image/png]'
 */
export function contentText(content: MessageContent): string {
  if (typeof content === 'string') return content;
  return content
    .map((part) => {
      if (part.type === 'text') return part.text;
      const label = part.type === 'file' && part.filename !== undefined ? ` ${part.filename}` : '';
      return `[${part.type}${label} ${part.mediaType ?? 'from a URL'}]`;
    })
    .join('\n');
}

/** Size limits of media parts, in bytes of decoded data. */
export interface ContentLimits {
  /** Largest image. */
  readonly maxImageBytes: number;
  /** Largest file. */
  readonly maxFileBytes: number;
  /** Largest total of the inline media of one request. */
  readonly maxTotalBytes?: number;
}

/**
 * What is wrong with a content part's shape (type, `data` or `url`, `mediaType`), or `undefined` for a valid part.
 *
 * @example
 * contentPartProblem({ type: 'image', data: 'AAAA' }); // 'an image part needs its `mediaType`.'
 */
export function contentPartProblem(part: unknown): string | undefined {
  if (typeof part !== 'object' || part === null) return 'is not a content part object.';
  const { type, text, data, url, mediaType } = part as Record<string, unknown>;
  if (type === 'text') return typeof text === 'string' ? undefined : 'a text part needs a string `text`.';
  if (type !== 'image' && type !== 'file')
    return `has an unknown type ${JSON.stringify(String(type))} (text, image or file).`;
  if ((data === undefined) === (url === undefined))
    return `an ${type} part needs either base64 \`data\` or a \`url\`, not both.`;
  if (data !== undefined && typeof data !== 'string') return '`data` must be a base64 string.';
  if (url !== undefined && typeof url !== 'string') return '`url` must be a string.';
  if (mediaType !== undefined && typeof mediaType !== 'string') return '`mediaType` must be a string.';
  if ((data !== undefined || type === 'file') && typeof mediaType !== 'string')
    return `an ${type} part needs its \`mediaType\`.`;
  return undefined;
}

/** The decoded size of base64 text, without decoding it. */
export function base64ByteLength(data: string): number {
  let padding = 0;
  if (data.endsWith('==')) padding = 2;
  else if (data.endsWith('=')) padding = 1;
  return Math.floor((data.length * 3) / 4) - padding;
}

/**
 * Checks every content part of the messages, before anything is sent: its shape (`InvalidMessageHistoryError` naming
 * the message and the part), then each inline image and file against a provider's limits (`ContentTooLargeError`
 * naming the message, the part, its size and the limit); nothing is cut.
 *
 * @example
 * assertContentWithinLimits(request.messages, { maxImageBytes: 5 * 1024 * 1024, maxFileBytes: 32 * 1024 * 1024 }, 'anthropic');
 */
export function assertContentWithinLimits(
  messages: readonly Message[],
  limits: ContentLimits,
  provider: string,
): void {
  let total = 0;
  messages.forEach((message, messageIndex) => {
    if ((message.role !== 'user' && message.role !== 'tool') || typeof message.content === 'string') return;
    if (!Array.isArray(message.content)) {
      throw new InvalidMessageHistoryError({
        message: `Message ${messageIndex} (${message.role}): content must be a string or an array of content parts.`,
        messageIndex,
      });
    }
    message.content.forEach((part, partIndex) => {
      const problem = contentPartProblem(part);
      if (problem !== undefined) {
        throw new InvalidMessageHistoryError({
          message: `Part ${partIndex} of message ${messageIndex} (${message.role}): ${problem}`,
          messageIndex,
        });
      }
      if (part.type === 'text' || part.data === undefined) return;
      const bytes = base64ByteLength(part.data);
      const limit = part.type === 'image' ? limits.maxImageBytes : limits.maxFileBytes;
      total += bytes;
      if (bytes > limit) {
        throw new ContentTooLargeError({ provider, messageIndex, partIndex, kind: part.type, bytes, limit });
      }
      if (limits.maxTotalBytes !== undefined && total > limits.maxTotalBytes) {
        throw new ContentTooLargeError({
          provider,
          messageIndex,
          partIndex,
          kind: 'total',
          bytes: total,
          limit: limits.maxTotalBytes,
        });
      }
    });
  });
}

/** One message of a conversation, discriminated by `role`. */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** The roles a message can have. */
export type MessageRole = Message['role'];

/**
 * Checks the invariant every provider enforces on tool use, before anything is sent: each assistant tool call has
 * exactly one tool result, results come after their call and before the next assistant turn, and no result
 * answers an unknown call. Throws `InvalidMessageHistoryError` naming the message and the call.
 *
 * @example
 * assertToolCallPairing(request.messages); // in an adapter, before building the wire request
 */
export function assertToolCallPairing(messages: readonly Message[]): void {
  // Calls of the latest assistant turn that still wait for their result.
  let pending = new Map<string, { toolName: string; messageIndex: number }>();
  const answered = new Set<string>();

  const failOnPending = (atIndex: number): void => {
    const [toolCallId, call] = pending.entries().next().value ?? [];
    if (toolCallId === undefined || call === undefined) return;
    throw new InvalidMessageHistoryError({
      message:
        `Tool call '${toolCallId}' (${call.toolName}) in message ${call.messageIndex} has no tool result` +
        (atIndex < messages.length ? ` before message ${atIndex}` : '') +
        `. Every tool call must be answered by exactly one tool message.`,
      messageIndex: call.messageIndex,
      toolCallId,
    });
  };

  messages.forEach((message, index) => {
    if (message.role === 'tool') {
      if (answered.has(message.toolCallId)) {
        throw new InvalidMessageHistoryError({
          message: `Tool call '${message.toolCallId}' is answered more than once (again at message ${index}).`,
          messageIndex: index,
          toolCallId: message.toolCallId,
        });
      }
      if (!pending.has(message.toolCallId)) {
        throw new InvalidMessageHistoryError({
          message: `Tool message ${index} answers '${message.toolCallId}', which is not a call of the preceding assistant turn.`,
          messageIndex: index,
          toolCallId: message.toolCallId,
        });
      }
      pending.delete(message.toolCallId);
      answered.add(message.toolCallId);
      return;
    }
    failOnPending(index);
    if (message.role === 'assistant') {
      pending = new Map();
      for (const call of message.toolCalls ?? []) {
        if (pending.has(call.id) || answered.has(call.id)) {
          throw new InvalidMessageHistoryError({
            message: `Tool call id '${call.id}' is used twice (message ${index}); tool call ids must be unique.`,
            messageIndex: index,
            toolCallId: call.id,
          });
        }
        pending.set(call.id, { toolName: call.toolName, messageIndex: index });
      }
    }
  });
  failOnPending(messages.length);
}
