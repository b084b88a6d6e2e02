import { createUsage, type Usage } from '@org/core';

/** The usage fields the Messages API reports, in a `Message`, `message_start` or (cumulatively) `message_delta`. */
export interface AnthropicUsageFields {
  readonly input_tokens?: number | null | undefined;
  readonly output_tokens?: number | null | undefined;
  readonly cache_creation_input_tokens?: number | null | undefined;
  readonly cache_read_input_tokens?: number | null | undefined;
  readonly output_tokens_details?: { readonly thinking_tokens?: number | null } | null | undefined;
}

/**
 * Core usage from Anthropic's counts. The API counts cached input apart from `input_tokens`, so the core
 * `inputTokens` is their sum (input + cache creation + cache read), with the cache reads as `cachedInputTokens`;
 * `thinking_tokens` become `reasoningTokens`.
 */
export function mapUsage(usage: AnthropicUsageFields | undefined): Usage {
  const input = usage?.input_tokens ?? 0;
  const cacheCreation = usage?.cache_creation_input_tokens ?? 0;
  const cacheRead = usage?.cache_read_input_tokens ?? undefined;
  const thinking = usage?.output_tokens_details?.thinking_tokens ?? undefined;
  return createUsage({
    inputTokens: input + cacheCreation + (cacheRead ?? 0),
    outputTokens: usage?.output_tokens ?? 0,
    cachedInputTokens: cacheRead,
    reasoningTokens: thinking,
  });
}

/**
 * Folds a later report into an earlier one: `message_delta` counts are cumulative, and a field it leaves out or
 * sends as `null` keeps the value from `message_start`.
 */
export function mergeUsageFields(
  earlier: AnthropicUsageFields | undefined,
  later: AnthropicUsageFields | undefined,
): AnthropicUsageFields {
  const pick = <K extends keyof AnthropicUsageFields>(key: K): AnthropicUsageFields[K] | undefined =>
    later?.[key] ?? earlier?.[key];
  return {
    input_tokens: pick('input_tokens'),
    output_tokens: pick('output_tokens'),
    cache_creation_input_tokens: pick('cache_creation_input_tokens'),
    cache_read_input_tokens: pick('cache_read_input_tokens'),
    output_tokens_details: pick('output_tokens_details'),
  };
}
