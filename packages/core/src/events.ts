import type { Adjustment } from './adjustment.js';
import type { FinishReason } from './language-model.js';
import type { Action, Observation, ObservationError, ObservationStatus, ToolCall } from './tool-call.js';
import type { ToolChoice } from './tool-choice.js';
import type { Usage } from './usage.js';

/** Fields every event carries. */
interface EventBase {
  /** Milliseconds since the epoch (or on the run's clock, when it has a virtual one). */
  readonly timestamp: number;
  /**
   * The run that emitted the event. The agent loop (`runAgent`, `streamAgent`) stamps it on every event it
   * delivers, so one listener can follow several runs at once; absent on events of a tool or a plan run on its
   * own (`executeAction`, `executePlan`).
   */
  readonly runId?: string;
}

/** What a failure event carries of its typed error: its stable code and its message, redacted of secrets. */
export interface EventError {
  /** The error's stable `code` (`rate_limited`, `aborted`, `timeout`, ...); `error` for a value that has none. */
  readonly code: string;
  /** Human-readable, redacted of secrets (`redactSecrets`). */
  readonly message: string;
  /** Whether the same call may succeed if retried unchanged, when the error says. */
  readonly retryable?: boolean;
}

/** A run of the agent loop began. */
export interface RunStartedEvent extends EventBase {
  readonly type: 'run-started';
  readonly runId: string;
}

/**
 * The agent loop ended, for the reason given. Emitted exactly once for each `run-started`, on every path (a
 * resumed run starts and finishes again, with the same `runId`).
 */
export interface RunFinishedEvent extends EventBase {
  readonly type: 'run-finished';
  readonly runId: string;
  /** `final-answer`, `terminal-tool`, `max-steps`, `stop-condition`, `loop-guard`, `aborted`, `approval-required`, `error`. */
  readonly reason: string;
  readonly steps: number;
  /**
   * Usage of the whole run so far (`AgentResult.usage`): a resumed run's includes what its earlier segments spent,
   * so it is not to be summed across the `run-finished` events of one `runId`.
   */
  readonly usage: Usage;
  /**
   * Usage of this segment alone (`AgentResult.segmentUsage`): the model calls made between this `run-started` and
   * this `run-finished`, the sum of their `inference-finished` usage. A run that pauses for approval and resumes has
   * one segment per `run-started`; summing `segmentUsage` over them gives the run's `usage`, counting nothing twice.
   */
  readonly segmentUsage: Usage;
  /**
   * Why the run failed, when it ended in `error`, `aborted` or `loop-guard`: the code and message of the result's
   * `error` (a `ProviderError`, `AbortedError`, `ToolCallLoopError`, `DecisionExtractionError`, ...).
   */
  readonly error?: EventError;
}

/**
 * A model call began. It ends with exactly one `inference-finished` (the model answered) or `inference-failed`
 * (it threw, was aborted, or timed out), with the same `step`; a run makes one model call at a time, so the
 * next `inference-*` end of the run closes this one. A ReAct retry is a new call with its own start and end.
 */
export interface InferenceStartedEvent extends EventBase {
  readonly type: 'inference-started';
  readonly step: number;
  readonly modelId: string;
  readonly provider: string;
  readonly messageCount: number;
  readonly toolCount: number;
  readonly toolChoice: ToolChoice;
}

/** A model call ended with an answer. */
export interface InferenceFinishedEvent extends EventBase {
  readonly type: 'inference-finished';
  readonly step: number;
  readonly finishReason: FinishReason;
  readonly usage: Usage;
  readonly toolCalls: readonly ToolCall[];
  readonly adjustments: readonly Adjustment[];
  readonly durationMs: number;
  /**
   * The model's text (a ReAct decision, a final answer, or what a model said beside its tool calls), redacted of
   * secrets with `redactSecrets`. Absent when the model returned no text.
   */
  readonly text?: string;
  /** The provider's id of the response (`ModelResponse.responseId`), when it gave one. */
  readonly responseId?: string;
}

/**
 * A piece of the model's answer text, as it streams (the loop drives `model.stream()` when the model declares
 * `capabilities.streaming`). Deltas are redacted of secrets like every text an event carries; a delta is held back
 * until its word is complete so a secret split across deltas is still caught. Their concatenation is the step's text
 * as redacted in `inference-finished`.
 */
export interface TextDeltaEvent extends EventBase {
  readonly type: 'text-delta';
  readonly step: number;
  readonly delta: string;
}

/** A piece of the model's reasoning text, as it streams (redacted like `text-delta`). */
export interface ReasoningDeltaEvent extends EventBase {
  readonly type: 'reasoning-delta';
  readonly step: number;
  readonly delta: string;
}

/**
 * The model began writing a tool call (streamed answers only); its arguments follow in `tool-call-arguments-delta`
 * events and end with one `tool-call-arguments-complete` of the same `toolCallId`, unless the answer breaks off
 * first (`inference-failed`). All text and reasoning the model wrote before the call has been delivered by then.
 */
export interface ToolCallStreamingStartedEvent extends EventBase {
  readonly type: 'tool-call-streaming-started';
  readonly step: number;
  readonly toolCallId: string;
  readonly toolName: string;
}

/** A fragment of a tool call's raw argument text, as the model writes it. */
export interface ToolCallArgumentsDeltaEvent extends EventBase {
  readonly type: 'tool-call-arguments-delta';
  readonly step: number;
  readonly toolCallId: string;
  readonly delta: string;
}

/**
 * A streamed tool call's arguments are complete: the model finished writing the call, while the rest of its answer
 * may still be coming. Emitted once for every call of a streamed answer (after its `tool-call-streaming-started` and
 * `tool-call-arguments-delta` events, when the model sent those), before the call's `tool-call-started` or
 * `validation-failed`. A tool that starts on its streaming arguments (`executeStreaming`, such as
 * `execute_tool_plan`) is announced by `tool-call-started` with the arguments known then (`{}`); this event gives
 * a listener the whole call, so a progress display can show what the call does. Not emitted for an answer read
 * whole (`generate`): its `tool-call-started` carries the complete arguments.
 */
export interface ToolCallArgumentsCompleteEvent extends EventBase {
  readonly type: 'tool-call-arguments-complete';
  readonly step: number;
  readonly toolCallId: string;
  readonly toolName: string;
  /**
   * The complete raw argument text as the model wrote it (JSON, not yet parsed, repaired or validated: read it with
   * `readStrictJson` of `@org/core`, which never throws); the arguments the call runs with are on its `tool-call-started`, or its
   * `validation-failed` says why it will not run.
   */
  readonly arguments: string;
}

/**
 * A model call ended without an answer: the model threw (a `ProviderError` such as `rate_limited`, after the
 * adapter's own retries), was aborted, or failed otherwise. Closes the `inference-started` of the same `step`.
 */
export interface InferenceFailedEvent extends EventBase {
  readonly type: 'inference-failed';
  readonly step: number;
  readonly durationMs: number;
  /** The typed error's code and redacted message. */
  readonly error: EventError;
}

/**
 * A tool began executing. It ends with exactly one `tool-call-finished` of the same id (`observation.actionId`),
 * whatever happens (error, timeout, abort, a hook's block).
 */
export interface ToolCallStartedEvent extends EventBase {
  readonly type: 'tool-call-started';
  readonly action: Action;
}

/**
 * A tool call ended, in any final state. A call that never started has a `tool-call-finished` without a
 * `tool-call-started`: one whose arguments failed validation (after a `validation-failed` event), one beyond
 * `maxParallelToolCalls`, one skipped by the loop guard, one whose approval was denied.
 */
export interface ToolCallFinishedEvent extends EventBase {
  readonly type: 'tool-call-finished';
  readonly observation: Observation;
}

/** A streaming tool reported progress. */
export interface ToolCallProgressEvent extends EventBase {
  readonly type: 'tool-call-progress';
  readonly actionId: string;
  readonly toolName: string;
  readonly progress: unknown;
}

/**
 * A plan step was dispatched. It ends with exactly one `plan-step-finished` of the same `planId` and `stepId`.
 */
export interface PlanStepStartedEvent extends EventBase {
  readonly type: 'plan-step-started';
  /**
   * Which plan the step belongs to, so the steps of two plans (which may share step ids) can be told apart: the
   * `execute_tool_plan` call's id when the plan runs as a tool, `executePlan`'s `planId` option otherwise.
   */
  readonly planId?: string;
  readonly stepId: string;
  readonly toolName: string;
}

/**
 * A plan step reached its final state. A step that never started (skipped because a dependency failed, or not
 * started before the plan was aborted) has a `plan-step-finished` without a `plan-step-started`.
 */
export interface PlanStepFinishedEvent extends EventBase {
  readonly type: 'plan-step-finished';
  /** Which plan the step belongs to (see `PlanStepStartedEvent.planId`). */
  readonly planId?: string;
  readonly stepId: string;
  readonly toolName: string;
  readonly status: ObservationStatus;
  readonly durationMs: number;
  readonly error?: ObservationError;
}

/** A planner could not extract a decision from the model's text (ReAct); it may retry. */
export interface DecisionExtractionFailedEvent extends EventBase {
  readonly type: 'decision-extraction-failed';
  readonly step: number;
  readonly attempt: number;
  readonly message: string;
  /** The model text that failed to parse, redacted of secrets. */
  readonly text: string;
}

/** A tool call's arguments failed parsing or validation; the model is told on its next turn. */
export interface ValidationFailedEvent extends EventBase {
  readonly type: 'validation-failed';
  readonly toolCallId: string;
  readonly toolName: string;
  readonly error: ObservationError;
}

/** A tool needing approval paused the run. */
export interface ApprovalRequestedEvent extends EventBase {
  readonly type: 'approval-requested';
  readonly action: Action;
}

/** A hook blocked an action or rewrote its arguments. */
export interface ToolCallInterceptedEvent extends EventBase {
  readonly type: 'tool-call-intercepted';
  readonly actionId: string;
  readonly toolName: string;
  readonly decision: 'blocked' | 'rewritten';
  readonly reason: string;
}

/** An adapter or planner changed something to honour a request. */
export interface AdjustmentEvent extends EventBase {
  readonly type: 'adjustment';
  readonly adjustment: Adjustment;
}

/** One event emitted by the agent loop, the planners, the tool executor or the plan executor. */
export type RunEvent =
  | RunStartedEvent
  | RunFinishedEvent
  | InferenceStartedEvent
  | InferenceFinishedEvent
  | InferenceFailedEvent
  | TextDeltaEvent
  | ReasoningDeltaEvent
  | ToolCallStreamingStartedEvent
  | ToolCallArgumentsDeltaEvent
  | ToolCallArgumentsCompleteEvent
  | ToolCallStartedEvent
  | ToolCallFinishedEvent
  | ToolCallProgressEvent
  | PlanStepStartedEvent
  | PlanStepFinishedEvent
  | DecisionExtractionFailedEvent
  | ValidationFailedEvent
  | ApprovalRequestedEvent
  | ToolCallInterceptedEvent
  | AdjustmentEvent;

/** The names of all events. */
export type RunEventType = RunEvent['type'];

/** The event with the given `type`. */
export type RunEventOf<Type extends RunEventType> = Extract<RunEvent, { type: Type }>;

/** A listener for events; it must not throw (a throwing listener is isolated by the emitter). */
export type RunEventListener = (event: RunEvent) => void;
