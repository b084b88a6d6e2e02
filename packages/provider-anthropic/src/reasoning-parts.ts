import type { ReasoningPart } from '@org/core';

/** The provider name this adapter writes on the reasoning it returns, and the only one it sends back. */
export const REASONING_PROVIDER = 'anthropic';

/**
 * A `thinking` block as a reasoning part: its text and signature, verbatim. An empty signature (a block that never
 * got its `signature_delta`, or an Anthropic-compatible server that does not sign) is left out rather than kept as
 * `''`, so the part says plainly that it has none.
 */
export function thinkingPart(thinking: unknown, signature: unknown): ReasoningPart {
  return {
    type: 'reasoning',
    provider: REASONING_PROVIDER,
    text: typeof thinking === 'string' ? thinking : '',
    ...(typeof signature === 'string' && signature !== '' ? { signature } : {}),
  };
}

/** A `redacted_thinking` block as a reasoning part: no text, its encrypted `data` as `redactedData`. */
export function redactedThinkingPart(data: string): ReasoningPart {
  return { type: 'reasoning', provider: REASONING_PROVIDER, text: '', redactedData: data };
}
