import type { ReasoningPart } from '@org/core';
import { PROVIDER } from './provider-name.js';
import { asRecord, field, invalidResponse, optionalStringField } from './wire-values.js';

/**
 * The text of a `thinking` chunk's own chunks (text chunks only; anything else there is not part of the contract).
 *
 * @example
 * thinkingText([{ type: 'text', text: 'Paris first.' }], 'thinking'); // 'Paris first.'
 */
export function thinkingText(value: unknown, what: string): string {
  if (!Array.isArray(value)) throw invalidResponse(`${what}.thinking is not an array.`);
  let text = '';
  value.forEach((item, index) => {
    const chunk = asRecord(item, `${what}.thinking[${index}]`);
    const type = field(chunk, 'type');
    const piece = field(chunk, 'text');
    if ((type !== undefined && type !== 'text') || typeof piece !== 'string') {
      throw invalidResponse(`${what}.thinking[${index}] is not a text chunk.`);
    }
    text += piece;
  });
  return text;
}

/**
 * A whole `thinking` chunk as a `ReasoningPart`: its text and signature, or, for a chunk with no text and a signature
 * (reasoning Mistral withheld), the signature as `redactedData`, sent back the same way.
 *
 * @example
 * mapThinkChunk({ type: 'thinking', thinking: [{ type: 'text', text: 'Hm.' }], signature: 'c2ln' }, 'content[0]');
 */
export function mapThinkChunk(value: unknown, what: string): ReasoningPart {
  const chunk = asRecord(value, what);
  const text = thinkingText(field(chunk, 'thinking'), what);
  const signature = optionalStringField(chunk, 'signature', what) ?? undefined;
  return reasoningPart(text, signature);
}

/** One reasoning part from its text and signature (see `mapThinkChunk`). */
export function reasoningPart(text: string, signature: string | undefined): ReasoningPart {
  if (text === '' && signature !== undefined) {
    return { type: 'reasoning', provider: PROVIDER, text: '', redactedData: signature };
  }
  return { type: 'reasoning', provider: PROVIDER, text, ...(signature === undefined ? {} : { signature }) };
}
