import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { RestatePromise, type TerminalError } from '@restatedev/restate-sdk';

interface Waiting {
  readonly promise: RestatePromise<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

interface Settled {
  readonly waiting: Waiting;
  readonly value: unknown;
  readonly failure: TerminalError | undefined;
}

/**
 * The one place a durable run awaits the engine. Every journaled effect of the run (model calls, tool calls, plan
 * steps, calls to tool services, the approval) is awaited here, for two reasons:
 *
 * - The SDK lets one awaiter make progress at a time: two Restate promises awaited side by side (a plain
 *   `Promise.all`) make it fail.
 * - Order. Plan steps start when their dependencies finish, so which step is journaled next depends on which one
 *   finished first. Here the pending effects are raced together (`RestatePromise.race`): the engine settles them one
 *   at a time, in the order of its journal, live and on replay alike, and the run reacts to each in that order.
 *
 * After each settlement the sequencer lets the run react (one macrotask: the reactions of the loop, the plan
 * executor and hooks that do no I/O are microtasks) before it races again, so the effects those reactions start
 * join the next race. A run that awaited real I/O in between (a hook calling a server) could start its next effect
 * later than a replay does: the determinism rules of the guide.
 */
export class CompletionSequencer {
  readonly #waiting = new Set<Waiting>();
  #draining = false;

  /** Resolves (or rejects, with its `TerminalError`) when the engine settles `promise`, in journal order. */
  await<T>(promise: RestatePromise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#waiting.add({ promise, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#draining) {
        this.#draining = true;
        void this.#drain();
      }
    });
  }

  async #drain(): Promise<void> {
    try {
      for (;;) {
        await nextMacrotask();
        if (this.#waiting.size === 0) return;
        const entries = [...this.#waiting];
        const settled = await RestatePromise.race(
          entries.map((waiting) =>
            waiting.promise.map((value, failure): Settled => ({ waiting, value, failure })),
          ),
        );
        this.#waiting.delete(settled.waiting);
        if (settled.failure === undefined) settled.waiting.resolve(settled.value);
        else settled.waiting.reject(settled.failure);
      }
    } catch (error) {
      // The SDK failed outside any one effect (the attempt is ending): every waiter learns it.
      for (const waiting of this.#waiting) waiting.reject(error);
      this.#waiting.clear();
    } finally {
      this.#draining = false;
    }
  }
}
