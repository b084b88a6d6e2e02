import { randomInt } from 'node:crypto';
import { type CodeCallExecutor, type CodeModeToolOptions, createCodeModeTool } from '@org/code-mode';
import type { AgentHooks } from '@org/planner';
import {
  type ExecuteActionOptions,
  executeAction,
  type Tool,
  type ToolRegistry,
  type ToolRunView,
} from '@org/tools';
import type { DurableRuntime } from './durable-runtime.js';

/**
 * What a durable run may configure of code mode: the code tool's options that keep a replay deterministic. Not
 * `executeCall` (each call is a journaled step), `effects` (time and randomness are journaled) nor `callOptions` (the
 * run's hooks, injected values, `toolTimeoutMs` and output budget apply to every call).
 */
export type DurableCodeOptions = Pick<
  CodeModeToolOptions,
  'limits' | 'maxConcurrency' | 'onEvent' | 'approveCall' | 'onCodeResult' | 'description' | 'name'
>;

/** Options of {@link durableCodeTool}: the run's tools and the settings each call of a program runs with. */
export interface DurableCodeToolOptions {
  readonly runtime: DurableRuntime;
  /** Every tool a program may call: this process's and the tool services'. */
  readonly registry: ToolRegistry;
  /** The tool services' tools: their calls run in the workflow body, each a durable call. */
  readonly remoteTools: ReadonlySet<string>;
  readonly hooks: AgentHooks | undefined;
  readonly injected: Readonly<Record<string, unknown>> | undefined;
  /** Each call's deadline (`toolTimeoutMs`), kept inside its journaled step. */
  readonly timeoutMs: number | undefined;
  readonly outputBudgetBytes: number | undefined;
  /** The run view of the step whose program is running, passed on to each call's tool. */
  readonly runView: () => ToolRunView | undefined;
  readonly code: DurableCodeOptions;
}

/** Attempts of a journaled call whose execution threw (a bug: tool failures are observations, not throws). */
const CALL_ATTEMPTS = 3;

/**
 * The code tool (`run_code`) of a durable run. Its program runs in the workflow body (again on replay, in a fresh
 * sandbox); each call it makes is a journaled step keyed by the action id `<code call id>/<n>` (the program's n-th
 * call), so a replay hands the program the first execution's results without running a finished call again, and
 * the program takes the same path. `Date.now()` and `Math.random`'s seed are journaled once per program.
 *
 * Calls are awaited through the run's `CompletionSequencer` (the SDK lets one awaiter progress at a time), so
 * `Promise.all` in a program works, and results reach the program in journal order, live and on replay.
 */
export function durableCodeTool(options: DurableCodeToolOptions): Tool {
  const { runtime, registry, remoteTools } = options;
  const callOptions = (now: () => number): ExecuteActionOptions => {
    const run = options.runView();
    return {
      // The program's runner validated and coerced the arguments and decided approval (refused, or `approveCall`)
      // on exactly them: they run as they are (validating again would apply a schema's transforms twice). A remote
      // tool's service validates what it receives.
      validate: false,
      requireApproval: false,
      now,
      ...(run === undefined ? {} : { run }),
      ...(options.hooks === undefined ? {} : { hooks: options.hooks }),
      ...(options.injected === undefined ? {} : { injected: options.injected }),
      ...(options.outputBudgetBytes === undefined ? {} : { outputBudgetBytes: options.outputBudgetBytes }),
    };
  };

  // `onEvent` comes from the program's runner, which isolates the application's listener: a throw in it cannot fail
  // a journaled call or the workflow body.
  const executeCall: CodeCallExecutor = async (action, { signal, onEvent }) => {
    // The program's signal (its end, its abort) joined with the attempt's: a call of a cut attempt stops, not runs
    // beside its re-run.
    const callSignal = runtime.callSignal(signal);
    if (remoteTools.has(action.toolName)) {
      return executeAction(registry, action, {
        ...callOptions(runtime.clock.now),
        signal: callSignal,
        ...(onEvent === undefined ? {} : { onEvent }),
      });
    }
    // The paired events are told outside the journaled step, from the journaled observation, so a listener sees
    // every call of a replayed program too (as a plan's step events are).
    onEvent?.({ type: 'tool-call-started', timestamp: runtime.clock.now(), action });
    const settings = { ...callOptions(Date.now), signal: callSignal };
    const observation = await runtime.journalToolCall(
      `code call ${action.id} (${action.toolName})`,
      () =>
        executeAction(registry, action, {
          ...settings,
          ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        }),
      CALL_ATTEMPTS,
    );
    onEvent?.({ type: 'tool-call-finished', timestamp: runtime.clock.now(), observation });
    return observation;
  };

  return createCodeModeTool({
    ...options.code,
    tools: registry,
    executeCall,
    effects: {
      // Each journaled on its own: runCode asks for them one after the other at each program's start, and two
      // programs of one step never run side by side in a durable run (see `durableRunEffects`).
      now: () => runtime.journal('code program now', async () => Date.now()),
      randomSeed: () => runtime.journal('code program random seed', async () => randomInt(0, 2 ** 32)),
    },
  });
}
