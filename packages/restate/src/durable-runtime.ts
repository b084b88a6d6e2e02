import type { ToolObservation } from '@org/tools';
import { type RunOptions, serde, TerminalError, type WorkflowContext } from '@restatedev/restate-sdk';
import { CompletionSequencer } from './completion-sequencer.js';
import { JournalClock } from './journal-clock.js';
import { journaledObservation } from './journal-values.js';
import { strictJsonSerde } from './strict-json-serde.js';

const JSON_SERDE = strictJsonSerde<unknown>();

/**
 * What one invocation of a durable run journals through: the workflow context, awaited only through its
 * `CompletionSequencer`, and the journal's clock. Made once per invocation (a replay makes a new one).
 */
export class DurableRuntime {
  readonly ctx: WorkflowContext;
  readonly #sequencer = new CompletionSequencer();
  readonly clock: JournalClock;
  /**
   * Aborts when this attempt ends: the engine cut it (its connection lost, the server or its partition's leader gone,
   * the run cancelled) or it finished. A call still running then belongs to a dead attempt: the engine runs the step
   * again in a new attempt, so every model call and tool call of the run gets this signal, to stop at once rather
   * than run beside its re-run.
   */
  readonly attemptSignal: AbortSignal;

  private constructor(ctx: WorkflowContext) {
    this.ctx = ctx;
    this.clock = new JournalClock(0);
    this.attemptSignal = ctx.request().attemptCompletedSignal;
  }

  /** `signal` (a call's own: its abort, its deadline) joined with this attempt's. */
  callSignal(signal: AbortSignal | undefined): AbortSignal {
    return signal === undefined || signal === this.attemptSignal
      ? this.attemptSignal
      : AbortSignal.any([signal, this.attemptSignal]);
  }

  /** The runtime of this invocation, its clock set to the run's journaled start. */
  static async start(ctx: WorkflowContext): Promise<DurableRuntime> {
    const runtime = new DurableRuntime(ctx);
    runtime.clock.advanceTo(await runtime.journal('run started at', async () => Date.now()));
    return runtime;
  }

  /**
   * Runs `action` once, as a journaled step named `name`, and resolves with its journaled value: on replay, with the
   * value of the first execution, without running `action` again.
   */
  async journal<T>(name: string, action: () => Promise<T>, options?: RunOptions<T>): Promise<T> {
    return this.#sequencer.await(
      options === undefined ? this.ctx.run(name, action) : this.ctx.run(name, action, options),
    );
  }

  /**
   * Runs one tool call as a journaled step named `name`: its observation is journaled with the wall-clock time it
   * ended, and the journal's clock moves there (live and on replay alike). `execute` measures on the wall clock: it
   * runs once, and what it measures is journaled with it.
   */
  async journalToolCall(
    name: string,
    execute: () => Promise<ToolObservation>,
    maxRetryAttempts: number,
  ): Promise<ToolObservation> {
    const journaled = await this.journal(
      name,
      async () => ({ observation: journaledObservation(await execute()), at: Date.now() }),
      { maxRetryAttempts },
    );
    this.clock.advanceTo(journaled.at);
    return journaled.observation;
  }

  /** Calls a handler of another Restate service (a durable call: sent once, its answer journaled), raw bytes back. */
  call(service: string, method: string, parameter: unknown): Promise<Uint8Array> {
    return this.#sequencer.await(
      this.ctx.genericCall({
        service,
        method,
        parameter,
        inputSerde: JSON_SERDE,
        outputSerde: serde.binary,
      }),
    );
  }

  /** Waits for the workflow's durable promise `name` (resolved by another handler, once). */
  promise<T>(name: string): Promise<T> {
    return this.#sequencer.await(this.ctx.promise<T>(name).get());
  }

  /**
   * Rejects the workflow's durable promise `name`, so that nothing can resolve it any more; `false` when something
   * already had (resolved or rejected it first: the engine lets one completion win).
   */
  async closePromise(name: string, reason: string): Promise<boolean> {
    try {
      await this.ctx.promise(name).reject(reason);
      return true;
    } catch (error) {
      if (error instanceof TerminalError) return false;
      throw error;
    }
  }

  /** A fresh id a replay sees again (seeded on the invocation id). */
  newId(): string {
    return this.ctx.rand.uuidv4();
  }
}
