import type { FinishReason } from '@org/core';

// What a safety system, a recitation check or a blocklist withheld: a typed outcome the caller can read.
const FILTERED: ReadonlySet<string> = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
  'MODEL_ARMOR',
  'JAILBREAK',
]);

/**
 * The finish reasons that mean Gemini could not produce the function call it meant to: the answer is a
 * `FunctionCallFailedError`, not an empty response.
 */
export const FAILED_FUNCTION_CALL_REASONS: ReadonlySet<string> = new Set([
  'MALFORMED_FUNCTION_CALL',
  'UNEXPECTED_TOOL_CALL',
  'TOO_MANY_TOOL_CALLS',
]);

/**
 * Gemini's finish reason (or a prompt's `blockReason`) as a core one: `STOP` is `tool-calls` when the answer has
 * calls; `MAX_TOKENS` is `length`; safety, recitation and blocklist reasons are `content-filter`; anything else is
 * `other` (the raw value stays in `rawFinishReason`).
 *
 * @example
 * mapFinishReason('RECITATION', false); // 'content-filter'
 */
export function mapFinishReason(raw: string, hasToolCalls: boolean): FinishReason {
  if (raw === 'STOP') return hasToolCalls ? 'tool-calls' : 'stop';
  if (raw === 'MAX_TOKENS') return 'length';
  if (FILTERED.has(raw)) return 'content-filter';
  return 'other';
}
