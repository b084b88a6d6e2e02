import type { Action, Message, Usage } from '@org/core';
import type { ToolPlanToolOptions } from '@org/plan-executor';
import type { AgentFinishReason, AgentOptions, AgentStep, ApprovalDecision, ToolStats } from '@org/planner';
import type { Tool, ToolObservation, ToolRegistry } from '@org/tools';
import type { DurableCodeOptions } from './durable-code-tool.js';
import type { RestateToolSource } from './restate-tool-source.js';

/** What starts a durable run: the body of a call to the workflow's `run` handler (JSON). */
export interface RestateAgentInput {
  /** The user's task, appended to `messages` as a user message. Give it, `messages`, or both. */
  readonly task?: string;
  /** A conversation to continue (leading system messages become part of the system prompt). */
  readonly messages?: readonly Message[];
  /** Anything the application wants its `agent` factory to see (a tenant, a locale); JSON. */
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** What a durable run may configure of `plan` mode: the plan tool's options that keep a replay deterministic. */
export type DurablePlanOptions = Pick<
  ToolPlanToolOptions,
  'maxConcurrency' | 'limits' | 'onEvent' | 'approveStep' | 'onPlanResult' | 'description' | 'describeOutputs'
>;

/**
 * The agent of a durable run: the options of `runAgent`, less what the workflow provides itself (the task, the run
 * id, the effects, resuming and its token store, the abort signal: Restate cancels a run with its own API) and what
 * cannot be journaled (a custom `toolExecutor`, a `clock`: time is the journal's).
 */
export interface DurableAgentSettings
  extends Omit<
    AgentOptions,
    | 'tools'
    | 'task'
    | 'messages'
    | 'runId'
    | 'effects'
    | 'toolExecutor'
    | 'resume'
    | 'resumeTokenStore'
    | 'stateSecret'
    | 'signal'
    | 'clock'
  > {
  /** Tools that run in this process, each call journaled. Default none. */
  readonly tools?: ToolRegistry | Iterable<Tool>;
  /**
   * Offer `execute_tool_plan` over every tool (these and the tool sources'): each plan step is journaled on its own,
   * scheduled as its dependencies finish. `true` for the defaults.
   */
  readonly plan?: boolean | DurablePlanOptions;
  /**
   * Offer `run_code` (`@org/code-mode`) over every tool: the model writes one program; each call it makes is
   * journaled on its own (keyed `<code call id>/<n>`), its time and randomness too, so a crash mid-program resumes
   * without running a finished call again. `true` for the defaults.
   */
  readonly code?: boolean | DurableCodeOptions;
  /** Tools served by other Restate services (`createRestateToolService`), offered beside `tools`. */
  readonly toolSources?: readonly RestateToolSource[];
}

/** What the `agent` factory knows of the run it configures. */
export interface DurableRunInfo {
  /** The run's id: the workflow's key. */
  readonly runId: string;
  readonly input: RestateAgentInput;
}

/** Options of `createRestateAgent`. */
export interface RestateAgentOptions {
  /** The workflow's name in Restate (its URL path: `/<name>/<runId>/run`). Default `agent`. */
  readonly name?: string;
  /**
   * The agent, built in the endpoint process: a fixed configuration, or a function of the run (called again on every
   * replay, so it must be a pure function of `input`: no I/O, no clock, no randomness).
   */
  readonly agent: DurableAgentSettings | ((run: DurableRunInfo) => DurableAgentSettings);
  /**
   * Retries of a model call that fails with a retryable error (rate limit, timeout, unavailable provider), by the
   * engine, with exponential backoff. A non-retryable error, or the last retry's, ends the run with `error`.
   * Default 6 attempts, from 1 s up to 30 s apart.
   */
  readonly modelRetry?: DurableRetryPolicy;
  /** How long Restate keeps a finished run's result and journal (ms). Default the server's (1 day). */
  readonly retentionMs?: number;
}

/** A retry policy of journaled calls. */
export interface DurableRetryPolicy {
  /** Attempts in all, the first included. */
  readonly maxAttempts?: number;
  readonly initialIntervalMs?: number;
  readonly maxIntervalMs?: number;
}

/** An approval the run waits for: the actions of one paused step. */
export interface PendingApproval {
  /** 1 for the run's first pause, 2 for its second, ... */
  readonly round: number;
  /** The calls waiting, with the arguments they will run with. */
  readonly actions: readonly Action[];
}

/** The body of a call to the workflow's `approve` handler. */
export interface ApprovalInput {
  /** A decision for every pending action, by action id (`true`, `false`, or `{ approved, reason }`). */
  readonly decisions: Readonly<Record<string, ApprovalDecision>>;
  /** The round decided (from `status`); when given, an approval meant for another round is refused. */
  readonly round?: number;
}

/** What the `status` handler answers. */
export interface RestateAgentStatus {
  readonly runId: string;
  /** The approval the run waits for now, or `null`. */
  readonly pending: PendingApproval | null;
}

/** One decided approval, as the run recorded it. */
export interface ApprovalRecord {
  readonly round: number;
  readonly actions: readonly Action[];
  readonly decisions: Readonly<Record<string, ApprovalDecision>>;
}

/** The outcome of a durable run: `AgentResult` as JSON data (the workflow's output). */
export interface DurableAgentResult {
  readonly runId: string;
  readonly text: string;
  readonly finishReason: AgentFinishReason;
  readonly finishDetail?: string;
  readonly steps: readonly AgentStep[];
  readonly observations: readonly ToolObservation[];
  /**
   * Tokens of the whole run: every model call, on either side of every approval it waited for, counted once. There
   * is no `segmentUsage` (as `AgentResult` has for a run resumed by its caller): the workflow waits for its approvals
   * itself, so its caller sees one run, never its segments.
   */
  readonly usage: Usage;
  readonly roundTrips: number;
  readonly toolStats: ToolStats;
  readonly messages: readonly Message[];
  /**
   * Why the run failed, for `error`, `aborted` and `loop-guard`. `causeCode` is the provider's error code of a model
   * call that failed for good (`DurableModelCallError`): `invalid_request`, `rate_limited` past the retries, ...
   */
  readonly error?: {
    readonly name: string;
    readonly code?: string;
    readonly causeCode?: string;
    readonly message: string;
  };
  /** Every approval the run waited for, in order, with the decisions it received. */
  readonly approvals: readonly ApprovalRecord[];
}
