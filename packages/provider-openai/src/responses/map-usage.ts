import { createUsage, type Usage } from '@org/core';
import { asRecord, tokenCount } from '../wire-fields.js';

/**
 * Responses API usage in core terms, with cached input tokens (`input_tokens_details.cached_tokens`) and reasoning
 * tokens (`output_tokens_details.reasoning_tokens`).
 */
export function mapResponsesUsage(value: unknown): Usage {
  const usage = asRecord(value);
  const totalTokens = tokenCount(usage?.total_tokens);
  return createUsage({
    inputTokens: tokenCount(usage?.input_tokens) ?? 0,
    outputTokens: tokenCount(usage?.output_tokens) ?? 0,
    ...(totalTokens === undefined ? {} : { totalTokens }),
    cachedInputTokens: tokenCount(asRecord(usage?.input_tokens_details)?.cached_tokens),
    reasoningTokens: tokenCount(asRecord(usage?.output_tokens_details)?.reasoning_tokens),
  });
}
