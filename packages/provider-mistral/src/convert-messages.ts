import type {
  ChatCompletionRequestMessage,
  ContentChunk,
  ThinkChunk,
} from '@mistralai/mistralai/models/components';
import {
  type Adjustment,
  type ContentPart,
  InvalidRequestError,
  type Message,
  type MessageContent,
  type ReasoningPart,
} from '@org/core';
import { MISTRAL_FILE_MEDIA_TYPES, MISTRAL_IMAGE_MEDIA_TYPES } from './content-limits.js';
import { PROVIDER } from './provider-name.js';
import type { ToolCallIds } from './tool-call-ids.js';

/** The messages as the SDK takes them, and what was changed to get there. */
export interface ConvertedMessages {
  readonly messages: ChatCompletionRequestMessage[];
  readonly adjustments: Adjustment[];
}

/**
 * Maps core messages onto Mistral's: content parts as `text`, `image_url` and `document_url` chunks (in user messages
 * and tool results alike), each tool result with its `tool_call_id` and the function `name` Mistral requires, call ids
 * as `ids` sends them, and the model's own reasoning sent back as `thinking` chunks before the turn's text, exactly as
 * received. Reasoning produced by another provider is left out (never shown to the model as text) and reported as
 * `history-rewritten`.
 *
 * @example
 * const { messages, adjustments } = convertMessages(request.messages, mapToolCallIds(request.messages));
 */
export function convertMessages(messages: readonly Message[], ids: ToolCallIds): ConvertedMessages {
  const foreign: { messageIndex: number; provider: string }[] = [];
  const converted = messages.map((message, messageIndex): ChatCompletionRequestMessage => {
    switch (message.role) {
      case 'system':
        return { role: 'system', content: message.content };
      case 'user':
        return { role: 'user', content: convertContent(message.content, messageIndex) };
      case 'tool':
        return {
          role: 'tool',
          toolCallId: ids.toWire(message.toolCallId),
          name: message.toolName,
          content: convertContent(message.content, messageIndex),
        };
      default: {
        const thinking: ContentChunk[] = [];
        for (const part of message.reasoning ?? []) {
          if (part.provider === PROVIDER) thinking.push({ ...thinkChunk(part), type: 'thinking' });
          else foreign.push({ messageIndex, provider: part.provider });
        }
        const toolCalls = (message.toolCalls ?? []).map((call, index) => ({
          id: ids.toWire(call.id),
          type: 'function' as const,
          function: { name: call.toolName, arguments: call.arguments },
          index,
        }));
        const content: string | ContentChunk[] =
          thinking.length === 0
            ? message.content
            : [
                ...thinking,
                ...(message.content === '' ? [] : [{ type: 'text' as const, text: message.content }]),
              ];
        return {
          role: 'assistant',
          content,
          ...(toolCalls.length > 0 ? { toolCalls } : {}),
        };
      }
    }
  });
  return { messages: converted, adjustments: foreign.length === 0 ? [] : [foreignReasoningLeftOut(foreign)] };
}

/**
 * A reasoning part as the `thinking` chunk it came from: its text with its signature, or, for a block whose text was
 * withheld, no text and the opaque data alone.
 */
function thinkChunk(part: ReasoningPart): ThinkChunk {
  if (part.redactedData !== undefined) return { thinking: [], signature: part.redactedData };
  return {
    thinking: [{ type: 'text', text: part.text }],
    ...(part.signature === undefined ? {} : { signature: part.signature }),
  };
}

function foreignReasoningLeftOut(foreign: readonly { messageIndex: number; provider: string }[]): Adjustment {
  const providers = [...new Set(foreign.map((entry) => entry.provider))];
  const messageIndexes = [...new Set(foreign.map((entry) => entry.messageIndex))];
  return {
    kind: 'history-rewritten',
    message:
      `Left out ${foreign.length} reasoning part(s) of assistant message(s) ${messageIndexes.join(', ')}, produced by ` +
      `${providers.map((name) => `'${name}'`).join(', ')}: ${PROVIDER} only takes back its own thinking, and ` +
      'reasoning is never shown to the model as plain text.',
    details: { reason: 'foreign-reasoning-dropped', providers, messageIndexes },
  };
}

function convertContent(content: MessageContent, messageIndex: number): string | ContentChunk[] {
  if (typeof content === 'string') return content;
  return content.map((part, partIndex) => convertPart(part, messageIndex, partIndex));
}

function convertPart(part: ContentPart, messageIndex: number, partIndex: number): ContentChunk {
  if (part.type === 'text') return { type: 'text', text: part.text };
  const accepted = part.type === 'image' ? MISTRAL_IMAGE_MEDIA_TYPES : MISTRAL_FILE_MEDIA_TYPES;
  if (part.mediaType !== undefined && !accepted.includes(part.mediaType)) {
    throw new InvalidRequestError({
      provider: PROVIDER,
      providerCode: 'unsupported_media_type',
      message:
        `Part ${partIndex} of message ${messageIndex} is ${part.type === 'image' ? 'an image' : 'a file'} of media ` +
        `type '${part.mediaType}', which ${PROVIDER} does not take; it takes ${accepted.join(', ')}.`,
    });
  }
  const url = part.data === undefined ? part.url : `data:${part.mediaType};base64,${part.data}`;
  if (part.type === 'image') return { type: 'image_url', imageUrl: { url } };
  return {
    type: 'document_url',
    documentUrl: url,
    ...(part.filename === undefined ? {} : { documentName: part.filename }),
  };
}
