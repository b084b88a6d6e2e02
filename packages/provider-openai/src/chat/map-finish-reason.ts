import type { FinishReason } from '@org/core';

/** Chat Completions' `finish_reason` in core terms. Some compatible servers say `stop` after tool calls. */
export function mapChatFinishReason(raw: string | null | undefined, hasToolCalls: boolean): FinishReason {
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
