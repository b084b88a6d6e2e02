import { type Action, errorMessageOf, OrgError } from '@org/core';
import { createToolPlanTool } from '@org/plan-executor';
import { type AgentOptions, type AgentResult, type ResumeTokenStore, runAgent } from '@org/planner';
import { type Tool, ToolRegistry, type ToolRunView, toJsonValue } from '@org/tools';
import { CancelledError, TerminalError, type WorkflowContext } from '@restatedev/restate-sdk';
import { approvalPromiseName, PENDING_APPROVAL_KEY } from './approval.js';
import { durableCodeTool } from './durable-code-tool.js';
import { durableResult } from './durable-result.js';
import { durableRunEffects } from './durable-run-effects.js';
import { DurableRuntime } from './durable-runtime.js';
import { durableStepRunner } from './durable-step-runner.js';
import type {
  ApprovalInput,
  ApprovalRecord,
  DurableAgentResult,
  DurableAgentSettings,
  PendingApproval,
  RestateAgentInput,
  RestateAgentOptions,
} from './restate-agent-types.js';
import { loadToolSource } from './restate-tool-source.js';
import { checkRunInput, leadingSystemMessages } from './run-input.js';

/**
 * Resumes claim nothing outside the journal: a pause is resumed from the decision its durable promise received, which
 * the engine lets one approval set, once. A replay resumes it again, from the same journal, as it must.
 */
const JOURNALED_RESUME: ResumeTokenStore = Object.freeze({ claim: () => true });

/** An error thrown by `runAgent` or the agent's setup, as the engine needs it: final, not retried. */
function terminal(error: unknown, what: string): unknown {
  if (error instanceof TerminalError || !OrgError.isInstance(error)) return error;
  // A tool service that answers out of protocol is a bad gateway; other invalid values are the caller's.
  const status =
    error.code === 'invalid_remote_tool_response' ? 502 : /^invalid_/.test(error.code) ? 400 : 500;
  return new TerminalError(`${what}: ${errorMessageOf(error)}`, {
    errorCode: status,
    metadata: { code: error.code },
  });
}

async function orTerminal<T>(what: string, run: () => Promise<T> | T): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw terminal(error, what);
  }
}

/** The agent's settings for this run, from the options (a factory is called with the run). */
function settingsOf(
  options: RestateAgentOptions,
  runId: string,
  input: RestateAgentInput,
): DurableAgentSettings {
  if (typeof options.agent !== 'function') return options.agent;
  let settings: DurableAgentSettings;
  try {
    settings = options.agent({ runId, input });
  } catch (error) {
    throw new TerminalError(`The agent factory threw: ${errorMessageOf(error)}`, { errorCode: 500 });
  }
  if (typeof settings !== 'object' || settings === null || typeof settings.model !== 'object') {
    throw new TerminalError('The agent factory returned no settings with a model.', { errorCode: 500 });
  }
  return settings;
}

/**
 * The tools a run offers, built for this invocation: this process's tools, the tool services' (described by a
 * journaled call), and the plan tool and the code tool over all of them, their steps and calls journaled one by one.
 */
async function toolsOf(
  settings: DurableAgentSettings,
  runtime: DurableRuntime,
  runView: () => ToolRunView | undefined,
): Promise<{
  readonly tools: ToolRegistry;
  readonly inBody: Set<string>;
  readonly codeTools: Set<string>;
}> {
  const remote: Tool[] = [];
  for (const source of settings.toolSources ?? []) {
    remote.push(...(await loadToolSource(source, runtime, { timeoutMs: settings.toolTimeoutMs })));
  }
  const inBody = new Set(remote.map((tool) => tool.name));
  const local = settings.tools === undefined ? [] : ToolRegistry.from(settings.tools).list();
  const offered = ToolRegistry.from([...local, ...remote]);
  const remoteTools: ReadonlySet<string> = new Set(inBody);
  const callSettings = {
    runtime,
    registry: offered,
    remoteTools,
    hooks: settings.hooks,
    injected: settings.injected,
    timeoutMs: settings.toolTimeoutMs,
    outputBudgetBytes: settings.outputBudgetBytes,
    runView,
  };
  const extra: Tool[] = [];
  if (settings.plan !== undefined && settings.plan !== false) {
    const planOptions = settings.plan === true ? {} : settings.plan;
    extra.push(
      createToolPlanTool({
        ...planOptions,
        tools: offered,
        clock: runtime.clock.asPlanClock(),
        runner: durableStepRunner(callSettings),
      }),
    );
  }
  const codeTools = new Set<string>();
  if (settings.code !== undefined && settings.code !== false) {
    const codeTool = durableCodeTool({ ...callSettings, code: settings.code === true ? {} : settings.code });
    codeTools.add(codeTool.name);
    extra.push(codeTool);
  }
  for (const tool of extra) inBody.add(tool.name);
  return { tools: ToolRegistry.from([...offered.list(), ...extra]), inBody, codeTools };
}

/**
 * Records what waits (`status` shows it, `approve` checks against it) and waits for its decision. On every way out
 * the record goes: decided, or the wait ended by the engine (Restate's cancel API). A run that stops waiting also
 * rejects its approval's durable promise first, so that an approval arriving after it is refused (409) by the engine
 * itself, atomically, rather than accepted for a run that will never read it.
 */
async function awaitApproval(
  ctx: WorkflowContext,
  runtime: DurableRuntime,
  pending: PendingApproval,
): Promise<ApprovalInput> {
  const name = approvalPromiseName(pending.round);
  ctx.set(PENDING_APPROVAL_KEY, pending);
  try {
    const approval = await runtime.promise<ApprovalInput>(name);
    ctx.clear(PENDING_APPROVAL_KEY);
    return approval;
  } catch (error) {
    // A failure that is not the engine's final word (the attempt is ending: lost connection, a node going away) is
    // retried from the journal, where the run waits again; only a final one ends the wait.
    if (!(error instanceof TerminalError)) throw error;
    const reason = error instanceof CancelledError ? 'was cancelled' : `ended: ${error.message}`;
    await runtime.closePromise(name, `Run '${ctx.key}' ${reason} while it waited for this approval.`);
    ctx.clear(PENDING_APPROVAL_KEY);
    throw error;
  }
}

/**
 * The workflow's `run` handler: runs the agent with every effect journaled; when it pauses for approval, records
 * what waits (`status` shows it), waits on a durable promise (suspended, for as long as it takes, surviving restarts),
 * and resumes with the decision `approve` gave it, in the same workflow.
 */
export async function runDurableAgent(
  ctx: WorkflowContext,
  rawInput: unknown,
  options: RestateAgentOptions,
): Promise<DurableAgentResult> {
  const input = checkRunInput(rawInput);
  const runId = ctx.key;
  const settings = settingsOf(options, runId, input);
  const runtime = await DurableRuntime.start(ctx);
  let runView: ToolRunView | undefined;
  const { tools, inBody, codeTools } = await orTerminal('The agent could not be set up', () =>
    toolsOf(settings, runtime, () => runView),
  );
  const { plan: _plan, code: _code, toolSources: _toolSources, tools: _tools, ...agentOptions } = settings;
  const base: AgentOptions = {
    ...agentOptions,
    tools,
    runId,
    // Model calls, journaled tool calls and plan steps each join the attempt's signal themselves (`callModel`'s
    // signal, `runtime.callSignal`). It stays the run's signal for the loop itself, which has no call of its own:
    // it stops at once when the engine cuts the attempt, rather than going on to steps whose journal entries cannot
    // be written.
    signal: runtime.attemptSignal,
    resumeTokenStore: JOURNALED_RESUME,
    effects: durableRunEffects({
      runtime,
      inBodyTools: inBody,
      aloneTools: codeTools,
      modelRetry: options.modelRetry,
      onRunView: (view) => {
        runView = view;
      },
    }),
  };
  let result: AgentResult = await orTerminal('The run could not start', () =>
    runAgent({
      ...base,
      ...(input.task === undefined ? {} : { task: input.task }),
      ...(input.messages === undefined ? {} : { messages: input.messages }),
    }),
  );
  const approvals: ApprovalRecord[] = [];
  while (result.finishReason === 'approval-required' && result.state !== undefined) {
    const pending: PendingApproval = {
      round: approvals.length + 1,
      actions: toJsonValue(result.pendingApprovals ?? []) as unknown as Action[],
    };
    const approval = await awaitApproval(ctx, runtime, pending);
    approvals.push({ round: pending.round, actions: pending.actions, decisions: approval.decisions });
    const state = result.state;
    const system = leadingSystemMessages(input);
    result = await orTerminal('The run could not resume', () =>
      runAgent({
        ...base,
        ...(system.length === 0 ? {} : { messages: system }),
        resume: { state, decisions: approval.decisions },
      }),
    );
  }
  return durableResult(result, approvals);
}
