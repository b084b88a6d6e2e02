import { createUsage, type Usage } from '@org/core';
import { asRecord, tokenCount } from '../wire-fields.js';

/**
 * Chat Completions usage in core terms, with cached prompt tokens (`prompt_tokens_details.cached_tokens`) and
 * reasoning tokens (`completion_tokens_details.reasoning_tokens`).
 */
export function mapChatUsage(value: unknown): Usage {
  const usage = asRecord(value);
  const totalTokens = tokenCount(usage?.total_tokens);
  return createUsage({
    inputTokens: tokenCount(usage?.prompt_tokens) ?? 0,
    outputTokens: tokenCount(usage?.completion_tokens) ?? 0,
    ...(totalTokens === undefined ? {} : { totalTokens }),
    cachedInputTokens: tokenCount(asRecord(usage?.prompt_tokens_details)?.cached_tokens),
    reasoningTokens: tokenCount(asRecord(usage?.completion_tokens_details)?.reasoning_tokens),
  });
}
