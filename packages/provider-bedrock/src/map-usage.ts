import type { TokenUsage } from '@aws-sdk/client-bedrock-runtime';
import { createUsage, EMPTY_USAGE, type Usage } from '@org/core';

/**
 * Converse token usage as core `Usage`; cache reads become `cachedInputTokens`. Converse reports no count of
 * reasoning tokens (its `TokenUsage` has none: they are part of `outputTokens`), so `reasoningTokens` is never set.
 *
 * @example
 * mapUsage({ inputTokens: 51, outputTokens: 78, totalTokens: 129 }); // { inputTokens: 51, outputTokens: 78, totalTokens: 129 }
 */
export function mapUsage(usage: TokenUsage | undefined): Usage {
  if (usage === undefined) return EMPTY_USAGE;
  const inputTokens = usage.inputTokens ?? 0;
  const outputTokens = usage.outputTokens ?? 0;
  return createUsage({
    inputTokens,
    outputTokens,
    totalTokens: usage.totalTokens ?? inputTokens + outputTokens,
    cachedInputTokens: usage.cacheReadInputTokens,
  });
}
