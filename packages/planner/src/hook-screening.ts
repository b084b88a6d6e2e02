import type { Action } from '@org/core';
import { type BeforeToolUseDecision, type Tool, type ToolRegistry, validateToolArguments } from '@org/tools';
import type { AgentHooks } from './agent-types.js';

/** What `beforeToolUse` decided for one call, screened before approval. */
type Screened = { readonly decision: BeforeToolUseDecision } | { readonly thrown: unknown };

/**
 * The `beforeToolUse` decisions of a step's calls, taken once before approval is decided, so approval judges the
 * arguments that will actually run (a hook that rewrites an amount from 50 to 500 cannot slip under a `> 100`
 * predicate). The execution replays each decision instead of asking the hook again: the hook sees every call
 * exactly once, and its events (`tool-call-intercepted`, a `blocked_by_hook` or `hook_failed` observation) come
 * from `executeAction` as on every other path.
 */
export class HookScreening {
  readonly #decisions: Map<string, Screened>;
  readonly #argsToRun: Map<string, Record<string, unknown> | undefined>;
  readonly #hooks: AgentHooks | undefined;

  private constructor(
    hooks: AgentHooks | undefined,
    decisions: Map<string, Screened>,
    argsToRun: Map<string, Record<string, unknown> | undefined>,
  ) {
    this.#hooks = hooks;
    this.#decisions = decisions;
    this.#argsToRun = argsToRun;
  }

  /** Asks `beforeToolUse` about each action, in order (as `executeActions` would, one call at a time). */
  static async screen(
    registry: ToolRegistry,
    actions: readonly Action[],
    hooks: AgentHooks | undefined,
    signal: AbortSignal | undefined,
  ): Promise<HookScreening> {
    const decisions = new Map<string, Screened>();
    const argsToRun = new Map<string, Record<string, unknown> | undefined>();
    const beforeToolUse = hooks?.beforeToolUse;
    for (const action of actions) {
      const tool = registry.resolve(action.toolName);
      if (beforeToolUse === undefined || tool === undefined) {
        argsToRun.set(action.id, action.args);
        continue;
      }
      let screened: Screened;
      try {
        screened = {
          decision: await beforeToolUse({ action, tool, signal: signal ?? new AbortController().signal }),
        };
      } catch (thrown) {
        screened = { thrown };
      }
      decisions.set(action.id, screened);
      argsToRun.set(action.id, argumentsToRun(screened, action, tool));
    }
    return new HookScreening(hooks, decisions, argsToRun);
  }

  /**
   * The arguments the call will run with, after the hook; `undefined` when the hook blocks it, fails, or rewrites it
   * into invalid arguments (it will not run, so there is nothing to approve).
   */
  argsToRun(action: Action): Record<string, unknown> | undefined {
    return this.#argsToRun.has(action.id) ? this.#argsToRun.get(action.id) : action.args;
  }

  /** Whether `beforeToolUse` blocked this call (`stopOnToolBlock` stops the step's later calls after it). */
  isBlocked(action: Action): boolean {
    const screened = this.#decisions.get(action.id);
    return screened !== undefined && 'decision' in screened && screened.decision?.decision === 'block';
  }

  /** The run's hooks, with `beforeToolUse` answering each screened call from its recorded decision, once. */
  hooks(): AgentHooks | undefined {
    const hooks = this.#hooks;
    const beforeToolUse = hooks?.beforeToolUse;
    if (hooks === undefined || beforeToolUse === undefined) return hooks;
    const decisions = this.#decisions;
    return {
      ...hooks,
      beforeToolUse: (context) => {
        const screened = decisions.get(context.action.id);
        // Calls not screened here (a plan's steps, run by the plan tool) ask the hook themselves.
        if (screened === undefined) return beforeToolUse(context);
        decisions.delete(context.action.id);
        if ('thrown' in screened) throw screened.thrown;
        return screened.decision;
      },
    };
  }
}

function argumentsToRun(screened: Screened, action: Action, tool: Tool): Record<string, unknown> | undefined {
  if ('thrown' in screened) return undefined;
  const decision = screened.decision;
  if (decision?.decision === 'block') return undefined;
  if (decision?.decision !== 'rewrite') return action.args;
  const validated = validateToolArguments(tool, decision.args, { toolCallId: action.id });
  return validated.ok ? validated.value : undefined;
}
