import type { FinishReason, ReasoningPart, ToolCall, Usage } from '@org/core';

/** A complete answer decoded from either API, before the tool plan's checks. */
export interface ParsedAnswer {
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
  /** The answer's reasoning, in order; absent when the model returned none. */
  readonly reasoning?: readonly ReasoningPart[];
  readonly finishReason: FinishReason;
  readonly rawFinishReason?: string;
  readonly usage: Usage;
  readonly responseId?: string;
}
