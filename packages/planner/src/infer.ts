import { eventErrorOf, type ModelRequest, type ModelResponse, redactSecrets } from '@org/core';
import type { InferenceRecord, PlanningContext } from './planner.js';

/**
 * Calls the model once, emitting `inference-started` and then exactly one of `inference-finished` (an answer) or
 * `inference-failed` (the call threw: a provider error, an abort), and returns a record of the call. A failure is
 * rethrown after its event, so the loop ends the run with it.
 */
export async function infer(
  context: PlanningContext,
  request: ModelRequest,
  purpose: InferenceRecord['purpose'],
): Promise<{ response: ModelResponse; record: InferenceRecord }> {
  const startedAt = context.now();
  context.emit({
    type: 'inference-started',
    timestamp: startedAt,
    step: context.step,
    modelId: context.model.modelId,
    provider: context.model.provider,
    messageCount: request.messages.length,
    toolCount: request.tools?.length ?? 0,
    toolChoice: request.toolChoice ?? { type: 'auto' },
  });
  let response: ModelResponse;
  let finishedAt: number;
  // The finished event is built inside the try: a malformed response (a broken adapter) fails the call too,
  // rather than leaving its start without an end.
  try {
    response =
      context.callModel === undefined
        ? await context.model.generate(request)
        : await context.callModel(request, purpose, callIndex(context));
    finishedAt = context.now();
    context.emit({
      type: 'inference-finished',
      timestamp: finishedAt,
      step: context.step,
      finishReason: response.finishReason,
      usage: response.usage,
      toolCalls: response.toolCalls,
      adjustments: response.adjustments,
      durationMs: finishedAt - startedAt,
      // A live log shows the ReAct decision or the final answer from here; secrets never reach a listener.
      ...(response.text === '' ? {} : { text: redactSecrets(response.text) }),
      ...(response.responseId === undefined ? {} : { responseId: response.responseId }),
    });
  } catch (error) {
    const failedAt = context.now();
    context.emit({
      type: 'inference-failed',
      timestamp: failedAt,
      step: context.step,
      durationMs: failedAt - startedAt,
      error: eventErrorOf(error),
    });
    throw error;
  }
  for (const adjustment of response.adjustments) {
    context.emit({ type: 'adjustment', timestamp: finishedAt, adjustment });
  }
  return {
    response,
    record: {
      step: context.step,
      purpose,
      usage: response.usage,
      finishReason: response.finishReason,
      durationMs: finishedAt - startedAt,
    },
  };
}

/** The common request fields a planner copies from the context. */
export function requestSettings(
  context: PlanningContext,
): Pick<ModelRequest, 'signal' | 'maxOutputTokens' | 'temperature' | 'providerOptions'> {
  return {
    ...(context.signal === undefined ? {} : { signal: context.signal }),
    ...(context.maxOutputTokens === undefined ? {} : { maxOutputTokens: context.maxOutputTokens }),
    ...(context.temperature === undefined ? {} : { temperature: context.temperature }),
    ...(context.providerOptions === undefined ? {} : { providerOptions: context.providerOptions }),
  };
}

// How many model calls each planning context has made: a step's calls are numbered for the run's effects.
const callsByContext = new WeakMap<PlanningContext, number>();

function callIndex(context: PlanningContext): number {
  const index = callsByContext.get(context) ?? 0;
  callsByContext.set(context, index + 1);
  return index;
}
