import type {
  Action,
  AssistantMessage,
  FinishReason,
  LanguageModel,
  Message,
  ModelRequest,
  ModelResponse,
  ProviderOptions,
  ResponseFormat,
  RunEvent,
  ToolCall,
  ToolChoice,
  Usage,
} from '@org/core';
import type { ToolObservation, ToolRegistry } from '@org/tools';

/** Everything a planner needs for one planning step. */
export interface PlanningContext {
  readonly model: LanguageModel;
  readonly tools: ToolRegistry;
  /** The system prompt, strategic plan block included; `undefined` for none. */
  readonly systemPrompt: string | undefined;
  /** The conversation so far, task included, system prompt excluded. */
  readonly history: readonly Message[];
  /**
   * What this step's model calls see of `history`, when `compileMessages` chose (absent: all of it). Build requests
   * from `compiledHistory ?? history`; keep per-run bookkeeping (used tool-call ids) on `history`.
   */
  readonly compiledHistory?: readonly Message[];
  readonly toolChoice: ToolChoice;
  /** Zero-based index of this step in the run. */
  readonly step: number;
  readonly signal: AbortSignal | undefined;
  readonly maxOutputTokens: number | undefined;
  readonly temperature: number | undefined;
  readonly providerOptions: ProviderOptions | undefined;
  /** Emits an event of the run. */
  emit(event: RunEvent): void;
  /** The run's clock (milliseconds). */
  now(): number;
  /**
   * Makes one model call of this step through the run's effects (`RunEffects.callModel`: in process, or journaled by
   * a durable runtime); the loop numbers the step's calls. Absent: `infer` calls the model directly.
   */
  callModel?(
    request: ModelRequest,
    purpose: InferenceRecord['purpose'],
    call: (signal?: AbortSignal) => Promise<ModelResponse>,
  ): Promise<ModelResponse>;
  /** Ask for a JSON final answer matching a schema (the run's `output`, on a model with native structured output). */
  readonly responseFormat?: ResponseFormat;
  /** Whether anyone listens to the run's events: `false` skips building delta events nobody reads. Default true. */
  readonly listening?: boolean;
  /**
   * Where the planner offers each tool call of a streamed answer as soon as it is complete, so the loop can start
   * the calls that may start early (`eager` tools, `eagerToolExecution`). Absent: nothing starts before the answer
   * is complete.
   */
  readonly early?: EarlyStarts;
}

/**
 * The loop's side of eager execution, called by a planner while the model's answer streams. The loop decides what
 * may start (an `eager` tool, no approval needed, no `beforeToolUse` hook to ask first, the default executor); the
 * planner only reports what the model wrote, in order.
 */
export interface EarlyStarts {
  /** The model began writing a call (a tool that takes its arguments as they stream may start now). */
  callStarted(toolCallId: string, toolName: string): void;
  /** A fragment of a started call's raw arguments. */
  argumentsDelta(toolCallId: string, delta: string): void;
  /** A call's arguments are complete and valid: the action as it will run, and the call as the model wrote it. */
  callReady(action: Action, toolCall: ToolCall): void;
  /** A call will not run as written (invalid arguments, beyond the parallel limit): stop what started for it. */
  callRejected(toolCallId: string, reason: unknown): void;
  /** The answer is being asked for again (a retried model call): everything started for the lost attempt is stopped. */
  restart(reason: unknown): Promise<void>;
}

/** One model call made while planning a step. */
export interface InferenceRecord {
  readonly step: number;
  /** `decision` for the main call, `retry` for a ReAct extraction retry, `final-answer` for a separate answer. */
  readonly purpose: 'decision' | 'retry' | 'final-answer';
  readonly usage: Usage;
  readonly finishReason: FinishReason;
  readonly durationMs: number;
}

/** A call the planner did not turn into an action, answered with an error result. */
export interface RejectedToolCall {
  readonly toolCall: ToolCall;
  /** Why: invalid or unknown (`validation`), or beyond `maxParallelToolCalls` (`parallel-limit`). */
  readonly reason: 'validation' | 'parallel-limit';
  readonly observation: ToolObservation;
}

/** What a planner decided for one step. */
export interface PlannerTurn {
  /** `actions`: run these and observe; `final-answer`: the run is done; `failed`: no decision could be made. */
  readonly kind: 'actions' | 'final-answer' | 'failed';
  /** The final answer, or the model's thought beside its calls. */
  readonly text: string;
  /** The calls as the model made them, in order (ReAct: one synthetic call per decision). */
  readonly toolCalls: readonly ToolCall[];
  /** The valid calls within the parallel limit, ready to run. */
  readonly actions: readonly Action[];
  /** The other calls, each with its error result. */
  readonly rejected: readonly RejectedToolCall[];
  /** The assistant message that records this turn in the history. */
  readonly assistantMessage: AssistantMessage;
  readonly inferences: readonly InferenceRecord[];
  /** Why no decision was made, when `kind` is `failed`. */
  readonly error?: Error;
}

/**
 * A strategy that turns a model's answers into actions or a final answer: `createFunctionCallingPlanner` for
 * models with native tool calls, `createReActPlanner` for any model. `runAgent` drives either.
 */
export interface Planner {
  readonly kind: 'function-calling' | 'react';
  /** Throws `InvalidAgentOptionsError` when this planner cannot drive the model (checked before the run). */
  assertSupports(model: LanguageModel): void;
  /** Plans one step: builds the request(s), calls the model, and reads its decision. */
  plan(context: PlanningContext): Promise<PlannerTurn>;
  /**
   * The messages that record a turn and its results in the history. `observations` answer `turn.toolCalls`, one
   * each (rejected calls included), in any order.
   */
  recordTurn(turn: PlannerTurn, observations: readonly ToolObservation[]): Message[];
}
