import { type Action, type FinishReason, OrgError, type ToolCall } from '@org/core';
import { toolCallToAction } from '@org/tools';
import type { PlanningContext, RejectedToolCall } from './planner.js';

/**
 * Turns a model's tool calls into actions through `@org/tools` (parse, repair, coerce, validate). A call that
 * fails becomes an error result the model sees on its next turn (with a `validation-failed` event); calls beyond
 * `maxParallelToolCalls` are not run and are answered with an error result, the cut reported as an adjustment.
 */
export function toolCallsToActions(
  context: PlanningContext,
  toolCalls: readonly ToolCall[],
  options: {
    finishReason: FinishReason;
    maxParallelToolCalls: number | undefined;
    /** Valid actions already converted while the answer streamed, by call id (not converted again). */
    converted?: ReadonlyMap<string, Action>;
  },
): { actions: Action[]; rejected: RejectedToolCall[] } {
  const actions: Action[] = [];
  const rejected: RejectedToolCall[] = [];
  const limit = options.maxParallelToolCalls ?? Number.POSITIVE_INFINITY;
  const cut = toolCalls.slice(limit);
  for (const toolCall of toolCalls.slice(0, limit)) {
    const early = options.converted?.get(toolCall.id);
    if (early !== undefined) {
      actions.push(early);
      continue;
    }
    const converted = toolCallToAction(context.tools, toolCall, { finishReason: options.finishReason });
    if (converted.ok) {
      actions.push(converted.action);
      continue;
    }
    const error = observationErrorOf(converted.error);
    context.emit({
      type: 'validation-failed',
      timestamp: context.now(),
      toolCallId: toolCall.id,
      toolName: toolCall.toolName,
      error,
    });
    rejected.push({
      toolCall,
      reason: 'validation',
      observation: {
        actionId: toolCall.id,
        toolName: toolCall.toolName,
        status: 'error',
        error,
        durationMs: 0,
      },
    });
  }
  if (cut.length > 0) {
    const message =
      `Not executed: this turn made ${toolCalls.length} tool calls, and at most ${limit} run per turn ` +
      `(maxParallelToolCalls). Call it again in a later turn if you still need it.`;
    context.emit({
      type: 'adjustment',
      timestamp: context.now(),
      adjustment: {
        kind: 'tool-calls-rejected',
        message: `${cut.length} of ${toolCalls.length} tool calls were beyond maxParallelToolCalls (${limit}); each was answered with an error result.`,
        details: { maxParallelToolCalls: limit, toolCallIds: cut.map((call) => call.id) },
      },
    });
    for (const toolCall of cut) {
      rejected.push({
        toolCall,
        reason: 'parallel-limit',
        observation: {
          actionId: toolCall.id,
          toolName: toolCall.toolName,
          status: 'skipped',
          error: { code: 'parallel_tool_call_limit', message, details: { maxParallelToolCalls: limit } },
          durationMs: 0,
        },
      });
    }
  }
  return { actions, rejected };
}

/** The structured error of an observation, from any error: code, message, and the fields a caller can act on. */
export function observationErrorOf(error: unknown): {
  code: string;
  message: string;
  details?: Record<string, unknown>;
} {
  if (OrgError.isInstance(error)) {
    const { code: _code, message: _message, name: _name, ...details } = error.toJSON();
    return {
      code: error.code,
      message: error.message,
      ...(Object.keys(details).length > 0 ? { details } : {}),
    };
  }
  return { code: 'error', message: error instanceof Error ? error.message : String(error) };
}
