import type { RedactedThinkingBlockParam, ThinkingBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { type Adjustment, InvalidMessageHistoryError, type ReasoningPart } from '@org/core';
import { REASONING_PROVIDER } from './reasoning-parts.js';

/** A thinking block as sent back; `signature` is left out when the part has none (see `convertReasoning`). */
export type ReasoningBlock =
  | ThinkingBlockParam
  | Omit<ThinkingBlockParam, 'signature'>
  | RedactedThinkingBlockParam;

/** Reasoning of another provider, left out of one assistant message. */
export interface ForeignReasoning {
  readonly messageIndex: number;
  readonly providers: readonly string[];
  readonly count: number;
}

/**
 * The blocks that carry an assistant message's reasoning back to the API, in order, to be placed first in its turn:
 * Anthropic checks that the thinking of a turn that used tools comes back, unmodified and signed, with the results.
 *
 * - A part with `redactedData` becomes `redacted_thinking` with that `data`, verbatim.
 * - Any other part becomes `thinking` with its `text` and `signature`, verbatim. A part without a signature is sent
 *   without one rather than dropped or turned into text: the Anthropic API refuses it with a 400
 *   ("...thinking.signature: Field required"), which names the problem, and Anthropic-compatible servers that do not
 *   sign their thinking take it back as they gave it.
 * - A part produced by another provider (`provider` is not `anthropic`) is never sent, not even as text: its
 *   signature would not verify and the model must not read it as something said. It is left out and counted in
 *   `foreign`, reported by `foreignReasoningAdjustment`.
 */
export function convertReasoning(
  parts: readonly ReasoningPart[] | undefined,
  messageIndex: number,
): { blocks: ReasoningBlock[]; foreign: ForeignReasoning | undefined } {
  const blocks: ReasoningBlock[] = [];
  const providers = new Set<string>();
  let foreignCount = 0;
  for (const [partIndex, part] of (parts ?? []).entries()) {
    assertReasoningPart(part, messageIndex, partIndex);
    if (part.provider !== REASONING_PROVIDER) {
      providers.add(part.provider);
      foreignCount++;
      continue;
    }
    if (part.redactedData !== undefined) {
      blocks.push({ type: 'redacted_thinking', data: part.redactedData });
      continue;
    }
    blocks.push(
      part.signature === undefined
        ? { type: 'thinking', thinking: part.text }
        : { type: 'thinking', thinking: part.text, signature: part.signature },
    );
  }
  return {
    blocks,
    foreign:
      foreignCount === 0 ? undefined : { messageIndex, providers: [...providers], count: foreignCount },
  };
}

/** The `history-rewritten` adjustment for reasoning of other providers that was left out, if any. */
export function foreignReasoningAdjustment(foreign: readonly ForeignReasoning[]): Adjustment | undefined {
  if (foreign.length === 0) return undefined;
  const providers = [...new Set(foreign.flatMap((entry) => entry.providers))];
  const count = foreign.reduce((sum, entry) => sum + entry.count, 0);
  return {
    kind: 'history-rewritten',
    message:
      `Left out ${count} reasoning part(s) of assistant message(s) ${foreign
        .map((entry) => entry.messageIndex)
        .join(
          ', ',
        )}, produced by ${providers.map((name) => `'${name}'`).join(', ')}: the Anthropic API only ` +
      `takes back its own signed thinking, and reasoning is never shown to the model as plain text.`,
    details: {
      reason: 'foreign-reasoning-dropped',
      messageIndexes: foreign.map((entry) => entry.messageIndex),
      providers,
      count,
    },
  };
}

/** A history read back from storage is untrusted: a reasoning part must have the fields the wire form needs. */
function assertReasoningPart(part: ReasoningPart, messageIndex: number, partIndex: number): void {
  const problem =
    typeof part !== 'object' || part === null || part.type !== 'reasoning'
      ? 'is not a reasoning part'
      : typeof part.provider !== 'string'
        ? 'has no provider name'
        : typeof part.text !== 'string'
          ? 'has no text (use an empty string for withheld reasoning)'
          : part.signature !== undefined && typeof part.signature !== 'string'
            ? 'has a signature that is not a string'
            : part.redactedData !== undefined && typeof part.redactedData !== 'string'
              ? 'has redactedData that is not a string'
              : undefined;
  if (problem === undefined) return;
  throw new InvalidMessageHistoryError({
    message: `Reasoning part ${partIndex} of assistant message ${messageIndex} ${problem}.`,
    messageIndex,
  });
}
