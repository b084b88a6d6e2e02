import { createUsage, type Usage } from '@org/core';
import { asRecord, field, invalidResponse } from './wire-values.js';

function count(usage: Readonly<Record<string, unknown>>, key: string): number | undefined {
  const value = field(usage, key);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw invalidResponse(`usage.${key} is not a token count.`);
  }
  return value;
}

/**
 * Mistral's `usage` (as the SDK reads it: `promptTokens`, `completionTokens`, `totalTokens`) as a core `Usage`; no
 * usage at all (a server that sends none) is zero tokens.
 *
 * @example
 * mapUsage({ promptTokens: 12, completionTokens: 40, totalTokens: 52 }); // { inputTokens: 12, outputTokens: 40, totalTokens: 52 }
 */
export function mapUsage(value: unknown): Usage {
  if (value === undefined || value === null) return createUsage({ inputTokens: 0, outputTokens: 0 });
  const usage = asRecord(value, 'usage');
  const inputTokens = count(usage, 'promptTokens') ?? 0;
  const outputTokens = count(usage, 'completionTokens') ?? 0;
  const totalTokens = count(usage, 'totalTokens');
  return createUsage({ inputTokens, outputTokens, ...(totalTokens === undefined ? {} : { totalTokens }) });
}
