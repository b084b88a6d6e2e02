import type { FinishReason } from '@org/core';

/**
 * Anthropic's `stop_reason` in core terms. `tool_use` is `tool-calls` only when client tool calls were returned
 * (tool use by server tools alone, such as code execution calling tools, leaves nothing for the client to run).
 */
export function mapFinishReason(stopReason: string | null | undefined, hasToolCalls: boolean): FinishReason {
  switch (stopReason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return hasToolCalls ? 'tool-calls' : 'other';
    case 'refusal':
      return 'content-filter';
    default:
      return 'other';
  }
}
