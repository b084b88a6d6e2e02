import type { FinishReason } from '@org/core';

/**
 * Maps a Converse `stopReason` onto the core finish reasons; the raw value is kept beside it as `rawFinishReason`.
 *
 * @example
 * mapFinishReason('tool_use'); // 'tool-calls'
 */
export function mapFinishReason(stopReason: string | undefined): FinishReason {
  switch (stopReason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return 'tool-calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'content-filter';
    case 'malformed_model_output':
    case 'malformed_tool_use':
      return 'error';
    default:
      return 'other';
  }
}
