import { createUsage, type Usage } from '@org/core';
import { asRecord, field, invalidResponse } from './wire-values.js';

function count(usage: Readonly<Record<string, unknown>>, key: string): number | undefined {
  const value = field(usage, key);
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw invalidResponse(`usageMetadata.${key} is not a token count.`);
  }
  return value;
}

/**
 * Gemini's `usageMetadata` as a core `Usage`: input is the prompt (and tool-use prompt) tokens, output the candidate
 * and thought tokens (thoughts are billed as output), `reasoningTokens` the thoughts, `cachedInputTokens` the cached
 * content. Absent metadata (a blocked prompt) is zero.
 *
 * @example
 * mapUsage({ promptTokenCount: 12, candidatesTokenCount: 8, thoughtsTokenCount: 32, totalTokenCount: 52 });
 * // { inputTokens: 12, outputTokens: 40, totalTokens: 52, reasoningTokens: 32 }
 */
export function mapUsage(value: unknown): Usage {
  if (value === undefined) return createUsage({ inputTokens: 0, outputTokens: 0 });
  const usage = asRecord(value, 'usageMetadata');
  const thoughts = count(usage, 'thoughtsTokenCount');
  const inputTokens =
    (count(usage, 'promptTokenCount') ?? 0) + (count(usage, 'toolUsePromptTokenCount') ?? 0);
  const outputTokens = (count(usage, 'candidatesTokenCount') ?? 0) + (thoughts ?? 0);
  const total = count(usage, 'totalTokenCount');
  return createUsage({
    inputTokens,
    outputTokens,
    ...(total === undefined ? {} : { totalTokens: total }),
    cachedInputTokens: count(usage, 'cachedContentTokenCount'),
    reasoningTokens: thoughts,
  });
}
