import {
  type Adjustment,
  type ContentPart,
  contentText,
  InvalidRequestError,
  type Message,
  type ToolMessage,
} from '@org/core';
import { dataUrl, fileName, imageUrl } from '../media-data.js';
import { type DroppedReasoning, droppedReasoningAdjustments, reasoningOf } from '../reasoning-history.js';

/** A part of a Chat Completions user message. */
export type ChatContentPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image_url'; readonly image_url: { readonly url: string } }
  | { readonly type: 'file'; readonly file: { readonly filename: string; readonly file_data: string } };

/** A Chat Completions message as this adapter sends it. */
export type ChatMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: string | readonly ChatContentPart[] }
  | {
      readonly role: 'assistant';
      readonly content: string | null;
      readonly tool_calls?: readonly {
        readonly id: string;
        readonly type: 'function';
        readonly function: { readonly name: string; readonly arguments: string };
      }[];
    }
  | { readonly role: 'tool'; readonly tool_call_id: string; readonly content: string };

/** The wire messages, and what had to change to send them. */
export interface ConvertedChatMessages {
  readonly messages: ChatMessage[];
  readonly adjustments: Adjustment[];
}

/** Images and files of one tool result, carried in a user message after the tool results. */
interface CarriedMedia {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly parts: readonly ChatContentPart[];
}

/**
 * Core messages as Chat Completions messages. User images and files become `image_url` / `file` parts. Reasoning
 * has no place in Chat Completions: it is left out (never sent as text) and reported. A tool message takes text
 * only, so the images and files of a tool result are carried in one user message right after that turn's tool
 * results, each group labelled with its call id, and the tool message says so; that is reported too.
 */
export function convertChatMessages(messages: readonly Message[], provider: string): ConvertedChatMessages {
  const converted: ChatMessage[] = [];
  const dropped: DroppedReasoning[] = [];
  const carried: CarriedMedia[] = [];
  let pending: CarriedMedia[] = [];

  messages.forEach((message, messageIndex) => {
    switch (message.role) {
      case 'system':
        converted.push({ role: 'system', content: message.content });
        break;
      case 'user':
        converted.push({
          role: 'user',
          content:
            typeof message.content === 'string'
              ? message.content
              : message.content.map((part, partIndex) =>
                  toChatPart(part, { provider, messageIndex, partIndex }),
                ),
        });
        break;
      case 'assistant': {
        for (const part of reasoningOf(message, messageIndex)) {
          const reason = part.provider === provider ? 'chat-api' : 'other-provider';
          dropped.push({ messageIndex, reason, producedBy: part.provider });
        }
        const calls = message.toolCalls ?? [];
        if (calls.length === 0) {
          converted.push({ role: 'assistant', content: message.content });
          break;
        }
        converted.push({
          role: 'assistant',
          // OpenAI rejects an empty string next to tool calls from some models; null is the documented "no text".
          content: message.content === '' ? null : message.content,
          tool_calls: calls.map((call) => ({
            id: call.id,
            type: 'function',
            function: { name: call.toolName, arguments: call.arguments },
          })),
        });
        break;
      }
      case 'tool': {
        const media = toolMedia(message, { provider, messageIndex });
        if (media !== undefined) pending.push(media);
        converted.push({
          role: 'tool',
          tool_call_id: message.toolCallId,
          content: toolText(message, media),
        });
        // The media follows the last tool result of the turn: a user message between results would break them up.
        if (messages[messageIndex + 1]?.role !== 'tool' && pending.length > 0) {
          converted.push({ role: 'user', content: pending.flatMap(labelledMedia) });
          carried.push(...pending);
          pending = [];
        }
        break;
      }
    }
  });

  const adjustments = droppedReasoningAdjustments(dropped);
  if (carried.length > 0) adjustments.push(carriedMediaAdjustment(carried));
  return { messages: converted, adjustments };
}

interface PartPosition {
  readonly provider: string;
  readonly messageIndex: number;
  readonly partIndex: number;
}

function toChatPart(part: ContentPart, position: PartPosition): ChatContentPart {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image':
      return { type: 'image_url', image_url: { url: imageUrl(part) } };
    case 'file':
      if (part.data === undefined) {
        throw new InvalidRequestError({
          provider: position.provider,
          providerCode: 'unsupported_content',
          message: `Message ${position.messageIndex}, part ${position.partIndex}: Chat Completions cannot take a file by URL (its file part has no URL field). Send the file's data, or use the Responses API (api: 'responses'), whose input_file takes a file_url.`,
        });
      }
      return {
        type: 'file',
        file: { filename: fileName(part, position.partIndex), file_data: dataUrl(part.mediaType, part.data) },
      };
  }
}

function toolMedia(
  message: ToolMessage,
  position: { readonly provider: string; readonly messageIndex: number },
): CarriedMedia | undefined {
  if (typeof message.content === 'string') return undefined;
  const parts: ChatContentPart[] = [];
  message.content.forEach((part, partIndex) => {
    if (part.type !== 'text') parts.push(toChatPart(part, { ...position, partIndex }));
  });
  return parts.length === 0
    ? undefined
    : { toolCallId: message.toolCallId, toolName: message.toolName, parts };
}

/** The tool message's text: its text parts, each image or file named, and where they went. */
function toolText(message: ToolMessage, media: CarriedMedia | undefined): string {
  const text = contentText(message.content);
  if (media === undefined) return text;
  const count = media.parts.length;
  return `${text}\n[${count === 1 ? 'This attachment is' : `These ${count} attachments are`} in the user message after the tool results, under "tool call ${message.toolCallId}".]`;
}

function labelledMedia(media: CarriedMedia): ChatContentPart[] {
  return [
    {
      type: 'text',
      text: `Attachments of tool call ${media.toolCallId} (${media.toolName}), sent here because a Chat Completions tool message takes text only:`,
    },
    ...media.parts,
  ];
}

function carriedMediaAdjustment(carried: readonly CarriedMedia[]): Adjustment {
  const toolCallIds = carried.map((media) => media.toolCallId);
  const parts = carried.reduce((sum, media) => sum + media.parts.length, 0);
  return {
    kind: 'history-rewritten',
    message: `Chat Completions tool messages take text only: the ${parts} image/file part${parts === 1 ? '' : 's'} of the result${toolCallIds.length === 1 ? '' : 's'} of ${toolCallIds.map((id) => `'${id}'`).join(', ')} ${parts === 1 ? 'was' : 'were'} sent in a user message right after the tool results, labelled with the call id; the tool message${toolCallIds.length === 1 ? ' says' : 's say'} so.`,
    details: { toolCallIds, parts },
  };
}
