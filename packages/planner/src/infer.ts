import {
  eventErrorOf,
  type ModelRequest,
  type ModelResponse,
  ProviderError,
  type ReasoningPart,
  redactSecrets,
  type ToolCall,
} from '@org/core';
import type { InferenceRecord, PlanningContext } from './planner.js';
import { StreamingRedactor } from './streaming-redactor.js';

/** What a planner hears of a streamed answer while it arrives (calls in the order the model writes them). */
export interface StreamCallbacks {
  /**
   * A new attempt at the answer begins (a durable runtime's `callModel` may call the model again after a failed
   * attempt): what the planner heard of an earlier attempt no longer holds.
   */
  onAttempt?(attempt: number): Promise<void> | void;
  /** The model began writing a tool call. */
  onToolCallStart?(toolCallId: string, toolName: string): void;
  /** A fragment of a tool call's raw arguments. */
  onToolCallDelta?(toolCallId: string, delta: string): void;
  /** A tool call's arguments are complete, while the rest of the answer may still be coming. */
  onToolCall?(toolCall: ToolCall): void;
}

/**
 * Calls the model once, emitting `inference-started` and then exactly one of `inference-finished` (an answer) or
 * `inference-failed` (the call threw: a provider error, an abort), and returns a record of the call. A failure is
 * rethrown after its event, so the loop ends the run with it.
 */
export async function infer(
  context: PlanningContext,
  request: ModelRequest,
  purpose: InferenceRecord['purpose'],
  callbacks: StreamCallbacks = {},
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
    // A model that streams is streamed: text reaches listeners as it is written, and each tool call as soon as its
    // arguments are complete (the loop may start it while the model goes on).
    let attempts = 0;
    const call = async (signal?: AbortSignal): Promise<ModelResponse> => {
      await callbacks.onAttempt?.(++attempts);
      const sent = withCallSignal(request, signal);
      return context.model.capabilities.streaming
        ? readStream(context, sent, callbacks)
        : context.model.generate(sent);
    };
    response =
      context.callModel === undefined ? await call() : await context.callModel(request, purpose, call);
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
      // (Redacted only when someone listens: the event reaches no one otherwise.)
      ...(response.text === '' || context.listening === false ? {} : { text: redactSecrets(response.text) }),
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

/** `request` with `signal` (the effects' own for this call) joined to the run's: either one aborts the call. */
function withCallSignal(request: ModelRequest, signal: AbortSignal | undefined): ModelRequest {
  if (signal === undefined || signal === request.signal) return request;
  return {
    ...request,
    signal: request.signal === undefined ? signal : AbortSignal.any([request.signal, signal]),
  };
}

/** The common request fields a planner copies from the context. */
export function requestSettings(
  context: PlanningContext,
): Pick<ModelRequest, 'signal' | 'maxOutputTokens' | 'temperature' | 'providerOptions' | 'responseFormat'> {
  return {
    ...(context.responseFormat === undefined ? {} : { responseFormat: context.responseFormat }),
    ...(context.signal === undefined ? {} : { signal: context.signal }),
    ...(context.maxOutputTokens === undefined ? {} : { maxOutputTokens: context.maxOutputTokens }),
    ...(context.temperature === undefined ? {} : { temperature: context.temperature }),
    ...(context.providerOptions === undefined ? {} : { providerOptions: context.providerOptions }),
  };
}

/**
 * Reads a model stream into the `ModelResponse` that `generate` would give (as `collectStream` does), emitting the
 * text, reasoning and tool-call deltas as events and telling the planner of each call as it completes.
 */
async function readStream(
  context: PlanningContext,
  request: ModelRequest,
  callbacks: StreamCallbacks,
): Promise<ModelResponse> {
  const listening = context.listening !== false;
  const textRedactor = listening ? new StreamingRedactor() : undefined;
  const reasoningRedactor = listening ? new StreamingRedactor() : undefined;
  const step = context.step;
  let text = '';
  const toolCalls: ToolCall[] = [];
  const reasoning: ReasoningPart[] = [];
  const emitText = (type: 'text-delta' | 'reasoning-delta', delta: string): void => {
    if (delta !== '') context.emit({ type, timestamp: context.now(), step, delta });
  };
  // What the model wrote before a boundary (a tool call, the switch between reasoning and text) reaches listeners
  // before the boundary's own events: the words a redactor still holds back are released there. A secret split
  // across the deltas of one run of text is still whole in the redactor when it is released.
  const releaseText = (): void => {
    if (textRedactor !== undefined) emitText('text-delta', textRedactor.flush());
  };
  const releaseReasoning = (): void => {
    if (reasoningRedactor !== undefined) emitText('reasoning-delta', reasoningRedactor.flush());
  };
  for await (const part of context.model.stream(request)) {
    switch (part.type) {
      case 'text-delta':
        text += part.delta;
        if (textRedactor !== undefined) {
          releaseReasoning();
          emitText('text-delta', textRedactor.push(part.delta));
        }
        break;
      case 'reasoning-delta':
        if (reasoningRedactor !== undefined) {
          releaseText();
          emitText('reasoning-delta', reasoningRedactor.push(part.delta));
        }
        break;
      case 'reasoning':
        reasoning.push(part.reasoning);
        releaseReasoning();
        break;
      case 'tool-call-start':
        if (listening) {
          releaseText();
          releaseReasoning();
          context.emit({
            type: 'tool-call-streaming-started',
            timestamp: context.now(),
            step,
            toolCallId: part.toolCallId,
            toolName: part.toolName,
          });
        }
        callbacks.onToolCallStart?.(part.toolCallId, part.toolName);
        break;
      case 'tool-call-delta':
        if (listening) {
          // A call's parts may come without its start (a provider that announces nothing): the text before goes first.
          releaseText();
          releaseReasoning();
          context.emit({
            type: 'tool-call-arguments-delta',
            timestamp: context.now(),
            step,
            toolCallId: part.toolCallId,
            delta: part.argumentsDelta,
          });
        }
        callbacks.onToolCallDelta?.(part.toolCallId, part.argumentsDelta);
        break;
      case 'tool-call':
        toolCalls.push(part.toolCall);
        if (listening) {
          releaseText();
          releaseReasoning();
          // Before the planner hears of the call: an eager call it starts is announced after its arguments.
          context.emit({
            type: 'tool-call-arguments-complete',
            timestamp: context.now(),
            step,
            toolCallId: part.toolCall.id,
            toolName: part.toolCall.toolName,
            arguments: part.toolCall.arguments,
          });
        }
        callbacks.onToolCall?.(part.toolCall);
        break;
      case 'error':
        throw part.error;
      case 'finish':
        releaseText();
        releaseReasoning();
        return {
          text,
          toolCalls,
          ...(reasoning.length === 0 ? {} : { reasoning }),
          finishReason: part.finishReason,
          usage: part.usage,
          adjustments: part.adjustments,
          ...(part.rawFinishReason === undefined ? {} : { rawFinishReason: part.rawFinishReason }),
          ...(part.responseId === undefined ? {} : { responseId: part.responseId }),
        };
    }
  }
  throw new ProviderError({
    provider: context.model.provider,
    message: 'The model stream ended without a finish part.',
  });
}
