import type { FinishReason } from '@org/core';

const FINISH_REASONS: ReadonlyMap<string, FinishReason> = new Map([
  ['stop', 'stop'],
  ['length', 'length'],
  // The model's own context ran out, rather than max_tokens.
  ['model_length', 'length'],
  ['tool_calls', 'tool-calls'],
  ['error', 'error'],
]);

/**
 * Mistral's finish reason as a core one; an unknown value is `other` (the raw value stays in `rawFinishReason`).
 *
 * @example
 * mapFinishReason('tool_calls'); // 'tool-calls'
 */
export function mapFinishReason(raw: string): FinishReason {
  return FINISH_REASONS.get(raw) ?? 'other';
}
