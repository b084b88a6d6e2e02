import {
  type Adjustment,
  type AssistantMessage,
  InvalidMessageHistoryError,
  type ReasoningPart,
} from '@org/core';

/** Why a reasoning part of the history was not sent. */
export type DroppedReasoningReason =
  /** Produced by another provider: its opaque data means nothing here, and it is never sent as plain text. */
  | 'other-provider'
  /** Chat Completions has no reasoning input. */
  | 'chat-api'
  /** The Responses API cannot resolve it: no item id and no encrypted content, or no encrypted content with `store: false`. */
  | 'not-replayable';

/** One reasoning part left out of the wire request. */
export interface DroppedReasoning {
  readonly messageIndex: number;
  readonly reason: DroppedReasoningReason;
  readonly producedBy: string;
}

const OPTIONAL_STRINGS = ['signature', 'redactedData', 'id', 'encryptedContent'] as const;

/**
 * The reasoning parts of an assistant message (none for a history from before reasoning existed), each checked to be
 * a `ReasoningPart`: a malformed one is an `InvalidMessageHistoryError` naming the message, never sent.
 */
export function reasoningOf(message: AssistantMessage, messageIndex: number): readonly ReasoningPart[] {
  if (message.reasoning === undefined) return [];
  const fail = (problem: string): never => {
    throw new InvalidMessageHistoryError({ messageIndex, message: `Message ${messageIndex}: ${problem}` });
  };
  if (!Array.isArray(message.reasoning)) fail('reasoning must be a list of reasoning parts.');
  message.reasoning.forEach((part: unknown, index) => {
    const record = typeof part === 'object' && part !== null ? (part as Record<string, unknown>) : undefined;
    if (
      record?.type !== 'reasoning' ||
      typeof record.provider !== 'string' ||
      typeof record.text !== 'string' ||
      OPTIONAL_STRINGS.some(
        (key) => Object.hasOwn(record, key) && typeof record[key] !== 'string' && record[key] !== undefined,
      )
    ) {
      fail(
        `reasoning part ${index} is not a reasoning part ({ type: 'reasoning', provider, text } with optional string fields).`,
      );
    }
  });
  return message.reasoning;
}

const EXPLANATION: Record<DroppedReasoningReason, string> = {
  'other-provider':
    'reasoning is only sent back to the provider that produced it, never as plain text to another one',
  'chat-api':
    'Chat Completions takes no reasoning input, and reasoning is never sent as plain text; the Responses API (api: "responses") carries reasoning across turns',
  'not-replayable':
    'OpenAI cannot resolve a reasoning item without its encrypted content under store: false (or without an item id at all); the adapter asks for encrypted content (include: ["reasoning.encrypted_content"]) on every store: false request, so keep the reasoning parts of those answers',
};

/** One `history-rewritten` adjustment per reason, naming the messages whose reasoning was left out. */
export function droppedReasoningAdjustments(dropped: readonly DroppedReasoning[]): Adjustment[] {
  const reasons = [...new Set(dropped.map((entry) => entry.reason))];
  return reasons.map((reason) => {
    const entries = dropped.filter((entry) => entry.reason === reason);
    const messageIndexes = [...new Set(entries.map((entry) => entry.messageIndex))];
    const producers = [...new Set(entries.map((entry) => entry.producedBy))];
    return {
      kind: 'history-rewritten',
      message: `${entries.length} reasoning part${entries.length === 1 ? '' : 's'} of message${messageIndexes.length === 1 ? '' : 's'} ${messageIndexes.join(', ')}${reason === 'other-provider' ? ` (produced by ${producers.join(', ')})` : ''} ${entries.length === 1 ? 'was' : 'were'} left out: ${EXPLANATION[reason]}.`,
      details: { reason, messageIndexes, reasoningParts: entries.length, producedBy: producers },
    } satisfies Adjustment;
  });
}
