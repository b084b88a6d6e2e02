import type {
  Action,
  Clock,
  LanguageModel,
  Message,
  ProviderOptions,
  RunEventListeners,
  ToolCall,
  ToolChoice,
  ToolChoiceInput,
  Usage,
} from '@org/core';
import type { ExecuteActionOptions, Tool, ToolObservation, ToolRegistry, ZodSchema } from '@org/tools';
import type { MessageCompiler, StepMessages } from './message-compiler.js';
import type { InferenceRecord, Planner, PlannerTurn } from './planner.js';
import type { PrepareStep } from './prepare-step.js';
import type { PausedRunSettings } from './resume-options.js';
import type { ResumeTokenStore } from './resume-token-store.js';
import type { RunEffects } from './run-effects.js';
import type { StateSecret } from './state-seal.js';
import type { ToolChoicePolicy } from './tool-choice-policy.js';
import type { ToolExecutor } from './tool-executor.js';
import type { ToolSelectionStats, ToolStats } from './tool-stats.js';

/** Why a run ended. */
export type AgentFinishReason =
  | 'final-answer'
  | 'terminal-tool'
  | 'max-steps'
  | 'stop-condition'
  | 'loop-guard'
  | 'aborted'
  | 'approval-required'
  | 'error';

/** The hooks of tool execution (`beforeToolUse` may block or rewrite; `afterToolUse` sees the result). */
export type AgentHooks = NonNullable<ExecuteActionOptions['hooks']>;

/** What a stop condition sees after each step. */
export interface StopContext {
  /** The steps so far, the last one included. */
  readonly steps: readonly AgentStep[];
  readonly lastStep: AgentStep;
  readonly history: readonly Message[];
  /** Usage of the whole run so far (earlier segments of a resumed run included), as `AgentResult.usage`. */
  readonly usage: Usage;
}

/** Ends the run after a step when it returns true (or a non-empty string: the reason, reported in the result). */
export type StopCondition = (context: StopContext) => boolean | string;

/** A decision on a tool call that needs approval: `true` / `false`, or with a reason shown to the model. */
export type ApprovalDecision = boolean | { readonly approved: boolean; readonly reason?: string };

/** One step of a run: one planning cycle (one or more model calls) and the tool calls it made. */
export interface AgentStep {
  /** Zero-based. */
  readonly index: number;
  readonly toolChoice: ToolChoice;
  /** The final answer, or the model's text beside its calls. */
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
  /** The calls that became actions (valid, within the parallel limit). */
  readonly actions: readonly Action[];
  /** One result per tool call, in call order, rejected calls included. */
  readonly observations: readonly ToolObservation[];
  /** Calls not run, and why. */
  readonly rejectedToolCalls: readonly {
    readonly toolCallId: string;
    readonly reason: 'validation' | 'parallel-limit';
  }[];
  readonly inferences: readonly InferenceRecord[];
  /** Usage of this step's model calls. */
  readonly usage: Usage;
  /** When planning began and when the step's last tool call ended, on the run's clock. */
  readonly startedAt: number;
  readonly finishedAt: number;
}

/**
 * A paused run, resumable once with `runAgent({ ...options, resume: { state, decisions } })`. Plain JSON data, and
 * untrusted input when it comes back: a resume checks its shape, its seal (with `stateSecret`), the pending step
 * against the tools, and its resume token against the `resumeTokenStore`, before anything runs.
 */
export interface AgentState {
  readonly version: 1;
  readonly runId: string;
  /**
   * Unique to this pause: a resume claims it in the `resumeTokenStore`, so the state is resumed once (a second resume
   * of it throws `ResumeAlreadyClaimedError`).
   */
  readonly resumeToken: string;
  /**
   * `hmac-sha256:<hex>` over every other field (canonical JSON), when the paused run had a `stateSecret`; a resume
   * with a `stateSecret` refuses a state without it or that does not match it.
   */
  readonly seal?: string;
  readonly step: number;
  readonly history: readonly Message[];
  readonly steps: readonly AgentStep[];
  readonly usage: Usage;
  /** As `AgentResult.toolStats` (a null-prototype record). */
  readonly toolStats: Readonly<Record<string, ToolSelectionStats>>;
  /** The loop guard's counts: per call (tool and canonical arguments), its identical results in a row. */
  readonly callCounts: readonly (readonly [string, number])[];
  /** The loop guard's fingerprint of each call's last result (absent in states saved before it existed). */
  readonly callResults?: readonly (readonly [string, string])[];
  readonly calledTools: readonly string[];
  readonly forcedChoiceSatisfied: boolean;
  /** The planned step waiting for approval. */
  readonly pending: {
    readonly turn: PlannerTurn;
    readonly toolChoice: ToolChoice;
    readonly startedAt: number;
    /**
     * Results of the step's calls that ran while the answer streamed (`eager` tools), before the step paused: a
     * resume uses them instead of running those calls again.
     */
    readonly early?: readonly ToolObservation[];
  };
  /** The actions waiting for a decision, with the arguments they will run with (after `beforeToolUse`). */
  readonly pendingApprovals: readonly Action[];
  /**
   * The paused run's configuration: a resume continues with it (system prompt, `maxSteps`, tool choice, ...) and must
   * give again what a state cannot hold (`hooks`, `injected`, ...). Absent in states saved before it existed.
   */
  readonly run?: PausedRunSettings;
  /**
   * Where this run's messages sit in `history` (for `compileMessages`): its first own message, and each recorded
   * step's range. Absent in states saved before it existed (a compiler then treats the whole history as this run's).
   */
  readonly messageRanges?: {
    readonly runStart: number;
    readonly steps: readonly StepMessages[];
  };
}

/** The outcome of a run; `Output` is the type of `output` (inferred from the run's `output` schema). */
export interface AgentResult<Output = unknown> {
  readonly runId: string;
  /** The final answer (or a terminal tool's output); empty when the run ended otherwise. */
  readonly text: string;
  readonly finishReason: AgentFinishReason;
  /** For `stop-condition`, the condition's reason; for `loop-guard` and `error`, the error message. */
  readonly finishDetail?: string;
  readonly steps: readonly AgentStep[];
  /** Every tool result of the run, in order. */
  readonly observations: readonly ToolObservation[];
  /**
   * Usage summed over every model call of the whole run so far: a resumed run's `usage` includes what its earlier
   * segments spent (before each approval pause), and a paused run's includes the call whose answer paused it.
   */
  readonly usage: Usage;
  /**
   * Usage of the model calls made by this call of `runAgent` / `streamAgent` alone: one segment of a run that pauses
   * for approval and resumes (the whole run when it never paused, then equal to `usage`). Summing the segments'
   * `segmentUsage` gives the run's `usage`; summing their `usage` would count the earlier segments again.
   */
  readonly segmentUsage: Usage;
  /** Model calls made in the whole run so far (retries and final-answer calls included). */
  readonly roundTrips: number;
  /** Per tool name the model used: a null-prototype record (`__proto__`, `constructor` are plain keys). */
  readonly toolStats: ToolStats;
  /** The conversation (task, assistant turns, tool results), without the system prompt. */
  readonly messages: readonly Message[];
  /** Why the run failed, for `error`, `aborted` and `loop-guard`. */
  readonly error?: Error;
  /** The actions waiting for approval, for `approval-required`. */
  readonly pendingApprovals?: readonly Action[];
  /** The state to resume from, for `approval-required`. */
  readonly state?: AgentState;
  /**
   * The final answer parsed and validated against the run's `output` schema (set when `finishReason` is
   * `final-answer` and the run had `output`).
   */
  readonly output?: Output;
}

/** Options of `runAgent` and `streamAgent`. */
export interface AgentOptions {
  readonly model: LanguageModel;
  /** A registry, or tools to put in one. Offer `createToolPlanTool({ tools })` here for plan mode. */
  readonly tools: ToolRegistry | Iterable<Tool>;
  /** Default: function calling when the model declares tool calls, ReAct otherwise. */
  readonly planner?: Planner;
  /** The user's task, appended to `messages` as a user message. */
  readonly task?: string;
  /** A conversation to continue; leading system messages become part of the system prompt. */
  readonly messages?: readonly Message[];
  readonly systemPrompt?: string;
  /** A strategic plan shown in the system prompt as JSON, cut to `maxStrategicPlanCharacters` (default 4000). */
  readonly strategicPlan?: unknown;
  readonly maxStrategicPlanCharacters?: number;
  /**
   * Static (`'auto'`, `'required'`, `'none'`, `ToolChoice.tool(name)`), or a policy function called before each
   * step. A static forced choice (`required`, a named tool) applies until satisfied, then resets to `auto`.
   */
  readonly toolChoice?: ToolChoiceInput | ToolChoicePolicy;
  /** A tool-choice policy, as an alternative to passing it as `toolChoice` (give one or the other). */
  readonly policy?: ToolChoicePolicy;
  /**
   * Called before each step to change its active tools, its tool choice or its model (see `PrepareStep`); it sees
   * the choice `toolChoice` or `policy` gives the step, and its answer wins.
   */
  readonly prepareStep?: PrepareStep;
  /** Planning steps before the run stops with `max-steps`. Default 10. */
  readonly maxSteps?: number;
  readonly stopWhen?: StopCondition | readonly StopCondition[];
  /**
   * The loop guard: the same call (tool and arguments) may return the same result this many times in a row; calling
   * it once more ends the run with `loop-guard`. A call whose result changed (a polled job's status moved on) starts
   * counting again. Default 3.
   */
  readonly maxIdenticalToolCalls?: number;
  readonly hooks?: AgentHooks;
  /** Values for tools' injected (hidden) parameters. */
  readonly injected?: Readonly<Record<string, unknown>>;
  /** Tool calls run at once. Default 8. */
  readonly maxConcurrency?: number;
  /**
   * Deadline of each tool call, in ms (see `executeAction`'s `timeoutMs`). In plan mode it bounds each step and the
   * whole `execute_tool_plan` call alike.
   */
  readonly toolTimeoutMs?: number;
  /** Bytes of each tool output the model sees. Default: the executor's (50 KB). */
  readonly outputBudgetBytes?: number;
  /**
   * Runs each step's approved calls (seed 004's `CanExecuteToolCalls`). Default `defaultToolExecutor`
   * (`executeActions` of `@org/tools`). The loop keeps its rules around any executor: approval on the hook-screened
   * arguments, the loop guard, paired events, `stopOnToolBlock`, `throwOnToolFailure`; a custom executor's result is
   * checked (`InvalidToolExecutorResultError`).
   */
  readonly toolExecutor?: ToolExecutor;
  /**
   * Start calls of `eager` tools (`defineTool({ eager: true })`: no side effects a discarded answer would regret) the
   * moment their arguments are complete in the model's stream, while the model is still writing. A call that needs
   * approval never starts early, nor does any call when a `beforeToolUse` hook must see it first or a custom
   * `toolExecutor` (or `effects.toolExecutor`) runs the calls. If the answer is then discarded (a stream error, a
   * step paused for approval, the loop guard), the early calls are aborted through their signals and reported; a
   * call never runs twice in one answer. Default true; `false` waits for the whole answer.
   */
  readonly eagerToolExecution?: boolean;
  /**
   * A tool call that fails (status `error` or `timeout`, once run) ends the run with `finishReason: 'error'` and a
   * `ToolCallFailedError` naming it. The step is recorded first: every call of it (those running beside the failed
   * one finish) is answered in `messages`, so the conversation stays valid and can be continued. Calls refused before
   * running (invalid arguments, unknown tools, denied approvals, hook blocks) are not failures. Default false: the
   * model sees the error and may recover.
   */
  readonly throwOnToolFailure?: boolean;
  /**
   * When `beforeToolUse` blocks a call, the step's later calls (in call order) are not run: each is answered
   * `skipped` (`stopped_after_block`, naming the blocked call), and none of them is put up for approval. Earlier
   * calls run. Default false: every other call runs.
   */
  readonly stopOnToolBlock?: boolean;
  /**
   * Decides what history each model call sees (seed 004's message compiler, seed 000's filtered history):
   * `currentRunToolTraces()`, `recentToolTraces({ steps })`, or your own. Applied per step, never to the stored
   * history; its output must pair every call with its result (`InvalidCompiledMessagesError` otherwise). Default: the
   * whole history, with no extra work per step.
   */
  readonly compileMessages?: MessageCompiler;
  /**
   * Listens to the run's events: one listener, or several (called in order with each event, each isolated from the
   * others' failures), e.g. `[otelListener(), printProgress]`. See also `combineListeners`.
   */
  readonly onEvent?: RunEventListeners;
  readonly signal?: AbortSignal;
  /**
   * The time source of event timestamps and durations, e.g. the scripted model's virtual clock. Only `now` is
   * read, so any `Clock` from `@org/core` (or an object with just `now`) fits.
   */
  readonly clock?: Pick<Clock, 'now'>;
  /**
   * Where the run's nondeterministic effects happen: model calls, tool calls, time and generated ids (see
   * `RunEffects`). Default: in this process (`inProcessRunEffects(clock)`). A durable runtime such as `@org/restate`
   * gives its own, journaling each effect so a crashed run resumes without repeating one. Its `toolExecutor`, when
   * set, takes the place of `toolExecutor`.
   */
  readonly effects?: RunEffects;
  readonly runId?: string;
  /**
   * A zod object schema of the final answer: the run ends with `result.output` parsed and validated against it (its
   * type inferred). Models that declare `capabilities.structuredOutput` are asked natively (`responseFormat`); others
   * answer by calling a terminal `final_answer` tool whose input is the schema; ReAct is asked in its prompt. An answer
   * that does not match gets one repair round trip (the model is told what was wrong), then the run ends with
   * `StructuredOutputError`.
   */
  readonly output?: ZodSchema;
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  readonly providerOptions?: ProviderOptions;
  /**
   * Resume a run paused for approval, with a decision for each pending action id. Once per state: a second resume
   * of the same state throws `ResumeAlreadyClaimedError` (see `resumeTokenStore`).
   */
  readonly resume?: {
    readonly state: AgentState;
    readonly decisions: Readonly<Record<string, ApprovalDecision>>;
  };
  /**
   * Where resumes claim their state's resume token, atomically, so that a state is resumed once. Default: this
   * process's memory (`createInMemoryResumeTokenStore()`); give a store on your database when several processes may
   * resume (see `ResumeTokenStore`).
   */
  readonly resumeTokenStore?: ResumeTokenStore;
  /**
   * Seals paused states (HMAC-SHA256 over the canonical state, Web Crypto) and refuses, on resume, a state that is
   * unsealed or does not match its seal. Give it whenever a state leaves your server (a cookie, a client): without
   * it a resume still re-validates what will run, but cannot tell an edited conversation from the real one. Several
   * secrets rotate: the first seals, any verifies. At least 16 bytes each.
   */
  readonly stateSecret?: StateSecret;
}

export type { ToolStats };
