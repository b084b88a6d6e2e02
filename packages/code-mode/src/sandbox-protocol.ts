import type { CodeLimits } from './code-limits.js';
import type { CodeLimitName } from './errors.js';

/**
 * The messages between the host and a sandbox worker (structured-clone data only). Runs go by the worker's own port;
 * call results by a port of their own that the worker can read synchronously, with a shared counter the host bumps
 * and wakes (see {@link ResultChannel}): a program waiting for a call's result then blocks on that counter instead of
 * going back to its event loop, which saves a thread wake-up on every call.
 */

/** What the host gives a worker for call results: the receiving port and the counter of results posted on it. */
export interface ResultChannel {
  /** A `MessagePort` of `node:worker_threads` (typed loosely: the worker reads it through its own `require`). */
  readonly port: unknown;
  /** An `Int32Array` over a `SharedArrayBuffer`: its element 0 counts the results posted, for `Atomics.wait`. */
  readonly posted: Int32Array;
}

/** What a worker starts with (its `workerData`). */
export interface WorkerStartData {
  /** The first message on it is a {@link ModuleMessage}, then call results and cancellations. */
  readonly results: ResultChannel;
}

/** QuickJS's `WebAssembly.Module`, compiled once by the host while the worker's thread boots. */
export interface ModuleMessage {
  readonly type: 'module';
  readonly compiled: unknown;
}

/** Starts one program in the worker. */
export interface RunMessage {
  readonly type: 'run';
  readonly runId: number;
  /** JavaScript, types already stripped, lines as the model wrote them. */
  readonly program: string;
  /** Each function the program sees: its identifier and the tool it calls. */
  readonly functions: readonly { readonly identifier: string; readonly toolName: string }[];
  readonly limits: CodeLimits;
  /** Largest JSON text of one call's arguments: longer is refused in the sandbox, before it is copied out. */
  readonly maxArgumentsBytes: number;
  /** What `Date.now()` returns in the program. */
  readonly now: number;
  /** The seed of the program's `Math.random()`. */
  readonly randomSeed: number;
}

/** A tool call's outcome, handed back into the program. */
export interface CallResultMessage {
  readonly type: 'call-result';
  readonly runId: number;
  readonly callId: number;
  /** JSON text of the output, when the call succeeded. */
  readonly json?: string;
  /** Why it failed, when it did. */
  readonly error?: { readonly code: string; readonly status: string; readonly message: string };
}

/**
 * Ends a program that is no longer wanted (it was aborted: a superseded prefix run, say) without ending its worker.
 * Sent on the {@link ResultChannel}, which the worker reads while the program waits for calls: the worker ends the
 * program (a `cancelled` outcome), drops its module and makes the next sandbox. A program busy computing reads it
 * only when its slice ends: the host terminates the worker when no outcome comes in time.
 */
export interface CancelMessage {
  readonly type: 'cancel';
  readonly runId: number;
}

/** What the host posts on the {@link ResultChannel} after the module. */
export type ResultChannelMessage = CallResultMessage | CancelMessage;

/** The host's messages on the worker's own port (call results go by the {@link ResultChannel}). */
export type HostMessage = RunMessage;

/** The program called a tool. `args` is the JSON text of its argument. */
export interface CallMessage {
  readonly type: 'call';
  readonly runId: number;
  readonly callId: number;
  readonly toolName: string;
  readonly args: string;
}

/**
 * The calls the program made in one slice of its run (one `Promise.all` over a list, say), in the order it made
 * them: one message for all of them, instead of one per call.
 */
export interface CallsMessage {
  readonly type: 'calls';
  readonly calls: readonly CallMessage[];
}

/** One `console` line. */
export interface ConsoleEntry {
  readonly level: 'log' | 'info' | 'warn' | 'error' | 'debug';
  readonly text: string;
}

/** How a program ended, as the worker saw it. */
export type SandboxOutcome =
  | { readonly kind: 'returned'; readonly json: string | undefined }
  | { readonly kind: 'syntax'; readonly reason: string; readonly line?: number; readonly column?: number }
  | {
      readonly kind: 'threw';
      readonly errorName: string;
      readonly reason: string;
      readonly line?: number;
      readonly column?: number;
    }
  | { readonly kind: 'limit'; readonly limit: CodeLimitName; readonly detail?: string }
  | { readonly kind: 'never-settles' }
  | { readonly kind: 'invalid-return'; readonly reason: string }
  | { readonly kind: 'crashed'; readonly reason: string }
  /** The host cancelled it (see {@link CancelMessage}). */
  | { readonly kind: 'cancelled' };

/** The program ended. */
export interface DoneMessage {
  readonly type: 'done';
  readonly runId: number;
  readonly outcome: SandboxOutcome;
  readonly console: readonly ConsoleEntry[];
  /** Time the program computed, in the sandbox. */
  readonly cpuMs: number;
}

/**
 * The worker made a sandbox ahead, for its next program: its thread is up (the pool then gives a cancelled program's
 * worker the short grace, not a boot's).
 */
export interface ReadyMessage {
  readonly type: 'ready';
}

/** The worker's messages. */
export type WorkerMessage = CallMessage | CallsMessage | DoneMessage | ReadyMessage;
