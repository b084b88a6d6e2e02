import { createUsage, type Usage } from '@org/core';
import { asRecord } from './parsed-answer.js';

const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

function readUsage(
  value: unknown,
  keys: { input: string; output: string; inputDetails: string; outputDetails: string },
): Usage {
  const usage = asRecord(value);
  const totalTokens = count(usage?.total_tokens);
  return createUsage({
    inputTokens: count(usage?.[keys.input]) ?? 0,
    outputTokens: count(usage?.[keys.output]) ?? 0,
    ...(totalTokens === undefined ? {} : { totalTokens }),
    cachedInputTokens: count(asRecord(usage?.[keys.inputDetails])?.cached_tokens),
    reasoningTokens: count(asRecord(usage?.[keys.outputDetails])?.reasoning_tokens),
  });
}

/** Chat Completions usage (with cached prompt tokens and reasoning tokens) in core terms. */
export function chatUsage(value: unknown): Usage {
  return readUsage(value, {
    input: 'prompt_tokens',
    output: 'completion_tokens',
    inputDetails: 'prompt_tokens_details',
    outputDetails: 'completion_tokens_details',
  });
}

/** Responses API usage (with cached input tokens and reasoning tokens) in core terms. */
export function responsesUsage(value: unknown): Usage {
  return readUsage(value, {
    input: 'input_tokens',
    output: 'output_tokens',
    inputDetails: 'input_tokens_details',
    outputDetails: 'output_tokens_details',
  });
}
