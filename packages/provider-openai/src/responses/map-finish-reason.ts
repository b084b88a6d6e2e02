import type { FinishReason } from '@org/core';

/** The Responses API's `status` and `incomplete_details.reason` in core terms. */
export function mapResponsesFinishReason(
  status: string | null | undefined,
  incompleteReason: string | null | undefined,
  hasToolCalls: boolean,
  refused: boolean,
): FinishReason {
  if (refused) return 'content-filter';
  if (status === 'completed') return hasToolCalls ? 'tool-calls' : 'stop';
  if (status === 'incomplete') {
    if (incompleteReason === 'max_output_tokens') return 'length';
    if (incompleteReason === 'content_filter') return 'content-filter';
  }
  if (status === 'failed') return 'error';
  return 'other';
}
