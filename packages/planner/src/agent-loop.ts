import {
  AbortedError,
  type Action,
  addUsage,
  assertToolCallPairing,
  assertToolChoiceOffered,
  EMPTY_USAGE,
  eventErrorOf,
  limitValueProblem,
  type Message,
  OrgError,
  type RunEvent,
  type RunEventListener,
  type RunEventOf,
  type ToolChoice,
  timerDelayProblem,
  toToolChoice,
  type Usage,
} from '@org/core';
import { InvalidToolOptionError, type ToolObservation, ToolRegistry, toolNeedsApproval } from '@org/tools';
import type {
  AgentFinishReason,
  AgentOptions,
  AgentResult,
  AgentState,
  AgentStep,
  ApprovalDecision,
  StopCondition,
} from './agent-types.js';
import { canonicalJson } from './argument-leak.js';
import { runListener } from './combine-listeners.js';
import { EarlyExecution } from './early-execution.js';
import {
  type FailedToolCall,
  InvalidAgentOptionsError,
  InvalidResumeStateError,
  ResumeAlreadyClaimedError,
  StructuredOutputError,
  ToolCallFailedError,
} from './errors.js';
import { createFunctionCallingPlanner } from './function-calling-planner.js';
import { HookScreening } from './hook-screening.js';
import { LoopGuard } from './loop-guard.js';
import { compileMessages, type StepMessages } from './message-compiler.js';
import {
  createOutputSpec,
  type OutputSpec,
  outputInstructions,
  outputRepairRequest,
  readOutputText,
  withTool,
} from './output-spec.js';
import type { Planner, PlannerTurn, PlanningContext } from './planner.js';
import { type ActiveToolRegistries, prepareStep } from './prepare-step.js';
import { createReActPlanner } from './react-planner.js';
import { assertResumedTools, pausedRunSettings, resumedOptions, systemPromptOf } from './resume-options.js';
import {
  assertConsistentPendingStep,
  assertPendingStepRecordable,
  assertResumeStateShape,
  copyResumeState,
  readDecisions,
} from './resume-state.js';
import { defaultResumeTokenStore } from './resume-token-store.js';
import { inProcessRunEffects } from './run-effects.js';
import { createRunView } from './run-view.js';
import { sealState, stateSecretKeys, verifyStateSeal } from './state-seal.js';
import { observationErrorOf } from './tool-calls-to-actions.js';
import { isForcedChoiceSatisfied, resolveToolChoice } from './tool-choice-policy.js';
import {
  defaultToolExecutor,
  executeWithCustomExecutor,
  executorFailure,
  type ToolExecutorContext,
} from './tool-executor.js';
import { createToolStats, recordToolOutcome, type ToolSelectionStats } from './tool-stats.js';

const DEFAULT_MAX_STEPS = 10;
const DEFAULT_MAX_IDENTICAL_CALLS = 3;
const DEFAULT_MAX_CONCURRENCY = 8;
/** Round trips a run with `output` may spend on an answer that does not match the schema. */
const MAX_OUTPUT_REPAIRS = 1;

interface RunState {
  step: number;
  history: Message[];
  steps: AgentStep[];
  usage: Usage;
  toolStats: Record<string, ToolSelectionStats>;
  loopGuard: LoopGuard;
  calledTools: string[];
  forcedChoiceSatisfied: boolean;
  lastObservations: ToolObservation[];
  /** Index of the run's first own message in `history` (for `compileMessages`). */
  runStart: number;
  /** Where each recorded step put its messages (for `compileMessages`). */
  stepMessages: StepMessages[];
}

/** Checks options and builds what the run needs; throws `InvalidAgentOptionsError` before any model call. */
function prepare(options: AgentOptions): {
  registry: ToolRegistry;
  output: OutputSpec | undefined;
  planner: Planner;
  systemPrompt: string | undefined;
  initialHistory: Message[];
  maxSteps: number;
  maxIdenticalCalls: number;
  stopConditions: readonly StopCondition[];
  toolChoice: AgentOptions['toolChoice'];
} {
  if (typeof options.model?.generate !== 'function') {
    throw new InvalidAgentOptionsError({ option: 'model', message: 'must be a LanguageModel.' });
  }
  const registry = toRegistry(options.tools);
  const planner =
    options.planner ??
    (options.model.capabilities.toolCalls ? createFunctionCallingPlanner() : createReActPlanner());
  planner.assertSupports(options.model);
  const positiveInteger = (option: string, value: number | undefined, fallback: number): number => {
    if (value === undefined) return fallback;
    if (!Number.isInteger(value) || value < 1) {
      throw new InvalidAgentOptionsError({
        option,
        message: `must be an integer >= 1, got ${String(value)}.`,
      });
    }
    return value;
  };
  const maxSteps = positiveInteger('maxSteps', options.maxSteps, DEFAULT_MAX_STEPS);
  const maxIdenticalCalls = positiveInteger(
    'maxIdenticalToolCalls',
    options.maxIdenticalToolCalls,
    DEFAULT_MAX_IDENTICAL_CALLS,
  );
  positiveInteger('maxConcurrency', options.maxConcurrency, DEFAULT_MAX_CONCURRENCY);
  // The one timer rule of @org/core, checked before any model call rather than failing each tool call.
  const timeoutProblem =
    options.toolTimeoutMs === undefined
      ? undefined
      : timerDelayProblem(options.toolTimeoutMs, { infinity: true });
  if (timeoutProblem !== undefined) {
    throw new InvalidAgentOptionsError({ option: 'toolTimeoutMs', message: timeoutProblem });
  }
  const budgetProblem =
    options.outputBudgetBytes === undefined
      ? undefined
      : limitValueProblem(options.outputBudgetBytes, { minimum: 0, infinity: true });
  if (budgetProblem !== undefined) {
    throw new InvalidAgentOptionsError({ option: 'outputBudgetBytes', message: budgetProblem });
  }
  if (options.policy !== undefined && options.toolChoice !== undefined) {
    throw new InvalidAgentOptionsError({
      option: 'policy',
      message: 'give either toolChoice or policy, not both.',
    });
  }
  if (options.policy !== undefined && typeof options.policy !== 'function') {
    throw new InvalidAgentOptionsError({
      option: 'policy',
      message: 'must be a function of the step context.',
    });
  }
  const toolChoice = options.policy ?? options.toolChoice;
  if (typeof toolChoice !== 'function') {
    // A named tool must be offered: fail now rather than on the first model call.
    assertToolChoiceOffered(toToolChoice(toolChoice), registry.names());
  }
  const messages = [...(options.messages ?? [])];
  // Leading system messages are part of the system prompt (systemPromptOf); the rest is the conversation.
  while (messages[0]?.role === 'system') messages.shift();
  if (messages.some((message) => message.role === 'system')) {
    throw new InvalidAgentOptionsError({
      option: 'messages',
      message: 'system messages are only accepted at the start of the conversation.',
    });
  }
  if (options.task !== undefined && (typeof options.task !== 'string' || options.task.trim() === '')) {
    throw new InvalidAgentOptionsError({ option: 'task', message: 'must be a non-empty string.' });
  }
  const initialHistory: Message[] = [
    ...messages,
    ...(options.task === undefined ? [] : [{ role: 'user' as const, content: options.task }]),
  ];
  // A conversation no provider would accept fails now, naming the message, not at the first model call.
  assertToolCallPairing(initialHistory);
  if (initialHistory.length === 0 && options.resume === undefined) {
    throw new InvalidAgentOptionsError({
      option: 'task',
      message: 'give a task or a conversation (messages).',
    });
  }
  const output = options.output === undefined ? undefined : createOutputSpec(options.output, registry);
  // ReAct has no tools on the wire to carry a typed answer: the final answer's form is asked for in the prompt.
  const systemPrompt =
    output !== undefined && planner.kind === 'react'
      ? [systemPromptOf(options), outputInstructions(output)]
          .filter((part) => part !== undefined)
          .join('\n\n')
      : systemPromptOf(options);
  const stopConditions =
    options.stopWhen === undefined
      ? []
      : typeof options.stopWhen === 'function'
        ? [options.stopWhen]
        : [...options.stopWhen];
  return {
    registry,
    output,
    planner,
    systemPrompt,
    initialHistory,
    maxSteps,
    maxIdenticalCalls,
    stopConditions,
    toolChoice,
  };
}

/**
 * Runs the loop, delivering every event to `ownListener` (a stream's) and then to `onEvent`'s listeners. Resolves
 * with the result; never rejects once the options are valid (a provider error, an abort or an unreadable decision
 * ends the run with `finishReason` and `error`).
 */
export async function executeRun(
  givenOptions: AgentOptions,
  ownListener?: RunEventListener,
): Promise<AgentResult> {
  const listener = runListener(ownListener, givenOptions.onEvent);
  // Checked once here, so a run that pauses can seal its state and a resume can verify it.
  const stateKeys =
    givenOptions.stateSecret === undefined ? undefined : stateSecretKeys(givenOptions.stateSecret);
  // A stored state is untrusted input: a JSON copy of it (what is checked is what runs), its seal verified when a
  // secret is configured, then every field the loop reads checked, before anything reads it.
  let options = givenOptions;
  const resumeInput = givenOptions.resume;
  if (resumeInput !== undefined) {
    if (typeof resumeInput !== 'object' || resumeInput === null) {
      throw new InvalidResumeStateError({
        reason: 'malformed',
        field: 'resume',
        message: 'The resume option is not { state, decisions }.',
      });
    }
    const copy = copyResumeState(Object.hasOwn(resumeInput, 'state') ? resumeInput.state : undefined);
    if (stateKeys !== undefined) await verifyStateSeal(copy, stateKeys);
    assertResumeStateShape(copy);
    options = { ...givenOptions, resume: { state: copy, decisions: resumeInput.decisions } };
  }
  // A resume continues the paused run as it was configured (checked against what the resume gives).
  options = resumedOptions(options);
  const setup = prepare(options);
  assertResumedTools(options, setup.registry.names());
  const { planner, systemPrompt, maxSteps, maxIdenticalCalls, stopConditions, output } = setup;
  // With `output`, the tool that carries a typed answer can run whatever the step offered (see outputMode).
  const registry = output === undefined ? setup.registry : withTool(setup.registry, output.tool);
  let outputRepairs = 0;
  let forceOutputTool = false;
  // Every nondeterministic effect goes through one interface, so a durable runtime can journal and replay it.
  const effects = options.effects ?? inProcessRunEffects(options.clock);
  const clock = options.effects === undefined ? options.clock : effects;
  // `Date.now` itself when nothing else keeps the time: the loop reads the clock for every event.
  const now: () => number = clock === undefined ? Date.now : () => clock.now();
  const toolExecutor = effects.toolExecutor ?? options.toolExecutor;
  const activeToolRegistries: ActiveToolRegistries = new Map();
  // A call may start while the answer streams only where nothing must be decided first: the default executor, and
  // no beforeToolUse hook (it sees every call before it runs). Tools opt in with `eager`.
  const eagerAllowed =
    options.eagerToolExecution !== false &&
    toolExecutor === undefined &&
    options.hooks?.beforeToolUse === undefined;
  const deliver = (event: RunEvent): void => {
    if (listener === undefined) return;
    try {
      // Every event names its run, so one listener can follow several runs at once (tracing, logs).
      listener(event.runId === runId ? event : { ...event, runId });
    } catch {
      // A throwing listener must not break the run (RunEventListener contract).
    }
  };
  const emit = (event: RunEvent): void => {
    deliver(event);
    // The plan tool reports its steps as progress; surface them as the plan-step events they are, so a listener
    // sees plan steps start and finish without knowing which tool runs plans.
    if (event.type === 'tool-call-progress' && isPlanStepEvent(event.progress)) {
      // A plan tool that does not name its plans is named by its call's id.
      const planEvent = event.progress;
      deliver(planEvent.planId === undefined ? { ...planEvent, planId: event.actionId } : planEvent);
    }
  };
  const resume = options.resume;
  const runId = resume?.state.runId ?? options.runId ?? effects.newId('run');
  const state: RunState = resume
    ? restoreState(resume.state, maxIdenticalCalls)
    : {
        step: 0,
        history: setup.initialHistory,
        steps: [],
        usage: EMPTY_USAGE,
        toolStats: createToolStats(),
        loopGuard: new LoopGuard(maxIdenticalCalls),
        calledTools: [],
        forcedChoiceSatisfied: false,
        lastObservations: [],
        runStart: setup.initialHistory.length,
        stepMessages: [],
      };
  const observations: ToolObservation[] = state.steps.flatMap((step) => [...step.observations]);
  // What this segment's model calls spent (a resumed run's earlier segments are in `state.usage` already).
  let segmentUsage: Usage = EMPTY_USAGE;
  // Checked before the run starts: a resume that cannot proceed throws, and leaves no run-started without its end.
  let decisions: Readonly<Record<string, ApprovalDecision>> = {};
  if (resume !== undefined) {
    decisions = readDecisions(resume.state, resume.decisions);
    assertConsistentPendingStep(resume.state, registry, {
      rewritesArguments: options.hooks?.beforeToolUse !== undefined,
    });
    assertPendingStepRecordable(resume.state, planner);
    // Last, once everything else holds (a refused resume leaves the token unspent): a state is resumed once.
    const store = options.resumeTokenStore ?? defaultResumeTokenStore;
    const claimed = await store.claim(resume.state.resumeToken, { runId });
    if (claimed !== true) {
      throw new ResumeAlreadyClaimedError({ runId, resumeToken: resume.state.resumeToken });
    }
  }
  emit({ type: 'run-started', timestamp: now(), runId });

  const finish = (
    finishReason: AgentFinishReason,
    extra: {
      text?: string;
      error?: Error;
      detail?: string;
      pendingApprovals?: Action[];
      paused?: AgentState;
      output?: unknown;
    } = {},
  ): AgentResult => {
    // A paused step is recorded when it resumes, but its model calls were made (and spent) in this segment.
    const pendingTurn = extra.paused?.pending.turn;
    const usage = pendingTurn === undefined ? state.usage : addUsage(state.usage, usageOf(pendingTurn));
    emit({
      type: 'run-finished',
      timestamp: now(),
      runId,
      reason: finishReason,
      steps: state.steps.length,
      usage,
      segmentUsage,
      ...(extra.error === undefined ? {} : { error: eventErrorOf(extra.error) }),
    });
    const detail = extra.detail ?? extra.error?.message;
    return {
      runId,
      text: extra.text ?? '',
      finishReason,
      ...(detail === undefined ? {} : { finishDetail: detail }),
      steps: state.steps,
      observations,
      usage,
      segmentUsage,
      roundTrips:
        state.steps.reduce((sum, step) => sum + step.inferences.length, 0) +
        (pendingTurn?.inferences.length ?? 0),
      toolStats: state.toolStats,
      messages: state.history,
      ...(extra.error === undefined ? {} : { error: extra.error }),
      ...(extra.pendingApprovals === undefined ? {} : { pendingApprovals: extra.pendingApprovals }),
      ...(extra.paused === undefined ? {} : { state: extra.paused }),
      ...(extra.output === undefined ? {} : { output: extra.output }),
    };
  };

  const observe = (observation: ToolObservation): void => {
    emit({ type: 'tool-call-finished', timestamp: now(), observation });
  };

  /** Runs a planned step's actions (approvals decided), records everything, and says whether the run ends. */
  const completeStep = async (
    turn: PlannerTurn,
    toolChoice: ToolChoice,
    startedAt: number,
    screening: HookScreening,
    early: EarlyExecution | undefined,
    approval: {
      readonly decisions: Readonly<Record<string, ApprovalDecision>>;
      /** The actions as the human saw them when asked (their arguments after the hooks). */
      readonly asked: readonly Action[];
      /** On resume, the actions that need approval now and were not asked about: not run. */
      readonly unasked?: ReadonlySet<string>;
      /** On resume, the results of the calls that ran early before the step paused. */
      readonly ranEarly?: ReadonlyMap<string, ToolObservation>;
    } = { decisions: {}, asked: [] },
  ): Promise<AgentResult | undefined> => {
    const results = new Map<string, ToolObservation>();
    const asked = new Map(approval.asked.map((action) => [action.id, action]));
    for (const rejected of turn.rejected) {
      results.set(rejected.toolCall.id, rejected.observation);
      // A call that started on its streaming arguments announced itself: it is stopped and closes its own events.
      if (early?.announced(rejected.toolCall.id) === true)
        await early.drop(rejected.toolCall.id, rejected.reason);
      else observe(rejected.observation);
    }
    // Loop guard: a call that keeps returning the same result is refused, and the run ends.
    const loop = state.loopGuard.check(turn.actions);
    // A step whose calls will not run discards what started early: aborted, and reported as such. Calls that ran
    // early before the step paused (`ranEarly`, on resume) are not run again.
    const discarded = loop === undefined || early === undefined ? undefined : await early.discard(loop);
    const doneEarly = (id: string): ToolObservation | undefined =>
      discarded?.get(id) ?? approval.ranEarly?.get(id);
    const stopped = stoppedAfterBlock(turn.actions, screening, options.stopOnToolBlock === true);
    const runnable: Action[] = [];
    for (const action of turn.actions) {
      const decision = decisionFor(approval.decisions, action.id);
      const askedAbout = asked.get(action.id);
      const argsToRun = screening.argsToRun(action);
      const ranEarly = doneEarly(action.id);
      if (ranEarly !== undefined) {
        results.set(action.id, ranEarly);
      } else if (loop !== undefined) {
        const skipped: ToolObservation = {
          actionId: action.id,
          toolName: action.toolName,
          status: 'skipped',
          error: observationErrorOf(loop),
          durationMs: 0,
        };
        results.set(action.id, skipped);
        observe(skipped);
      } else if (stopped?.has(action.id) === true) {
        const skipped: ToolObservation = {
          actionId: action.id,
          toolName: action.toolName,
          status: 'skipped',
          error: {
            code: 'stopped_after_block',
            message: `The call was not run: an earlier call of this turn (${stopped.get(action.id) as string}) was blocked by a beforeToolUse hook, and the run stops a turn's calls there (stopOnToolBlock).`,
          },
          durationMs: 0,
        };
        results.set(action.id, skipped);
        observe(skipped);
      } else if (decision !== undefined && !approvedOf(decision)) {
        const reason = typeof decision === 'object' ? decision.reason : undefined;
        const blocked: ToolObservation = {
          actionId: action.id,
          toolName: action.toolName,
          status: 'blocked',
          error: {
            code: 'approval_denied',
            message: `The user did not approve this call${reason === undefined ? '.' : `: ${reason}`}`,
          },
          durationMs: 0,
        };
        results.set(action.id, blocked);
        observe(blocked);
      } else if (approval.unasked?.has(action.id) === true) {
        // A resumed step's call that needs approval on the arguments it would run with, and that no human was asked
        // about (a call added to the stored state, or a predicate that changed its answer): never run unapproved.
        const unapproved: ToolObservation = {
          actionId: action.id,
          toolName: action.toolName,
          status: 'blocked',
          error: {
            code: 'approval_required',
            message:
              'The call was not run: it needs approval, and it was not among the calls put up for approval.',
          },
          durationMs: 0,
        };
        results.set(action.id, unapproved);
        observe(unapproved);
      } else if (
        askedAbout !== undefined &&
        argsToRun !== undefined &&
        canonicalJson(argsToRun) !== canonicalJson(askedAbout.args)
      ) {
        // The hooks, asked again on resume, would run other arguments than the ones the human approved.
        const stale: ToolObservation = {
          actionId: action.id,
          toolName: action.toolName,
          status: 'blocked',
          error: {
            code: 'approval_stale',
            message:
              'The call was not run: the arguments it would run with differ from the ones that were approved.',
          },
          durationMs: 0,
        };
        results.set(action.id, stale);
        observe(stale);
      } else {
        runnable.push(action);
      }
    }
    // Calls that started while the answer streamed are not run again: the step takes their observations.
    const startedEarly: Promise<ToolObservation>[] = [];
    if (early !== undefined && early.size > 0) {
      const rest: Action[] = [];
      for (const action of runnable) {
        const running = await early.take(action);
        if (running === undefined) rest.push(action);
        else startedEarly.push(running.observation);
      }
      runnable.splice(0, runnable.length, ...rest);
      // Whatever started early for a call that is not among the step's calls (a stream that began a call it never
      // completed) is stopped and closes its own events.
      await early.discard(new AbortedError({ operation: 'a call the answer did not complete' }));
    }
    const maxConcurrency = options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY;
    let executorError: unknown;
    let executed: readonly ToolObservation[] = [];
    if (runnable.length > 0) {
      const executorContext: ToolExecutorContext = {
        registry,
        hooks: screening.hooks(),
        injected: options.injected,
        signal: options.signal,
        // Calls that started early and still run count against the step's concurrency.
        maxConcurrency:
          startedEarly.length === 0 || early === undefined
            ? maxConcurrency
            : await early.freeSlots(maxConcurrency),
        timeoutMs: options.toolTimeoutMs,
        outputBudgetBytes: options.outputBudgetBytes,
        run: createRunView(runId, state.step, state.history, turn.toolCalls),
        emit,
        now,
      };
      try {
        executed =
          toolExecutor === undefined
            ? await defaultToolExecutor.execute(runnable, executorContext)
            : await executeWithCustomExecutor(toolExecutor, runnable, executorContext);
      } catch (error) {
        // The step is still recorded, each call answered, so the conversation stays valid; then the run ends.
        executorError = error;
        executed = runnable.map((action) => executorFailure(action, error));
      }
    }
    if (startedEarly.length > 0) executed = [...(await Promise.all(startedEarly)), ...executed];
    for (const observation of executed) results.set(observation.actionId, observation);
    if (loop === undefined) {
      for (const action of turn.actions) {
        const observation = results.get(action.id);
        if (observation !== undefined) state.loopGuard.record(action, observation);
      }
    }

    const ordered = turn.toolCalls.map(
      (call) =>
        results.get(call.id) ?? {
          actionId: call.id,
          toolName: call.toolName,
          status: 'error' as const,
          error: { code: 'missing_tool_result', message: 'This call produced no result.' },
          durationMs: 0,
        },
    );
    const rejectedIds = new Map(turn.rejected.map((rejected) => [rejected.toolCall.id, rejected.reason]));
    for (const observation of ordered) {
      const reason = rejectedIds.get(observation.actionId);
      recordToolOutcome(
        state.toolStats,
        observation.toolName,
        reason === 'validation' ? 'invalid' : observation.status,
      );
      state.calledTools.push(observation.toolName);
    }
    observations.push(...ordered);
    state.lastObservations = ordered;
    recordMessages(planner.recordTurn(turn, ordered));
    recordStep(turn, toolChoice, ordered, startedAt);

    if (loop !== undefined) return finish('loop-guard', { error: loop });
    if (options.signal?.aborted || AbortedError.isInstance(executorError)) {
      return finish('aborted', {
        error: AbortedError.isInstance(executorError)
          ? executorError
          : new AbortedError({ operation: 'agent run', cause: options.signal?.reason }),
      });
    }
    if (executorError !== undefined) {
      return finish('error', {
        error:
          executorError instanceof Error
            ? executorError
            : new OrgError('error', { message: String(executorError) }),
      });
    }
    if (options.throwOnToolFailure === true) {
      const failures: FailedToolCall[] = [];
      for (const observation of executed) {
        if (observation.status !== 'error' && observation.status !== 'timeout') continue;
        failures.push({
          toolCallId: observation.actionId,
          toolName: observation.toolName,
          status: observation.status,
          error: observation.error,
        });
      }
      if (failures.length > 0) {
        // In call order, whatever order the calls finished in.
        const order = new Map(turn.toolCalls.map((call, index) => [call.id, index]));
        failures.sort((a, b) => (order.get(a.toolCallId) ?? 0) - (order.get(b.toolCallId) ?? 0));
        return finish('error', {
          error: new ToolCallFailedError({ failures: failures as [FailedToolCall, ...FailedToolCall[]] }),
        });
      }
    }
    if (output !== undefined) {
      const answered = turn.actions.find(
        (action) => action.toolName === output.tool.name && results.get(action.id)?.status === 'success',
      );
      if (answered !== undefined) {
        return finish('final-answer', { text: JSON.stringify(answered.args), output: answered.args });
      }
      // An answer call refused for its arguments (one cut by maxParallelToolCalls was never read).
      const invalid = turn.rejected.find(
        (rejected) => rejected.reason === 'validation' && rejected.toolCall.toolName === output.tool.name,
      );
      if (invalid !== undefined) {
        // The model saw what was wrong in the call's result: that was the repair round trip, once.
        // After the one repair, or with no step left for it, the answer that did not match is the run's error.
        if (outputRepairs >= MAX_OUTPUT_REPAIRS || state.step >= maxSteps) {
          return finish('error', {
            error: new StructuredOutputError({
              text: invalid.toolCall.arguments,
              problem: invalid.observation.error?.message ?? 'invalid arguments',
            }),
          });
        }
        outputRepairs++;
        forceOutputTool = true;
      }
    }
    const terminal = ordered.find(
      (observation) =>
        observation.status === 'success' && registry.resolve(observation.toolName)?.terminal === true,
    );
    if (terminal !== undefined) {
      const output = terminal.output;
      return finish('terminal-tool', {
        text: typeof output === 'string' ? output : (JSON.stringify(output) ?? ''),
      });
    }
    const lastStep = state.steps.at(-1) as AgentStep;
    for (const condition of stopConditions) {
      const verdict = condition({ steps: state.steps, lastStep, history: state.history, usage: state.usage });
      if (verdict === true || (typeof verdict === 'string' && verdict !== '')) {
        return finish('stop-condition', {
          detail: typeof verdict === 'string' ? verdict : 'stopWhen returned true',
        });
      }
    }
    return undefined;
  };

  /** A step's early execution: its calls run with the options the step's executor would give them. */
  const createEarlyExecution = (stepTools: ToolRegistry): EarlyExecution =>
    new EarlyExecution({
      registry: stepTools,
      mayRun: (action) => state.loopGuard.check([action]) === undefined,
      maxConcurrency: options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY,
      signal: options.signal,
      options: (toolCalls) => ({
        onEvent: emit,
        now,
        run: createRunView(runId, state.step, state.history, toolCalls),
        ...(options.hooks === undefined ? {} : { hooks: options.hooks }),
        ...(options.injected === undefined ? {} : { injected: options.injected }),
        ...(options.toolTimeoutMs === undefined ? {} : { timeoutMs: options.toolTimeoutMs }),
        ...(options.outputBudgetBytes === undefined ? {} : { outputBudgetBytes: options.outputBudgetBytes }),
      }),
    });

  /** Appends a step's messages to the history, remembering where they sit (for `compileMessages`). */
  const recordMessages = (messages: readonly Message[]): void => {
    const start = state.history.length;
    state.history.push(...messages);
    state.stepMessages.push({ step: state.step, start, end: state.history.length });
  };

  const recordStep = (
    turn: PlannerTurn,
    toolChoice: ToolChoice,
    stepObservations: ToolObservation[],
    startedAt: number,
  ): void => {
    const usage = usageOf(turn);
    state.usage = addUsage(state.usage, usage);
    state.steps.push({
      index: state.step,
      toolChoice,
      text: turn.text,
      toolCalls: turn.toolCalls,
      actions: turn.actions,
      observations: stepObservations,
      rejectedToolCalls: turn.rejected.map((rejected) => ({
        toolCallId: rejected.toolCall.id,
        reason: rejected.reason,
      })),
      inferences: turn.inferences,
      usage,
      startedAt,
      finishedAt: now(),
    });
    state.step++;
  };

  try {
    if (resume !== undefined) {
      const turn = resume.state.pending.turn;
      // The hooks are asked again here, in the resuming process; approval then holds only for the arguments the
      // human saw.
      const screening = await HookScreening.screen(registry, turn.actions, options.hooks, options.signal);
      const asked = new Set(resume.state.pendingApprovals.map((action) => action.id));
      const unasked = new Set<string>();
      for (const action of turn.actions) {
        if (asked.has(action.id)) continue;
        const tool = registry.resolve(action.toolName);
        const args = screening.argsToRun(action);
        if (tool !== undefined && args !== undefined && (await toolNeedsApproval(tool, args)))
          unasked.add(action.id);
      }
      const ended = await completeStep(
        turn,
        resume.state.pending.toolChoice,
        resume.state.pending.startedAt,
        screening,
        undefined,
        {
          decisions,
          asked: resume.state.pendingApprovals,
          unasked,
          ranEarly: new Map(
            (resume.state.pending.early ?? []).map((observation) => [observation.actionId, observation]),
          ),
        },
      );
      if (ended !== undefined) return ended;
    }

    while (state.step < maxSteps) {
      if (options.signal?.aborted) {
        return finish('aborted', {
          error: new AbortedError({ operation: 'agent run', cause: options.signal.reason }),
        });
      }
      const choiceContext = {
        step: state.step,
        history: state.history,
        lastObservations: state.lastObservations,
        calledTools: state.calledTools,
      };
      let toolChoice = resolveToolChoice(setup.toolChoice, choiceContext);
      // A static forced choice applies until the model honours it once; then the model decides, so the loop
      // cannot spin on the same forced call.
      if (typeof setup.toolChoice !== 'function' && state.forcedChoiceSatisfied)
        toolChoice = { type: 'auto' };
      let stepModel = options.model;
      let stepTools = setup.registry;
      if (options.prepareStep !== undefined) {
        const prepared = await prepareStep(
          options.prepareStep,
          { ...choiceContext, model: options.model, tools: setup.registry, toolChoice },
          planner,
          activeToolRegistries,
        );
        stepModel = prepared.model;
        stepTools = prepared.tools;
        toolChoice = prepared.toolChoice;
      }
      const outputMode =
        output === undefined
          ? undefined
          : planner.kind === 'react'
            ? 'text'
            : stepModel.capabilities.structuredOutput === true
              ? 'native'
              : 'tool';
      if (output !== undefined && outputMode === 'tool') {
        stepTools = withTool(stepTools, output.tool);
        if (forceOutputTool) toolChoice = { type: 'tool', toolName: output.tool.name };
      }
      // Only a streamed answer can start anything early: a model read whole gets no early execution (and no cost).
      const early =
        eagerAllowed && stepModel.capabilities.streaming ? createEarlyExecution(stepTools) : undefined;
      // The step's model calls are numbered for the run's effects (a journal keys them by step and number).
      let modelCalls = 0;
      const context: PlanningContext = {
        model: stepModel,
        tools: stepTools,
        systemPrompt,
        history: state.history,
        toolChoice,
        step: state.step,
        ...(options.compileMessages === undefined
          ? {}
          : {
              compiledHistory: compileMessages(options.compileMessages, {
                history: state.history,
                step: state.step,
                runStart: state.runStart,
                stepMessages: state.stepMessages,
              }),
            }),
        signal: options.signal,
        maxOutputTokens: options.maxOutputTokens,
        temperature: options.temperature,
        providerOptions: options.providerOptions,
        emit,
        now,
        callModel: (request, purpose, call) =>
          effects.callModel({ runId, step: context.step, index: modelCalls++, purpose, request }, call),
        listening: listener !== undefined,
        ...(outputMode === 'native' && output !== undefined
          ? {
              responseFormat:
                (stepModel.capabilities.strictSchemas ? output.strictResponseFormat : undefined) ??
                output.responseFormat,
            }
          : {}),
        ...(early === undefined ? {} : { early }),
      };
      const stepStartedAt = now();
      let turn: PlannerTurn;
      try {
        turn = await planner.plan(context);
        segmentUsage = addUsage(segmentUsage, usageOf(turn));
      } catch (error) {
        // The answer is lost (a stream error, an abort): what started early is aborted and reported.
        await early?.discard(error);
        throw error;
      }
      if (turn.kind !== 'actions') await early?.discard(new AbortedError({ operation: 'eager tool call' }));
      if (turn.kind === 'failed') {
        recordStep(turn, toolChoice, [], stepStartedAt);
        return finish('error', turn.error === undefined ? {} : { error: turn.error });
      }
      if (turn.kind === 'final-answer') {
        recordMessages(planner.recordTurn(turn, []));
        recordStep(turn, toolChoice, [], stepStartedAt);
        if (output === undefined) return finish('final-answer', { text: turn.text });
        const reading =
          outputMode === 'tool'
            ? {
                ok: false as const,
                problem: `Give your final answer by calling ${output.tool.name} with it.`,
              }
            : readOutputText(output, turn.text, turn.inferences.at(-1)?.finishReason ?? 'stop');
        if (reading.ok) return finish('final-answer', { text: turn.text, output: reading.value });
        // After the one repair, or with no step left for it, the answer that did not match is the run's error.
        if (outputRepairs >= MAX_OUTPUT_REPAIRS || state.step >= maxSteps) {
          return finish('error', {
            error: new StructuredOutputError({ text: turn.text, problem: reading.problem }),
          });
        }
        // One repair round trip: the model is told what was wrong and answers again.
        outputRepairs++;
        forceOutputTool = outputMode === 'tool';
        recordMessages([{ role: 'user', content: outputRepairRequest(reading.problem, outputMode) }]);
        continue;
      }
      if (
        isForcedChoiceSatisfied(
          toolChoice,
          turn.toolCalls.map((call) => call.toolName),
        )
      ) {
        state.forcedChoiceSatisfied = true;
      }
      // Approval judges the arguments that will actually run: after `beforeToolUse`, as in `executeAction`.
      const screening = await HookScreening.screen(registry, turn.actions, options.hooks, options.signal);
      const stopped = stoppedAfterBlock(turn.actions, screening, options.stopOnToolBlock === true);
      const needingApproval: Action[] = [];
      for (const action of turn.actions) {
        if (stopped?.has(action.id) === true) continue;
        const tool = registry.resolve(action.toolName);
        const args = screening.argsToRun(action);
        if (tool !== undefined && args !== undefined && (await toolNeedsApproval(tool, args))) {
          needingApproval.push(args === action.args ? action : { ...action, args });
        }
      }
      if (needingApproval.length > 0) {
        // Calls that started early finish, and their results wait in the state: a resume does not run them again.
        const ranEarly = (await early?.settle()) ?? [];
        for (const action of needingApproval) emit({ type: 'approval-requested', timestamp: now(), action });
        const unsealed: AgentState = {
          version: 1,
          runId,
          resumeToken: effects.newId('resume-token'),
          step: state.step,
          history: [...state.history],
          steps: [...state.steps],
          usage: state.usage,
          toolStats: createToolStats(state.toolStats),
          callCounts: state.loopGuard.counts,
          callResults: state.loopGuard.results,
          calledTools: [...state.calledTools],
          forcedChoiceSatisfied: state.forcedChoiceSatisfied,
          pending: {
            turn,
            toolChoice,
            startedAt: stepStartedAt,
            ...(ranEarly.length === 0 ? {} : { early: ranEarly }),
          },
          pendingApprovals: needingApproval,
          messageRanges: { runStart: state.runStart, steps: [...state.stepMessages] },
          run: pausedRunSettings(options, {
            systemPrompt,
            maxSteps,
            maxIdenticalToolCalls: maxIdenticalCalls,
            tools: setup.registry.names(),
          }),
        };
        const paused: AgentState =
          stateKeys === undefined ? unsealed : { ...unsealed, seal: await sealState(unsealed, stateKeys) };
        return finish('approval-required', { pendingApprovals: needingApproval, paused });
      }
      const ended = await completeStep(turn, toolChoice, stepStartedAt, screening, early);
      if (ended !== undefined) return ended;
    }
    return finish('max-steps', { detail: `The run reached maxSteps (${maxSteps}) without a final answer.` });
  } catch (error) {
    if (AbortedError.isInstance(error) || options.signal?.aborted) {
      return finish('aborted', {
        error: AbortedError.isInstance(error)
          ? error
          : new AbortedError({ operation: 'agent run', cause: error }),
      });
    }
    return finish('error', {
      error: error instanceof Error ? error : new OrgError('error', { message: String(error) }),
    });
  }
}

/**
 * With `stopOnToolBlock`, the actions after the first one `beforeToolUse` blocked (in call order), each mapped to a
 * description of the blocked call; `undefined` when nothing is stopped.
 */
function stoppedAfterBlock(
  actions: readonly Action[],
  screening: HookScreening,
  enabled: boolean,
): Map<string, string> | undefined {
  if (!enabled) return undefined;
  const blocked = actions.findIndex((action) => screening.isBlocked(action));
  if (blocked === -1 || blocked === actions.length - 1) return undefined;
  const blocker = actions[blocked] as Action;
  const description = `'${blocker.id}' (${blocker.toolName})`;
  return new Map(actions.slice(blocked + 1).map((action) => [action.id, description]));
}

function isPlanStepEvent(value: unknown): value is RunEventOf<'plan-step-started' | 'plan-step-finished'> {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as { type?: unknown; stepId?: unknown; toolName?: unknown; timestamp?: unknown };
  return (
    (candidate.type === 'plan-step-started' || candidate.type === 'plan-step-finished') &&
    typeof candidate.stepId === 'string' &&
    typeof candidate.toolName === 'string' &&
    typeof candidate.timestamp === 'number'
  );
}

function toRegistry(tools: AgentOptions['tools']): ToolRegistry {
  try {
    return ToolRegistry.from(tools, 'tools');
  } catch (error) {
    if (!InvalidToolOptionError.isInstance(error)) throw error;
    throw new InvalidAgentOptionsError({
      option: 'tools',
      message: 'must be a ToolRegistry or an iterable of tools.',
    });
  }
}

/** The decision for an action id, read as an own property: an id such as `constructor` inherits nothing. */
function decisionFor(
  decisions: Readonly<Record<string, ApprovalDecision>>,
  id: string,
): ApprovalDecision | undefined {
  return Object.hasOwn(decisions, id) ? decisions[id] : undefined;
}

function approvedOf(decision: ApprovalDecision): boolean {
  return typeof decision === 'boolean' ? decision : decision.approved;
}

/** Usage summed over a turn's model calls. */
function usageOf(turn: PlannerTurn): Usage {
  return turn.inferences.reduce((sum, inference) => addUsage(sum, inference.usage), EMPTY_USAGE);
}

function restoreState(saved: AgentState, maxIdenticalCalls: number): RunState {
  // The shape was checked (assertResumeStateShape) before the options were read.
  return {
    step: saved.step,
    history: [...saved.history],
    steps: [...saved.steps],
    usage: saved.usage,
    toolStats: createToolStats(saved.toolStats),
    loopGuard: new LoopGuard(maxIdenticalCalls, {
      counts: saved.callCounts,
      ...(saved.callResults === undefined ? {} : { results: saved.callResults }),
    }),
    calledTools: [...saved.calledTools],
    forcedChoiceSatisfied: saved.forcedChoiceSatisfied,
    lastObservations: [],
    runStart: saved.messageRanges?.runStart ?? 0,
    stepMessages: [...(saved.messageRanges?.steps ?? [])],
  };
}
