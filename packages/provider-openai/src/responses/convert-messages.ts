import type { Adjustment, ContentPart, Message, MessageContent, ReasoningPart } from '@org/core';
import { dataUrl, fileName, imageUrl } from '../media-data.js';
import {
  type DroppedReasoning,
  type DroppedReasoningReason,
  droppedReasoningAdjustments,
  reasoningOf,
} from '../reasoning-history.js';

/** An `input_text` / `input_image` / `input_file` part, of a user message or a function call output. */
export type ResponsesInputContent =
  | { readonly type: 'input_text'; readonly text: string }
  | { readonly type: 'input_image'; readonly image_url: string; readonly detail: 'auto' }
  | { readonly type: 'input_file'; readonly filename: string; readonly file_data: string }
  | { readonly type: 'input_file'; readonly file_url: string; readonly filename?: string };

/** A `reasoning` input item: an earlier turn's reasoning, sent back before that turn's answer. */
export interface ResponsesReasoningItem {
  readonly type: 'reasoning';
  readonly id?: string;
  readonly summary: readonly { readonly type: 'summary_text'; readonly text: string }[];
  readonly encrypted_content?: string;
}

/** A Responses API input item as this adapter sends it. */
export type ResponsesInputItem =
  | { readonly role: 'system' | 'assistant'; readonly content: string }
  | { readonly role: 'user'; readonly content: string | readonly ResponsesInputContent[] }
  | ResponsesReasoningItem
  | {
      readonly type: 'function_call';
      readonly call_id: string;
      readonly name: string;
      readonly arguments: string;
    }
  | {
      readonly type: 'function_call_output';
      readonly call_id: string;
      readonly output: string | readonly ResponsesInputContent[];
    };

/** The input items, and what had to change to send them. */
export interface ConvertedResponsesInput {
  readonly input: ResponsesInputItem[];
  readonly adjustments: Adjustment[];
}

/** What the conversion depends on besides the messages. */
export interface ResponsesInputContext {
  readonly provider: string;
  /** `providerOptions.openai.store === false`: OpenAI keeps nothing, so reasoning needs its encrypted content. */
  readonly storeDisabled: boolean;
}

/**
 * Core messages as Responses API input items. User parts become `input_text` / `input_image` / `input_file`; a
 * tool result with parts becomes a `function_call_output` whose `output` is that list. An assistant turn is its
 * reasoning items first (with their id and `encrypted_content`), then its text, then its `function_call` items, the
 * order OpenAI produced them in and requires them back in. Reasoning another provider produced, or that OpenAI could
 * not resolve, is left out and reported; it is never sent as text.
 */
export function convertResponsesMessages(
  messages: readonly Message[],
  context: ResponsesInputContext,
): ConvertedResponsesInput {
  const input: ResponsesInputItem[] = [];
  const dropped: DroppedReasoning[] = [];
  messages.forEach((message, messageIndex) => {
    switch (message.role) {
      case 'system':
        input.push({ role: 'system', content: message.content });
        break;
      case 'user':
        input.push({ role: 'user', content: toInputContent(message.content) });
        break;
      case 'assistant': {
        for (const part of reasoningOf(message, messageIndex)) {
          const item = toReasoningItem(part, context);
          if (typeof item === 'string')
            dropped.push({ messageIndex, reason: item, producedBy: part.provider });
          else input.push(item);
        }
        const calls = message.toolCalls ?? [];
        if (message.content !== '' || calls.length === 0)
          input.push({ role: 'assistant', content: message.content });
        for (const call of calls) {
          input.push({
            type: 'function_call',
            call_id: call.id,
            name: call.toolName,
            arguments: call.arguments,
          });
        }
        break;
      }
      case 'tool':
        input.push({
          type: 'function_call_output',
          call_id: message.toolCallId,
          output: toInputContent(message.content),
        });
        break;
    }
  });
  return { input, adjustments: droppedReasoningAdjustments(dropped) };
}

function toInputContent(content: MessageContent): string | ResponsesInputContent[] {
  return typeof content === 'string' ? content : content.map(toInputPart);
}

function toInputPart(part: ContentPart, partIndex: number): ResponsesInputContent {
  switch (part.type) {
    case 'text':
      return { type: 'input_text', text: part.text };
    case 'image':
      return { type: 'input_image', image_url: imageUrl(part), detail: 'auto' };
    case 'file':
      return part.data === undefined
        ? {
            type: 'input_file',
            file_url: part.url,
            ...(part.filename === undefined ? {} : { filename: part.filename }),
          }
        : {
            type: 'input_file',
            filename: fileName(part, partIndex),
            file_data: dataUrl(part.mediaType, part.data),
          };
  }
}

/**
 * The reasoning item that sends a part back, or why it cannot be sent. With `store: false` OpenAI keeps no item to
 * look an id up in, so only encrypted content carries the reasoning ("Item with id 'rs_…' not found. Items are not
 * persisted when `store` is set to false."); with storage on, the id alone is enough.
 */
function toReasoningItem(
  part: ReasoningPart,
  context: ResponsesInputContext,
): ResponsesReasoningItem | DroppedReasoningReason {
  if (part.provider !== context.provider) return 'other-provider';
  if (part.encryptedContent === undefined && (context.storeDisabled || part.id === undefined)) {
    return 'not-replayable';
  }
  return {
    type: 'reasoning',
    ...(part.id === undefined ? {} : { id: part.id }),
    summary: part.text === '' ? [] : [{ type: 'summary_text', text: part.text }],
    ...(part.encryptedContent === undefined ? {} : { encrypted_content: part.encryptedContent }),
  };
}
