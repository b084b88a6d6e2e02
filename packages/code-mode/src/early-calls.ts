import type { Action } from '@org/core';
import type { ToolObservation } from '@org/tools';
import type { UnusedEarlyCall } from './code-result.js';
import type { EarlyCallSource } from './run-code.js';

/** Starts one early call; its signal aborts when the call is discarded. */
export type EarlyCallStarter = (action: Action, signal: AbortSignal) => Promise<ToolObservation>;

interface Started {
  readonly action: Action;
  readonly controller: AbortController;
  readonly observation: Promise<ToolObservation>;
}

/**
 * The eager calls started while a program streamed, each keyed by its tool and its arguments (their JSON with keys
 * sorted, so `{a, b}` and `{b, a}` are the same call), in the order they started: the literal calls of the stream
 * and the calls of its prefix runs. The program takes one when it makes an equal call (the same call made twice
 * takes two); the others are aborted and reported once it ends. At most `maxConcurrency` run at once and
 * `maxCalls` start in all: a stream full of calls cannot start more than a program could make.
 */
export class EarlyCalls implements EarlyCallSource {
  private readonly started = new Map<string, Started[]>();
  private count = 0;
  private running = 0;
  private closed = false;

  constructor(
    private readonly start: EarlyCallStarter,
    private readonly idPrefix: string,
    private readonly maxConcurrency: number,
    private readonly maxCalls: number,
  ) {}

  /** Starts the call unless an equal one started already, or the limits say no. */
  offer(toolName: string, args: Record<string, unknown>): void {
    const key = keyOf(toolName, args);
    if (!this.started.has(key)) this.launch(key, toolName, args);
  }

  /**
   * The observation of an equal call not yet in `claimed` (which it joins), or of one started now: a prefix run's
   * call (see `PrefixRuns`), where the same call made twice is two calls. Undefined when the limits say no: the
   * prefix run then waits until it is superseded.
   */
  claim(
    toolName: string,
    args: Record<string, unknown>,
    claimed: Set<object>,
  ): Promise<ToolObservation> | undefined {
    const key = keyOf(toolName, args);
    const call =
      this.started.get(key)?.find((candidate) => !claimed.has(candidate)) ?? this.launch(key, toolName, args);
    if (call === undefined) return undefined;
    claimed.add(call);
    return call.observation;
  }

  take(toolName: string, args: Record<string, unknown>): Promise<ToolObservation> | undefined {
    const key = keyOf(toolName, args);
    const calls = this.started.get(key);
    const found = calls?.shift();
    if (found === undefined) return undefined;
    if (calls?.length === 0) this.started.delete(key);
    return found.observation;
  }

  private launch(key: string, toolName: string, args: Record<string, unknown>): Started | undefined {
    if (this.closed || this.running >= this.maxConcurrency || this.count >= this.maxCalls) return undefined;
    this.count += 1;
    this.running += 1;
    const action: Action = { id: `${this.idPrefix}${this.count}`, toolName, args };
    const controller = new AbortController();
    const observation = this.start(action, controller.signal).finally(() => {
      this.running -= 1;
    });
    const call: Started = { action, controller, observation };
    const calls = this.started.get(key);
    if (calls === undefined) this.started.set(key, [call]);
    else calls.push(call);
    return call;
  }

  async drain(): Promise<UnusedEarlyCall[]> {
    this.closed = true;
    const unused = [...this.started.values()].flat();
    this.started.clear();
    for (const call of unused) call.controller.abort(new Error('the program did not make this call'));
    return Promise.all(
      unused.map(async (call) => ({ action: call.action, observation: await call.observation })),
    );
  }
}

/** A canonical text of a call: its tool and its arguments with every object's keys sorted. */
function keyOf(toolName: string, args: unknown): string {
  return `${toolName}\u0000${JSON.stringify(sortKeys(args))}`;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort())
    Object.defineProperty(sorted, key, {
      value: sortKeys((value as Record<string, unknown>)[key]),
      enumerable: true,
    });
  return sorted;
}
