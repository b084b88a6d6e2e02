import type { Adjustment } from './adjustment.js';
import type { FinishReason } from './language-model.js';
import type { Action, Observation, ObservationError, ObservationStatus, ToolCall } from './tool-call.js';
import type { ToolChoice } from './tool-choice.js';
import type { Usage } from './usage.js';

/** Fields every event carries. */
interface EventBase {
  /** Milliseconds since the epoch (or on the run's clock, when it has a virtual one). */
  readonly timestamp: number;
}

/** A run of the agent loop began. */
export interface RunStartedEvent extends EventBase {
  readonly type: 'run-started';
  readonly runId: string;
}

/** The agent loop ended, for the reason given. */
export interface RunFinishedEvent extends EventBase {
  readonly type: 'run-finished';
  readonly runId: string;
  /** `final-answer`, `terminal-tool`, `max-steps`, `stop-condition`, `loop-guard`, `aborted`, `approval-required`, `error`. */
  readonly reason: string;
  readonly steps: number;
  readonly usage: Usage;
}

/** A model call began. */
export interface InferenceStartedEvent extends EventBase {
  readonly type: 'inference-started';
  readonly step: number;
  readonly modelId: string;
  readonly provider: string;
  readonly messageCount: number;
  readonly toolCount: number;
  readonly toolChoice: ToolChoice;
}

/** A model call ended. */
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
}

/** A tool began executing. */
export interface ToolCallStartedEvent extends EventBase {
  readonly type: 'tool-call-started';
  readonly action: Action;
}

/** A tool ended, in any final state. */
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

/** A plan step was dispatched. */
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

/** A plan step reached its final state. */
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
