import type { Action } from '@org/core';
import type { ToolObservation, ToolRegistry } from '@org/tools';
import type { CodeLimits } from './code-limits.js';
import type { EarlyCalls } from './early-calls.js';
import { runSpeculativePrefix } from './run-code.js';
import { sandboxHasRoom } from './sandbox-pool.js';

/** Options of {@link PrefixRuns}. */
export interface PrefixRunsOptions {
  /** The program's tools; only those that are eager and never need approval ever start. */
  readonly tools: ToolRegistry;
  /** The program's own limits: a prefix run gets the same, in its own sandbox. */
  readonly limits: CodeLimits;
  readonly maxConcurrency: number;
  /**
   * Prefix runs one program may start; the statements closing after that start none. A statement that closes while
   * every sandbox worker is busy starts none either (and does not count).
   */
  readonly maxRuns: number;
  /** The pool the prefix runs' calls start in and the final program takes them from. */
  readonly earlyCalls: EarlyCalls;
  /** The code call's signal: aborting it ends every prefix run. */
  readonly signal: AbortSignal | undefined;
}

/**
 * Speculative prefix runs of a program being written: each time a top-level statement closes, the complete
 * statements so far run in a fresh sandbox, superseding (aborting) the run before. A prefix run executes nothing
 * for real. Its call of an eager, approval-free tool is claimed from the early calls (an equal call it has not
 * claimed yet; the same call made twice is two calls) or started there as a new early call; its call of any other
 * tool never runs (it waits there until the run is superseded). Its value, console and errors are dropped. The
 * final program, read strictly from the complete answer, runs as without prefix runs and takes the early results of
 * the equal calls it makes; so a dependent call (`hop({ key: first.next })`) starts while the model still writes,
 * as soon as what it reads has ended, and nothing the final program does not make ever takes effect beyond an
 * eager tool's (harmless, reported) early call.
 *
 * @example
 * const runs = new PrefixRuns({ tools, limits, maxConcurrency, maxRuns: 32, earlyCalls, signal });
 * runs.run("const a = await hop({ key: 'x' });"); // hop x is claimed or started
 * runs.run("const a = await hop({ key: 'x' }); const b = await hop({ key: a.next });"); // supersedes; hop a.next starts
 * await runs.stop(); // the answer is final: every prefix run has ended
 */
export class PrefixRuns {
  private started = 0;
  private stopped = false;
  private current: AbortController | undefined;
  private readonly ending = new Set<Promise<void>>();

  constructor(private readonly options: PrefixRunsOptions) {}

  /** Runs `prefix` (complete top-level statements), superseding the run before; nothing once stopped or capped. */
  run(prefix: string): void {
    const { signal, maxRuns } = this.options;
    if (this.stopped || this.started >= maxRuns || signal?.aborted === true) return;
    this.current?.abort(new Error('a longer prefix superseded this one'));
    this.current = undefined;
    // Programs that will really run come first: with every worker busy, this statement starts no speculation.
    if (!sandboxHasRoom()) return;
    this.started += 1;
    const controller = new AbortController();
    this.current = controller;
    const claimed = new Set<object>();
    const runSignal = signal === undefined ? controller.signal : AbortSignal.any([controller.signal, signal]);
    const ended = runSpeculativePrefix(
      prefix,
      {
        tools: this.options.tools,
        limits: this.options.limits,
        maxConcurrency: this.options.maxConcurrency,
        signal: runSignal,
      },
      (action, callSignal) => this.call(action, callSignal, claimed),
    ).then(
      // Its value, console and errors are a guess's: dropped.
      () => {},
      // runCode throws only for bad options, which the code tool checked when it was made.
      () => {},
    );
    this.ending.add(ended);
    void ended.finally(() => this.ending.delete(ended));
  }

  /** The answer is final (or will not run): no more prefix runs; resolves once every one has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.current?.abort(new Error('the answer is complete'));
    await Promise.all(this.ending);
  }

  /** A prefix run's call: an early call claimed or started, or a wait until the run ends. Never runs anything else. */
  private call(action: Action, signal: AbortSignal, claimed: Set<object>): Promise<ToolObservation> {
    const superseded = (): ToolObservation => ({
      actionId: action.id,
      toolName: action.toolName,
      status: 'aborted',
      error: { code: 'aborted', message: 'A speculative prefix run ended before this call.' },
      durationMs: 0,
    });
    if (signal.aborted) return Promise.resolve(superseded());
    const tool = this.options.tools.get(action.toolName);
    const early =
      tool?.eager === true && tool.needsApproval === false
        ? this.options.earlyCalls.claim(action.toolName, action.args, claimed)
        : undefined;
    return new Promise((resolve) => {
      const onAbort = (): void => resolve(superseded());
      signal.addEventListener('abort', onAbort, { once: true });
      early?.then((observation) => {
        signal.removeEventListener('abort', onAbort);
        resolve(observation);
      });
    });
  }
}
