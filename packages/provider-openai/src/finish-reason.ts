import type { FinishReason } from '@org/core';

/** Chat Completions' `finish_reason` in core terms. Some compatible servers say `stop` after tool calls. */
export function chatFinishReason(raw: string | null | undefined, hasToolCalls: boolean): FinishReason {
  switch (raw) {
    case 'stop':
      return hasToolCalls ? 'tool-calls' : 'stop';
    case 'length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls';
    case 'content_filter':
      return 'content-filter';
    case null:
    case undefined:
      return hasToolCalls ? 'tool-calls' : 'other';
    default:
      return 'other';
  }
}

/** The Responses API's `status` and `incomplete_details.reason` in core terms. */
export function responsesFinishReason(
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
