import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { MessageChannel, Worker } from 'node:worker_threads';
import { limitValueProblem } from '@org/core';
import { CodeModeOptionsError } from './errors.js';
import type {
  CallMessage,
  CallResultMessage,
  CancelMessage,
  DoneMessage,
  ModuleMessage,
  RunMessage,
  WorkerMessage,
  WorkerStartData,
} from './sandbox-protocol.js';
import { sandboxWorkerMain } from './sandbox-worker.js';
import { warmTypeStripper } from './strip-types.js';

/** What a run hears from its sandbox. */
export interface SandboxListener {
  onCall(message: CallMessage): void;
  onDone(message: DoneMessage): void;
  /** The worker exited or failed before the program ended. */
  onCrash(reason: string): void;
}

/** One program running in a worker of the pool. */
export interface SandboxSession {
  /** Hands a call's outcome back to the program (ignored once the program ended). */
  post(message: CallResultMessage): void;
  /**
   * Ends the worker at once: the one way to stop a program stuck inside one built-in (`Array(2**32-1).indexOf(1)`),
   * where QuickJS's interrupt handler never runs. The pool starts a fresh worker for the next program.
   */
  terminate(): Promise<void>;
  /**
   * Ends the program but keeps its worker: the worker is asked to drop the program (and its module) and make the next
   * sandbox, and goes back to the pool once it says the program ended. A program waiting for calls answers at once;
   * one that does not answer within `graceMs` (computing, or stuck inside one built-in) has its worker terminated
   * (a worker still booting has its boot's time: it never starts the program). Until then the worker stays busy,
   * and a program that finds no idle worker waits for it rather than starting a new one. Resolves once the worker
   * is back in the pool or ended.
   */
  cancel(graceMs: number): Promise<void>;
  /** Returns a worker whose program ended to the pool. */
  release(): void;
}

/** Where QuickJS is, resolved once. */
interface QuickJSFiles {
  readonly paths: { readonly core: string; readonly variant: string };
  readonly wasm: string;
}

let files: QuickJSFiles | undefined;
let source: string | undefined;
let compiled: object | undefined;

function quickJSFiles(): QuickJSFiles {
  if (files !== undefined) return files;
  const require = createRequire(import.meta.url);
  const variant = require.resolve('@jitl/quickjs-wasmfile-release-sync');
  files = {
    paths: { core: require.resolve('quickjs-emscripten-core'), variant },
    wasm: join(dirname(variant), 'emscripten-module.wasm'),
  };
  return files;
}

/** The worker's source text: {@link sandboxWorkerMain} called with `require`, the resolved paths and its start data. */
function workerSource(): string {
  // `__name` is a helper some transpilers insert when they keep function names; the worker defines it as a no-op.
  source ??=
    'var __name = (target) => target;\n' +
    `(${sandboxWorkerMain.toString()})(require, ${JSON.stringify(quickJSFiles().paths)}, require('node:worker_threads').workerData);`;
  return source;
}

/**
 * QuickJS's WebAssembly, compiled once in this process and posted to each worker (V8 shares compiled code between
 * threads): compiled while the first worker's thread boots, and a worker started later (after one was terminated)
 * runs code V8 has already compiled and optimized.
 */
function compiledQuickJS(): object {
  if (compiled !== undefined) return compiled;
  // The WebAssembly global of Node (this package's TypeScript libraries do not declare it).
  const wasm = (globalThis as unknown as { WebAssembly: { Module: new (bytes: Uint8Array) => object } })
    .WebAssembly;
  compiled = new wasm.Module(readFileSync(quickJSFiles().wasm));
  return compiled;
}

/** How long a cancelled program's worker that is still booting has to answer before it is terminated. */
const BOOT_GRACE_MS = 2000;

/** Idle workers kept warm (each holds one prepared QuickJS module). */
const MAX_IDLE_WORKERS = 2;

/** A worker and who listens to it now. */
interface PooledWorker {
  readonly worker: Worker;
  /** Posts a call's result (or a cancellation) on the result channel and wakes the worker if it waits for one. */
  readonly postResult: (message: CallResultMessage | CancelMessage) => void;
  listener: SandboxListener | undefined;
  exited: boolean;
  /** It has sent a message: its thread is up (a cancelled program's worker then answers within its grace). */
  booted: boolean;
}

const idle: PooledWorker[] = [];
const busy = new Set<PooledWorker>();
/** Workers whose program was cancelled and that have not answered yet: idle again in a moment, most often. */
let cancelling = 0;
/** Their cancellations, each settled once its worker is back in the pool or ended. */
const cancellations = new Set<Promise<void>>();
/** Of those, the ones that had booted: each answers within a millisecond or two, far sooner than a new worker starts. */
let cancellingBooted = 0;
/** Programs waiting for such a worker to come back instead of starting a new one; each starts itself when let go. */
const awaitingReturn: (() => void)[] = [];
/** Programs waiting for a worker, first come first served; each starts itself when let go. */
const waiting: (() => void)[] = [];

/** The default cap on programs running at once in this process: two per core (most programs wait on tools). */
export const DEFAULT_MAX_SANDBOX_WORKERS: number = Math.max(2, availableParallelism() * 2);
let maxWorkers = DEFAULT_MAX_SANDBOX_WORKERS;

/** Options of {@link configureCodeSandboxes}. */
export interface CodeSandboxOptions {
  /**
   * Programs running at once in this process, each on its own worker thread (with its own WebAssembly memory, up to
   * `limits.memoryBytes`). More wait their turn, within their wall time and signal. Default: two per core
   * (`DEFAULT_MAX_SANDBOX_WORKERS`).
   */
  readonly maxWorkers?: number;
}

/**
 * Sets the sandbox pool's process-wide options. A program that finds every worker busy waits for one; the wait counts
 * against its `wallTimeMs`, and its signal ends it. Throws `CodeModeOptionsError` for a bad value.
 *
 * @example
 * configureCodeSandboxes({ maxWorkers: 4 }); // at startup, on a small container
 */
export function configureCodeSandboxes(options: CodeSandboxOptions): void {
  const value = options.maxWorkers ?? DEFAULT_MAX_SANDBOX_WORKERS;
  const problem = limitValueProblem(value, { minimum: 1 });
  if (problem !== undefined) throw new CodeModeOptionsError({ option: 'maxWorkers', value, problem });
  maxWorkers = value;
  admitWaiting();
}

/** Lets waiting programs start while there is room under the cap. */
function admitWaiting(): void {
  while (waiting.length > 0 && busy.size < maxWorkers) waiting.shift()?.();
}

/** Workers started in this process, for tests that check a path starts none. */
let workersStarted = 0;

function spawn(): PooledWorker {
  workersStarted += 1;
  const channel = new MessageChannel();
  const posted = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  const workerData: WorkerStartData = { results: { port: channel.port2, posted } };
  const worker = new Worker(workerSource(), {
    eval: true,
    stdout: false,
    stderr: false,
    workerData,
    transferList: [channel.port2],
  });
  // The thread boots meanwhile (tens of milliseconds); the module is first in the result channel when it looks.
  try {
    const module: ModuleMessage = { type: 'module', compiled: compiledQuickJS() };
    channel.port1.postMessage(module);
  } catch (error) {
    // The worker would wait for its module for ever.
    void worker.terminate();
    channel.port1.close();
    throw error;
  }
  Atomics.add(posted, 0, 1);
  Atomics.notify(posted, 0);
  const postResult = (message: CallResultMessage | CancelMessage): void => {
    // The message is in the port's queue when postMessage returns: the worker reads it as soon as it wakes.
    channel.port1.postMessage(message);
    Atomics.add(posted, 0, 1);
    Atomics.notify(posted, 0);
  };
  const pooled: PooledWorker = {
    worker,
    postResult,
    listener: undefined,
    exited: false,
    booted: false,
  };
  worker.on('message', (message: WorkerMessage) => {
    // Any message says the thread is up: 'ready' when its first sandbox is made, or a program's call or outcome.
    pooled.booted = true;
    if (message.type === 'ready') return;
    const listener = pooled.listener;
    if (listener === undefined) return;
    if (message.type === 'call') listener.onCall(message);
    else if (message.type === 'calls') for (const call of message.calls) listener.onCall(call);
    else listener.onDone(message);
  });
  // The host never listens on its end; closed once the worker is gone, whichever way it went.
  worker.once('exit', () => channel.port1.close());
  const lost = (reason: string): void => {
    if (pooled.exited) return;
    pooled.exited = true;
    const index = idle.indexOf(pooled);
    if (index >= 0) idle.splice(index, 1);
    busy.delete(pooled);
    const listener = pooled.listener;
    pooled.listener = undefined;
    listener?.onCrash(reason);
    admitWaiting();
  };
  worker.on('error', (error) => lost(`the worker failed: ${error.message}`));
  worker.on('exit', (code) => lost(`the worker exited with code ${code}`));
  return pooled;
}

/** The idle worker released last (its JIT and caches warmest), skipping ended ones. */
function takeIdleWorker(): PooledWorker | undefined {
  let pooled = idle.pop();
  while (pooled?.exited === true) pooled = idle.pop();
  return pooled;
}

/**
 * Starts a program in a warm worker (or a new one), or queues it while `maxWorkers` programs run: the session works
 * at once either way (ending a queued program takes it off the queue). The worker is referenced while the program
 * runs, so the process waits for it, and unreferenced while idle, so a warm worker never keeps a process alive.
 */
export function startSandbox(run: RunMessage, listener: SandboxListener): SandboxSession {
  let current: PooledWorker | undefined;
  let released = false;
  const begin = (): void => {
    const pooled = takeIdleWorker() ?? spawn();
    current = pooled;
    pooled.listener = listener;
    busy.add(pooled);
    pooled.worker.ref();
    pooled.worker.postMessage(run);
  };
  if (waiting.length > 0 || busy.size >= maxWorkers) waiting.push(begin);
  // No idle worker, but a cancelled one is about to be (a superseded prefix run's): it takes that one.
  else if (!idle.some((pooled) => !pooled.exited) && cancellingBooted > awaitingReturn.length)
    awaitingReturn.push(begin);
  else begin();
  /** Ends the session; true when it had a worker (a queued one only leaves the queue). */
  const leave = (): PooledWorker | undefined => {
    released = true;
    if (current === undefined) {
      for (const queue of [waiting, awaitingReturn]) {
        const index = queue.indexOf(begin);
        if (index >= 0) queue.splice(index, 1);
      }
      return undefined;
    }
    current.listener = undefined;
    busy.delete(current);
    return current;
  };
  return {
    post: (message) => {
      if (!released && current !== undefined && !current.exited) current.postResult(message);
    },
    terminate: async () => {
      if (released) return;
      const pooled = leave();
      if (pooled === undefined) return;
      pooled.exited = true;
      const terminated = pooled.worker.terminate();
      admitWaiting();
      await terminated;
    },
    cancel: (graceMs) => {
      const pooled = current;
      if (released || pooled === undefined || pooled.exited) {
        // Queued (it only leaves the queue), or already ended.
        if (!released) leave();
        admitWaiting();
        return Promise.resolve();
      }
      released = true;
      const booted = pooled.booted;
      cancelling += 1;
      if (booted) cancellingBooted += 1;
      const cancelled = new Promise<void>((resolve) => {
        const settle = (kept: boolean): void => {
          clearTimeout(timer);
          cancelling -= 1;
          if (booted) cancellingBooted -= 1;
          busy.delete(pooled);
          pooled.listener = undefined;
          if (kept && !pooled.exited) keepOrEnd(pooled);
          else if (!pooled.exited) {
            pooled.exited = true;
            void pooled.worker.terminate();
          }
          // The program waiting for this worker takes it (or, when it was ended, starts a new one).
          awaitingReturn.shift()?.();
          admitWaiting();
          resolve();
        };
        // Until the worker answers it stays busy: no other program is sent to it before this one's outcome.
        pooled.listener = {
          onCall: () => {},
          onDone: (message) => {
            if (message.runId === run.runId) settle(true);
          },
          onCrash: () => settle(false),
        };
        // A worker still booting never starts the program (it reads the cancellation first): it has its boot's time.
        const timer = setTimeout(() => settle(false), booted ? graceMs : BOOT_GRACE_MS);
        pooled.postResult({ type: 'cancel', runId: run.runId });
      });
      cancellations.add(cancelled);
      void cancelled.then(() => cancellations.delete(cancelled));
      return cancelled;
    },
    release: () => {
      if (released) return;
      const pooled = leave();
      if (pooled === undefined || pooled.exited) {
        admitWaiting();
        return;
      }
      keepOrEnd(pooled);
      admitWaiting();
    },
  };
}

/** A worker whose program ended: kept warm when the pool has room or a program is waiting for it, else ended. */
function keepOrEnd(pooled: PooledWorker): void {
  if (idle.length < MAX_IDLE_WORKERS || waiting.length > 0) {
    pooled.worker.unref();
    idle.push(pooled);
  } else {
    pooled.exited = true;
    void pooled.worker.terminate();
  }
}

/**
 * Starts a worker ahead of the first program, so that one does not wait for the thread to start, QuickJS to load and
 * its first sandbox to be made (about 100 ms in all on a small machine, half of it the thread's own start). Does nothing when an idle worker is
 * already there. The code tool calls it as soon as a code call starts streaming, so the worker starts while the model
 * is still writing the program; call it at startup to have one ready for the very first program. The worker is
 * unreferenced until a program runs on it: it never keeps a process alive, and `closeCodeSandboxes()` ends it.
 *
 * @example
 * prewarmCodeSandbox(); // at startup
 */
export function prewarmCodeSandbox(): void {
  warmTypeStripper();
  startIdleWorker();
}

/** Starts an idle worker unless one is there, or one whose program was cancelled is about to be. */
function startIdleWorker(): void {
  if (cancelling > 0 || idle.some((pooled) => !pooled.exited)) return;
  const pooled = spawn();
  pooled.worker.unref();
  idle.push(pooled);
}

/**
 * Starts a worker for a program that will soon ask for one, when it would start at once (under `maxWorkers`, nobody
 * waiting) and no worker is idle: its thread boots while the host prepares the program (types stripped, or the
 * model still writing it).
 */
export function warmSandboxForProgram(): void {
  if (sandboxHasRoom()) startIdleWorker();
}

/**
 * Whether a program started now would get a worker at once (under `maxWorkers`, nobody waiting). Speculative prefix
 * runs start only then: they must never make a program that will really run wait for a worker.
 */
export function sandboxHasRoom(): boolean {
  return waiting.length === 0 && busy.size < maxWorkers;
}

/** Workers the pool has started in this process: for tests that check a path reuses workers. */
export function sandboxWorkersStarted(): number {
  return workersStarted;
}

/** Workers running a program (or answering its cancellation) now: for tests that wait for the pool to settle. */
export function busySandboxWorkerCount(): number {
  return busy.size;
}

/** Workers of the pool alive now, idle and running: for tests that check nothing is left behind. */
export function sandboxWorkerCount(): number {
  return idle.length + busy.size;
}

/**
 * Terminates every idle worker of the sandbox pool (and waits for them): for tests and for a clean shutdown. A worker
 * whose program was just aborted is waited for first (it is back in the pool within its grace), so none is left
 * behind; programs still running keep their workers until they end.
 *
 * @example
 * afterAll(() => closeCodeSandboxes());
 */
export async function closeCodeSandboxes(): Promise<void> {
  await Promise.all(cancellations);
  const workers = idle.splice(0);
  for (const pooled of workers) pooled.exited = true;
  await Promise.all(workers.map((pooled) => pooled.worker.terminate()));
}
