import {
  type Attributes,
  type Context,
  context as contextApi,
  type HrTime,
  INVALID_SPAN_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import {
  nestedCallOf,
  type ObservationError,
  type RunEvent,
  type RunEventListener,
  type RunEventOf,
} from '@org/core';
import { boundContent, boundMessage, DEFAULT_MAX_CONTENT_BYTES } from './bounded-content.js';
import { ATTR, OPERATION, providerNameOf, SPAN_EVENT } from './semantic-conventions.js';

/** The instrumentation scope of the spans, when the listener builds its own tracer. */
export const INSTRUMENTATION_SCOPE = '@org/otel';

/** Options of {@link otelListener}. */
export interface OtelListenerOptions {
  /** The tracer to record with. Default: `tracerProvider`'s, or the global one (`trace.getTracer`). */
  readonly tracer?: Tracer;
  /** Where to get the tracer when `tracer` is not given. Default: the global provider. */
  readonly tracerProvider?: TracerProvider;
  /** The agent's name: `gen_ai.agent.name`, and the run span is `invoke_agent {name}`. Default: none (`invoke_agent`). */
  readonly agentName?: string;
  /**
   * Record tool-call arguments and results (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`) and the model's
   * output text (`gen_ai.output.messages`). Off by default: they may hold personal data. Each value is redacted of
   * secrets (`redactSecretsDeep` of `@org/core`) and cut to `maxBytes` UTF-8 bytes (default 4096), ending with
   * `…[truncated]` when cut.
   */
  readonly captureContent?: boolean | { readonly maxBytes?: number };
  /**
   * The parent of each run span. Default: the context active when the run starts (`context.active()`), so a run
   * started inside an application's span is recorded under it.
   */
  readonly parentContext?: () => Context;
}

/** A `RunEventListener` that records spans, with a way to end what is still open. */
export interface OtelListener extends RunEventListener {
  /**
   * Ends every span still open (of every run), with status ERROR and the given reason. Runs end their own spans
   * on `run-finished`; call this when a process stops mid-run.
   */
  endOpenSpans(reason?: string): void;
}

interface RunSpans {
  readonly span: Span;
  readonly context: Context;
  /** The model call in flight: a run makes one at a time. */
  chat: { readonly span: Span; readonly model: string } | undefined;
  /** Open tool-call spans, by call id. */
  readonly tools: Map<string, Span>;
  /** Open tool-call span contexts, by call id, kept until the run ends: a plan's steps are parented to its call. */
  readonly toolContexts: Map<string, Context>;
  /** Open plan-step spans, by `planId` and step id. */
  readonly steps: Map<string, Span>;
  /** Open spans of calls a program made (code mode), by the calling tool call's id and the call's id. */
  readonly programCalls: Map<string, Span>;
  /** Tool calls that reported plan steps: their nested calls are the steps' spans already. */
  readonly plans: Set<string>;
  providerSet: boolean;
}

/** Milliseconds (epoch or a virtual clock) as an exact `HrTime`, so span times are the events' own. */
function hrTime(milliseconds: number): HrTime {
  const seconds = Math.floor(milliseconds / 1000);
  return [seconds, Math.round((milliseconds - seconds * 1000) * 1e6)];
}

function stepKey(planId: string | undefined, stepId: string): string {
  // A NUL cannot occur in ids a model or JSON plan writes readably; it keeps `a/b` + `c` apart from `a` + `b/c`.
  return `${planId ?? ''}\u0000${stepId}`;
}

function fail(span: Span, code: string, message: string): void {
  span.setAttribute(ATTR.errorType, code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: boundMessage(message) });
}

const UNCLOSED = 'The span was still open when its run ended; its end event never arrived.';

/**
 * Records agent runs as OpenTelemetry spans, following the GenAI semantic conventions: pass it as `onEvent` of
 * `runAgent` or `streamAgent` (or any emitter of `RunEvent`s). A run is an `invoke_agent` span; under it each
 * model call is a `chat {model}` span (CLIENT) and each tool call an `execute_tool {tool}` span (INTERNAL); the
 * steps of a plan (`execute_tool_plan`) are `execute_tool {tool}` spans under the plan's call, concurrent steps
 * as siblings. Span times are the events' timestamps (a virtual clock gives a consistent tree). Spans are
 * parented explicitly, never through the active context, so concurrent tools and several runs through one
 * listener stay apart (every event names its run). Failures set status ERROR and `error.type` to the typed
 * error's code. Arguments, results and output text are recorded only with `captureContent`, redacted and
 * bounded. The listener never throws.
 *
 * @example
 * import { trace } from '@opentelemetry/api';
 * import { otelListener } from '@org/otel';
 *
 * const onEvent = otelListener({ tracer: trace.getTracer('my-app'), agentName: 'weather' });
 * await runAgent({ model, tools, task: 'Is it warmer in Paris or Rome?', onEvent });
 */
export function otelListener(options: OtelListenerOptions = {}): OtelListener {
  const tracer = options.tracer ?? (options.tracerProvider ?? trace).getTracer(INSTRUMENTATION_SCOPE);
  const capture = options.captureContent;
  const maxContentBytes =
    capture === undefined || capture === false
      ? undefined
      : capture === true
        ? DEFAULT_MAX_CONTENT_BYTES
        : Math.max(0, capture.maxBytes ?? DEFAULT_MAX_CONTENT_BYTES);
  const runName =
    options.agentName === undefined ? OPERATION.invokeAgent : `${OPERATION.invokeAgent} ${options.agentName}`;
  const runs = new Map<string, RunSpans>();

  /** The spans of the event's run; events outside a run (a plan or tool run on its own) get root spans. */
  const runOf = (event: RunEvent): RunSpans => {
    const runId = event.runId ?? '';
    let run = runs.get(runId);
    if (run === undefined) {
      run = detachedRun();
      runs.set(runId, run);
    }
    return run;
  };

  const detachedRun = (): RunSpans => {
    const span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
    return {
      span,
      context: contextApi.active(),
      chat: undefined,
      tools: new Map(),
      toolContexts: new Map(),
      steps: new Map(),
      programCalls: new Map(),
      plans: new Set(),
      providerSet: true,
    };
  };

  const start = (
    name: string,
    kind: SpanKind,
    timestamp: number,
    parent: Context,
    attributes: Attributes,
  ): Span => tracer.startSpan(name, { kind, startTime: hrTime(timestamp), attributes }, parent);

  const endOpen = (run: RunSpans, timestamp: number, reason: string): void => {
    const end = (span: Span): void => {
      fail(span, 'unclosed_span', reason);
      span.end(hrTime(timestamp));
    };
    for (const span of run.steps.values()) end(span);
    run.steps.clear();
    for (const span of run.programCalls.values()) end(span);
    run.programCalls.clear();
    run.plans.clear();
    for (const span of run.tools.values()) end(span);
    run.tools.clear();
    run.toolContexts.clear();
    if (run.chat !== undefined) end(run.chat.span);
    run.chat = undefined;
  };

  const onRunStarted = (event: RunEventOf<'run-started'>): void => {
    const previous = runs.get(event.runId);
    if (previous !== undefined) {
      // A run id reused while its run is open: close the old one rather than mixing two runs' spans.
      endOpen(previous, event.timestamp, UNCLOSED);
      if (previous.span.isRecording()) {
        fail(previous.span, 'unclosed_span', UNCLOSED);
        previous.span.end(hrTime(event.timestamp));
      }
    }
    const parent = options.parentContext?.() ?? contextApi.active();
    const span = start(runName, SpanKind.INTERNAL, event.timestamp, parent, {
      [ATTR.operationName]: OPERATION.invokeAgent,
      ...(options.agentName === undefined ? {} : { [ATTR.agentName]: options.agentName }),
      [ATTR.runId]: event.runId,
    });
    runs.set(event.runId, {
      span,
      context: trace.setSpan(parent, span),
      chat: undefined,
      tools: new Map(),
      toolContexts: new Map(),
      steps: new Map(),
      programCalls: new Map(),
      plans: new Set(),
      providerSet: false,
    });
  };

  const onRunFinished = (event: RunEventOf<'run-finished'>): void => {
    const run = runs.get(event.runId);
    if (run === undefined) return;
    runs.delete(event.runId);
    endOpen(run, event.timestamp, UNCLOSED);
    const span = run.span;
    span.setAttributes({
      [ATTR.runFinishReason]: event.reason,
      [ATTR.runSteps]: event.steps,
      // This segment's tokens: the spans of a run paused and resumed sum to the run's tokens, counting none twice.
      [ATTR.usageInputTokens]: event.segmentUsage.inputTokens,
      [ATTR.usageOutputTokens]: event.segmentUsage.outputTokens,
      [ATTR.runTotalInputTokens]: event.usage.inputTokens,
      [ATTR.runTotalOutputTokens]: event.usage.outputTokens,
    });
    if (event.error !== undefined) fail(span, event.error.code, event.error.message);
    else if (event.reason === 'error' || event.reason === 'aborted' || event.reason === 'loop-guard') {
      fail(span, event.reason, `The run ended with '${event.reason}'.`);
    }
    span.end(hrTime(event.timestamp));
  };

  const onInferenceStarted = (event: RunEventOf<'inference-started'>): void => {
    const run = runOf(event);
    if (run.chat !== undefined) {
      fail(run.chat.span, 'unclosed_span', 'A new model call started before this one ended.');
      run.chat.span.end(hrTime(event.timestamp));
    }
    const provider = providerNameOf(event.provider);
    if (!run.providerSet) {
      // The run learns its model from its first call; the conventions require the provider on invoke_agent.
      run.span.setAttributes({ [ATTR.providerName]: provider, [ATTR.requestModel]: event.modelId });
      run.providerSet = true;
    }
    const span = start(`${OPERATION.chat} ${event.modelId}`, SpanKind.CLIENT, event.timestamp, run.context, {
      [ATTR.operationName]: OPERATION.chat,
      [ATTR.providerName]: provider,
      [ATTR.requestModel]: event.modelId,
      [ATTR.inferenceStep]: event.step,
    });
    run.chat = { span, model: event.modelId };
  };

  const onInferenceFinished = (event: RunEventOf<'inference-finished'>): void => {
    const run = runOf(event);
    const chat = run.chat;
    if (chat === undefined) return;
    run.chat = undefined;
    const span = chat.span;
    span.setAttributes({
      // The LanguageModel contract reports no response model: the requested one is what answered.
      [ATTR.responseModel]: chat.model,
      [ATTR.responseFinishReasons]: [event.finishReason],
      [ATTR.usageInputTokens]: event.usage.inputTokens,
      [ATTR.usageOutputTokens]: event.usage.outputTokens,
      ...(event.usage.cachedInputTokens === undefined
        ? {}
        : { [ATTR.usageCacheReadInputTokens]: event.usage.cachedInputTokens }),
      ...(event.responseId === undefined ? {} : { [ATTR.responseId]: event.responseId }),
    });
    if (maxContentBytes !== undefined) {
      const parts: unknown[] = [];
      if (event.text !== undefined) parts.push({ type: 'text', content: event.text });
      for (const call of event.toolCalls) {
        parts.push({ type: 'tool_call', id: call.id, name: call.toolName, arguments: call.arguments });
      }
      span.setAttribute(
        ATTR.outputMessages,
        boundContent([{ role: 'assistant', parts, finish_reason: event.finishReason }], maxContentBytes),
      );
    }
    span.end(hrTime(event.timestamp));
  };

  const onInferenceFailed = (event: RunEventOf<'inference-failed'>): void => {
    const run = runOf(event);
    const chat = run.chat;
    if (chat === undefined) return;
    run.chat = undefined;
    fail(chat.span, event.error.code, event.error.message);
    chat.span.end(hrTime(event.timestamp));
  };

  const toolAttributes = (toolName: string, callId: string): Attributes => ({
    [ATTR.operationName]: OPERATION.executeTool,
    [ATTR.toolName]: toolName,
    [ATTR.toolCallId]: callId,
  });

  const startToolSpan = (
    action: { readonly id: string; readonly toolName: string; readonly args: unknown },
    timestamp: number,
    parent: Context,
  ): Span =>
    start(`${OPERATION.executeTool} ${action.toolName}`, SpanKind.INTERNAL, timestamp, parent, {
      ...toolAttributes(action.toolName, action.id),
      ...(maxContentBytes === undefined
        ? {}
        : { [ATTR.toolCallArguments]: boundContent(action.args, maxContentBytes) }),
    });

  const onToolCallStarted = (event: RunEventOf<'tool-call-started'>): void => {
    const run = runOf(event);
    const { action } = event;
    run.tools.get(action.id)?.end(hrTime(event.timestamp));
    const span = startToolSpan(action, event.timestamp, run.context);
    run.tools.set(action.id, span);
    run.toolContexts.set(action.id, trace.setSpan(run.context, span));
  };

  const endTool = (
    span: Span,
    timestamp: number,
    status: string,
    error: ObservationError | undefined,
    output: unknown,
  ): void => {
    span.setAttribute(ATTR.toolStatus, status);
    if (status === 'success') {
      if (maxContentBytes !== undefined && output !== undefined) {
        span.setAttribute(ATTR.toolCallResult, boundContent(output, maxContentBytes));
      }
    } else {
      fail(span, error?.code ?? status, error?.message ?? `The call ended with '${status}'.`);
    }
    span.end(hrTime(timestamp));
  };

  const onToolCallFinished = (event: RunEventOf<'tool-call-finished'>): void => {
    const run = runOf(event);
    const { observation } = event;
    let span = run.tools.get(observation.actionId);
    if (span === undefined) {
      // A call that never started (invalid arguments, loop guard, approval denied): a span of its own duration.
      span = start(
        `${OPERATION.executeTool} ${observation.toolName}`,
        SpanKind.INTERNAL,
        event.timestamp - observation.durationMs,
        run.context,
        toolAttributes(observation.toolName, observation.actionId),
      );
    }
    run.tools.delete(observation.actionId);
    run.toolContexts.delete(observation.actionId);
    endTool(span, event.timestamp, observation.status, observation.error, observation.output);
  };

  const stepParent = (run: RunSpans, planId: string | undefined): Context =>
    (planId === undefined ? undefined : run.toolContexts.get(planId)) ?? run.context;

  const stepAttributes = (planId: string | undefined, stepId: string, toolName: string): Attributes => ({
    ...toolAttributes(toolName, planId === undefined ? stepId : `${planId}/${stepId}`),
    [ATTR.planStepId]: stepId,
    ...(planId === undefined ? {} : { [ATTR.planId]: planId }),
  });

  const onPlanStepStarted = (event: RunEventOf<'plan-step-started'>): void => {
    const run = runOf(event);
    const key = stepKey(event.planId, event.stepId);
    run.steps.get(key)?.end(hrTime(event.timestamp));
    run.steps.set(
      key,
      start(
        `${OPERATION.executeTool} ${event.toolName}`,
        SpanKind.INTERNAL,
        event.timestamp,
        stepParent(run, event.planId),
        stepAttributes(event.planId, event.stepId, event.toolName),
      ),
    );
  };

  const onPlanStepFinished = (event: RunEventOf<'plan-step-finished'>): void => {
    const run = runOf(event);
    const key = stepKey(event.planId, event.stepId);
    let span = run.steps.get(key);
    if (span === undefined) {
      // A step that never started (skipped, or not started before an abort).
      span = start(
        `${OPERATION.executeTool} ${event.toolName}`,
        SpanKind.INTERNAL,
        event.timestamp - event.durationMs,
        stepParent(run, event.planId),
        stepAttributes(event.planId, event.stepId, event.toolName),
      );
    }
    run.steps.delete(key);
    endTool(span, event.timestamp, event.status, event.error, undefined);
  };

  /**
   * A tool that runs other calls (a code-mode program, a plan) reports each call's `tool-call-started` / `-finished`
   * as its progress: those calls become `execute_tool {tool}` spans under the calling tool's span. A plan's calls
   * are its steps' spans already (`plan-step-*`), so a call that reported plan steps adds none.
   */
  const onToolCallProgress = (event: RunEventOf<'tool-call-progress'>): void => {
    const run = runOf(event);
    const nested = nestedCallOf(event.progress);
    if (nested === undefined) return;
    if (nested.type === 'plan-step') {
      run.plans.add(event.actionId);
      return;
    }
    // A span needs its time: a call reported without one is left out rather than placed at a guessed instant.
    if (run.plans.has(event.actionId) || nested.timestamp === undefined) return;
    const timestamp = nested.timestamp;
    const parent = run.toolContexts.get(event.actionId) ?? run.context;
    if (nested.type === 'started') {
      const key = stepKey(event.actionId, nested.action.id);
      run.programCalls.get(key)?.end(hrTime(timestamp));
      run.programCalls.set(key, startToolSpan(nested.action, timestamp, parent));
      return;
    }
    const { observation } = nested;
    const key = stepKey(event.actionId, observation.actionId);
    // A call refused before it started (invalid arguments, over a limit): a span of its own duration.
    const span =
      run.programCalls.get(key) ??
      start(
        `${OPERATION.executeTool} ${observation.toolName}`,
        SpanKind.INTERNAL,
        timestamp - observation.durationMs,
        parent,
        toolAttributes(observation.toolName, observation.actionId),
      );
    run.programCalls.delete(key);
    endTool(span, timestamp, observation.status, observation.error, observation.output);
  };

  const addEvent = (span: Span, name: string, timestamp: number, attributes: Attributes): void => {
    span.addEvent(name, attributes, hrTime(timestamp));
  };

  const handle = (event: RunEvent): void => {
    switch (event.type) {
      case 'run-started':
        onRunStarted(event);
        return;
      case 'run-finished':
        onRunFinished(event);
        return;
      case 'inference-started':
        onInferenceStarted(event);
        return;
      case 'inference-finished':
        onInferenceFinished(event);
        return;
      case 'inference-failed':
        onInferenceFailed(event);
        return;
      case 'tool-call-started':
        onToolCallStarted(event);
        return;
      case 'tool-call-finished':
        onToolCallFinished(event);
        return;
      case 'tool-call-progress':
        onToolCallProgress(event);
        return;
      case 'plan-step-started':
        onPlanStepStarted(event);
        return;
      case 'plan-step-finished':
        onPlanStepFinished(event);
        return;
      case 'decision-extraction-failed': {
        const run = runOf(event);
        addEvent(run.span, SPAN_EVENT.decisionExtractionFailed, event.timestamp, {
          [ATTR.inferenceStep]: event.step,
          'org.attempt': event.attempt,
          'org.message': boundMessage(event.message),
        });
        return;
      }
      case 'validation-failed': {
        const run = runOf(event);
        addEvent(run.span, SPAN_EVENT.validationFailed, event.timestamp, {
          [ATTR.toolName]: event.toolName,
          [ATTR.toolCallId]: event.toolCallId,
          [ATTR.errorType]: event.error.code,
          'org.message': boundMessage(event.error.message),
        });
        return;
      }
      case 'approval-requested': {
        const run = runOf(event);
        addEvent(run.span, SPAN_EVENT.approvalRequested, event.timestamp, {
          [ATTR.toolName]: event.action.toolName,
          [ATTR.toolCallId]: event.action.id,
        });
        return;
      }
      case 'tool-call-intercepted': {
        const run = runOf(event);
        addEvent(run.tools.get(event.actionId) ?? run.span, SPAN_EVENT.toolCallIntercepted, event.timestamp, {
          [ATTR.toolName]: event.toolName,
          [ATTR.toolCallId]: event.actionId,
          'org.decision': event.decision,
          'org.reason': boundMessage(event.reason),
        });
        return;
      }
      case 'adjustment': {
        const run = runOf(event);
        addEvent(run.chat?.span ?? run.span, SPAN_EVENT.adjustment, event.timestamp, {
          'org.adjustment.kind': event.adjustment.kind,
          'org.message': boundMessage(event.adjustment.message),
        });
        return;
      }
      default:
        return;
    }
  };

  const listener = (event: RunEvent): void => {
    try {
      handle(event);
    } catch {
      // A tracing failure must never break the run (RunEventListener contract).
    }
  };
  return Object.assign(listener, {
    endOpenSpans(reason = UNCLOSED): void {
      const timestamp = Date.now();
      for (const run of runs.values()) {
        endOpen(run, timestamp, reason);
        if (run.span.isRecording()) {
          fail(run.span, 'unclosed_span', reason);
          run.span.end(hrTime(timestamp));
        }
      }
      runs.clear();
    },
  });
}
