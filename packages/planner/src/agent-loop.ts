import {
  AbortedError,
  type Action,
  addUsage,
  assertToolCallPairing,
  assertToolChoiceOffered,
  EMPTY_USAGE,
  eventErrorOf,
  type Message,
  OrgError,
  type RunEvent,
  type RunEventOf,
  type ToolChoice,
  toToolChoice,
  type Usage,
} from '@org/core';
import {
  executeActions,
  InvalidToolOptionError,
  type ToolObservation,
  ToolRegistry,
  toolNeedsApproval,
} from '@org/tools';
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
import { InvalidAgentOptionsError, InvalidResumeStateError } from './errors.js';
import { createFunctionCallingPlanner } from './function-calling-planner.js';
import { HookScreening } from './hook-screening.js';
import { LoopGuard } from './loop-guard.js';
import type { Planner, PlannerTurn, PlanningContext } from './planner.js';
import { createReActPlanner } from './react-planner.js';
import { assertResumedTools, pausedRunSettings, resumedOptions, systemPromptOf } from './resume-options.js';
import { observationErrorOf } from './tool-calls-to-actions.js';
import { isForcedChoiceSatisfied, resolveToolChoice } from './tool-choice-policy.js';
import { recordToolOutcome, type ToolSelectionStats } from './tool-stats.js';

const DEFAULT_MAX_STEPS = 10;
const DEFAULT_MAX_IDENTICAL_CALLS = 3;
const DEFAULT_MAX_CONCURRENCY = 8;
let runCounter = 0;

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
}

/** Checks options and builds what the run needs; throws `InvalidAgentOptionsError` before any model call. */
function prepare(options: AgentOptions): {
  registry: ToolRegistry;
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
  const systemPrompt = systemPromptOf(options);
  const stopConditions =
    options.stopWhen === undefined
      ? []
      : typeof options.stopWhen === 'function'
        ? [options.stopWhen]
        : [...options.stopWhen];
  return {
    registry,
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
 * Runs the loop, emitting every event through `emit`. Resolves with the result; never rejects once the options
 * are valid (a provider error, an abort or an unreadable decision ends the run with `finishReason` and `error`).
 */
export async function executeRun(
  givenOptions: AgentOptions,
  listener: ((event: RunEvent) => void) | undefined,
): Promise<AgentResult> {
  // A resume continues the paused run as it was configured (checked against what the resume gives).
  const options = resumedOptions(givenOptions);
  const setup = prepare(options);
  assertResumedTools(options, setup.registry.names());
  const { registry, planner, systemPrompt, maxSteps, maxIdenticalCalls, stopConditions } = setup;
  const now = (): number => (options.clock ?? Date).now();
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
  const runId = resume?.state.runId ?? options.runId ?? `run_${++runCounter}`;
  const state: RunState = resume
    ? restoreState(resume.state, maxIdenticalCalls)
    : {
        step: 0,
        history: setup.initialHistory,
        steps: [],
        usage: EMPTY_USAGE,
        toolStats: {},
        loopGuard: new LoopGuard(maxIdenticalCalls),
        calledTools: [],
        forcedChoiceSatisfied: false,
        lastObservations: [],
      };
  const observations: ToolObservation[] = state.steps.flatMap((step) => [...step.observations]);
  // Checked before the run starts: a resume that cannot proceed throws, and leaves no run-started without its end.
  if (resume !== undefined) {
    const pendingIds = (resume.state.pendingApprovals ?? []).map((action) => action.id);
    const decisions: Readonly<Record<string, ApprovalDecision>> = resume.decisions ?? {};
    const missing = pendingIds.filter((id) => decisionFor(decisions, id) === undefined);
    const unknown = Object.keys(decisions).filter((id) => !pendingIds.includes(id));
    if (missing.length > 0 || unknown.length > 0) {
      throw new InvalidResumeStateError({
        message:
          (missing.length > 0 ? `No decision for pending action(s) ${missing.join(', ')}. ` : '') +
          (unknown.length > 0 ? `Decisions for unknown action(s) ${unknown.join(', ')}. ` : '') +
          `Pending: ${pendingIds.join(', ')}.`,
        missingDecisions: missing,
      });
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
    } = {},
  ): AgentResult => {
    emit({
      type: 'run-finished',
      timestamp: now(),
      runId,
      reason: finishReason,
      steps: state.steps.length,
      usage: state.usage,
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
      usage: state.usage,
      roundTrips: state.steps.reduce((sum, step) => sum + step.inferences.length, 0),
      toolStats: state.toolStats,
      messages: state.history,
      ...(extra.error === undefined ? {} : { error: extra.error }),
      ...(extra.pendingApprovals === undefined ? {} : { pendingApprovals: extra.pendingApprovals }),
      ...(extra.paused === undefined ? {} : { state: extra.paused }),
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
    approval: {
      readonly decisions: Readonly<Record<string, ApprovalDecision>>;
      /** The actions as the human saw them when asked (their arguments after the hooks). */
      readonly asked: readonly Action[];
    } = { decisions: {}, asked: [] },
  ): Promise<AgentResult | undefined> => {
    const results = new Map<string, ToolObservation>();
    const asked = new Map(approval.asked.map((action) => [action.id, action]));
    for (const rejected of turn.rejected) {
      results.set(rejected.toolCall.id, rejected.observation);
      observe(rejected.observation);
    }
    // Loop guard: a call that keeps returning the same result is refused, and the run ends.
    const loop = state.loopGuard.check(turn.actions);
    const runnable: Action[] = [];
    for (const action of turn.actions) {
      const decision = decisionFor(approval.decisions, action.id);
      const askedAbout = asked.get(action.id);
      const argsToRun = screening.argsToRun(action);
      if (loop !== undefined) {
        const skipped: ToolObservation = {
          actionId: action.id,
          toolName: action.toolName,
          status: 'skipped',
          error: observationErrorOf(loop),
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
    const hooks = screening.hooks();
    const executed =
      runnable.length === 0
        ? []
        : await executeActions(registry, runnable, {
            maxConcurrency: options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY,
            onEvent: emit,
            now,
            ...(options.signal === undefined ? {} : { signal: options.signal }),
            ...(hooks === undefined ? {} : { hooks }),
            ...(options.injected === undefined ? {} : { injected: options.injected }),
            ...(options.toolTimeoutMs === undefined ? {} : { timeoutMs: options.toolTimeoutMs }),
            ...(options.outputBudgetBytes === undefined
              ? {}
              : { outputBudgetBytes: options.outputBudgetBytes }),
          });
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
    state.history.push(...planner.recordTurn(turn, ordered));
    recordStep(turn, toolChoice, ordered, startedAt);

    if (loop !== undefined) return finish('loop-guard', { error: loop });
    if (options.signal?.aborted) {
      return finish('aborted', {
        error: new AbortedError({ operation: 'agent run', cause: options.signal.reason }),
      });
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

  const recordStep = (
    turn: PlannerTurn,
    toolChoice: ToolChoice,
    stepObservations: ToolObservation[],
    startedAt: number,
  ): void => {
    const usage = turn.inferences.reduce((sum, inference) => addUsage(sum, inference.usage), EMPTY_USAGE);
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
      const ended = await completeStep(
        turn,
        resume.state.pending.toolChoice,
        resume.state.pending.startedAt,
        screening,
        { decisions: resume.decisions, asked: resume.state.pendingApprovals },
      );
      if (ended !== undefined) return ended;
    }

    while (state.step < maxSteps) {
      if (options.signal?.aborted) {
        return finish('aborted', {
          error: new AbortedError({ operation: 'agent run', cause: options.signal.reason }),
        });
      }
      let toolChoice = resolveToolChoice(setup.toolChoice, {
        step: state.step,
        history: state.history,
        lastObservations: state.lastObservations,
        calledTools: state.calledTools,
      });
      // A static forced choice applies until the model honours it once; then the model decides, so the loop
      // cannot spin on the same forced call.
      if (typeof setup.toolChoice !== 'function' && state.forcedChoiceSatisfied)
        toolChoice = { type: 'auto' };
      const context: PlanningContext = {
        model: options.model,
        tools: registry,
        systemPrompt,
        history: state.history,
        toolChoice,
        step: state.step,
        signal: options.signal,
        maxOutputTokens: options.maxOutputTokens,
        temperature: options.temperature,
        providerOptions: options.providerOptions,
        emit,
        now,
      };
      const stepStartedAt = now();
      const turn = await planner.plan(context);
      if (turn.kind === 'failed') {
        recordStep(turn, toolChoice, [], stepStartedAt);
        return finish('error', turn.error === undefined ? {} : { error: turn.error });
      }
      if (turn.kind === 'final-answer') {
        state.history.push(...planner.recordTurn(turn, []));
        recordStep(turn, toolChoice, [], stepStartedAt);
        return finish('final-answer', { text: turn.text });
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
      const needingApproval: Action[] = [];
      for (const action of turn.actions) {
        const tool = registry.resolve(action.toolName);
        const args = screening.argsToRun(action);
        if (tool !== undefined && args !== undefined && (await toolNeedsApproval(tool, args))) {
          needingApproval.push(args === action.args ? action : { ...action, args });
        }
      }
      if (needingApproval.length > 0) {
        for (const action of needingApproval) emit({ type: 'approval-requested', timestamp: now(), action });
        const paused: AgentState = {
          version: 1,
          runId,
          step: state.step,
          history: [...state.history],
          steps: [...state.steps],
          usage: state.usage,
          toolStats: { ...state.toolStats },
          callCounts: state.loopGuard.counts,
          callResults: state.loopGuard.results,
          calledTools: [...state.calledTools],
          forcedChoiceSatisfied: state.forcedChoiceSatisfied,
          pending: { turn, toolChoice, startedAt: stepStartedAt },
          pendingApprovals: needingApproval,
          run: pausedRunSettings(options, {
            systemPrompt,
            maxSteps,
            maxIdenticalToolCalls: maxIdenticalCalls,
            tools: registry.names(),
          }),
        };
        return finish('approval-required', { pendingApprovals: needingApproval, paused });
      }
      const ended = await completeStep(turn, toolChoice, stepStartedAt, screening);
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

function restoreState(saved: AgentState, maxIdenticalCalls: number): RunState {
  if (saved?.version !== 1 || saved.pending === undefined) {
    throw new InvalidResumeStateError({
      message: 'The state to resume is not a paused run of this version (version 1).',
    });
  }
  return {
    step: saved.step,
    history: [...saved.history],
    steps: [...saved.steps],
    usage: saved.usage,
    toolStats: { ...saved.toolStats },
    loopGuard: new LoopGuard(maxIdenticalCalls, {
      counts: saved.callCounts,
      ...(saved.callResults === undefined ? {} : { results: saved.callResults }),
    }),
    calledTools: [...saved.calledTools],
    forcedChoiceSatisfied: saved.forcedChoiceSatisfied,
    lastObservations: [],
  };
}
