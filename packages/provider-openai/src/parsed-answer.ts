import type { FinishReason, ToolCall, Usage } from '@org/core';

/** A complete answer decoded from either API, before the tool plan's checks. */
export interface ParsedAnswer {
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
  readonly finishReason: FinishReason;
  readonly rawFinishReason?: string;
  readonly usage: Usage;
  readonly responseId?: string;
}

/** A plain object, or `undefined`: wire values are read defensively, compatible servers vary. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** A string field, or `undefined`. */
export function stringField(record: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = record?.[key];
  return typeof value === 'string' ? value : undefined;
}

/** Tool arguments as raw JSON text: a string as is; an object (some compatible servers send one) serialised. */
export function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  return JSON.stringify(value);
}
