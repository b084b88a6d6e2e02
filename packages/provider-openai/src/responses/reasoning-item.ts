import type { ReasoningPart } from '@org/core';
import { asRecord, stringField } from '../wire-fields.js';

/** Summary parts are joined with a blank line, in the text and in the streamed deltas alike. */
export const SUMMARY_SEPARATOR = '\n\n';

/**
 * A Responses API `reasoning` output item as a core reasoning part: its id, its summary text (the parts joined by a
 * blank line; `''` when the model gave no summary) and its `encrypted_content` when present.
 *
 * @example
 * reasoningFromItem({ type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Look it up.' }] }, 'openai');
 * // { type: 'reasoning', provider: 'openai', text: 'Look it up.', id: 'rs_1' }
 */
export function reasoningFromItem(
  item: Record<string, unknown> | undefined,
  provider: string,
): ReasoningPart {
  const summary = Array.isArray(item?.summary) ? item.summary : [];
  const text = summary
    .map((part) => stringField(asRecord(part), 'text') ?? '')
    .filter((part) => part !== '')
    .join(SUMMARY_SEPARATOR);
  const id = stringField(item, 'id');
  const encryptedContent = stringField(item, 'encrypted_content');
  return {
    type: 'reasoning',
    provider,
    text,
    ...(id === undefined || id === '' ? {} : { id }),
    ...(encryptedContent === undefined || encryptedContent === '' ? {} : { encryptedContent }),
  };
}
