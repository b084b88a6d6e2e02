import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { CallMessage, DoneMessage, HostMessage, RunMessage, WorkerMessage } from './sandbox-protocol.js';
import { sandboxWorkerMain } from './sandbox-worker.js';

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
  post(message: HostMessage): void;
  /**
   * Ends the worker at once: the one way to stop a program stuck inside one built-in (`Array(2**32-1).indexOf(1)`),
   * where QuickJS's interrupt handler never runs. The pool starts a fresh worker for the next program.
   */
  terminate(): Promise<void>;
  /** Returns a worker whose program ended to the pool. */
  release(): void;
}

let source: string | undefined;

/** The worker's source text: {@link sandboxWorkerMain} called with `require` and the resolved QuickJS paths. */
function workerSource(): string {
  if (source !== undefined) return source;
  const require = createRequire(import.meta.url);
  const variant = require.resolve('@jitl/quickjs-wasmfile-release-sync');
  const paths = {
    core: require.resolve('quickjs-emscripten-core'),
    variant,
    wasm: join(dirname(variant), 'emscripten-module.wasm'),
  };
  // `__name` is a helper some transpilers insert when they keep function names; the worker defines it as a no-op.
  source =
    'var __name = (target) => target;\n' +
    `(${sandboxWorkerMain.toString()})(require, ${JSON.stringify(paths)});`;
  return source;
}

/** Idle workers kept warm (each holds one prepared QuickJS module). */
const MAX_IDLE_WORKERS = 2;

/** A worker and who listens to it now. */
interface PooledWorker {
  readonly worker: Worker;
  listener: SandboxListener | undefined;
  exited: boolean;
}

const idle: PooledWorker[] = [];
const busy = new Set<PooledWorker>();

function spawn(): PooledWorker {
  const worker = new Worker(workerSource(), { eval: true, stdout: false, stderr: false });
  const pooled: PooledWorker = { worker, listener: undefined, exited: false };
  worker.on('message', (message: WorkerMessage) => {
    const listener = pooled.listener;
    if (listener === undefined) return;
    if (message.type === 'call') listener.onCall(message);
    else listener.onDone(message);
  });
  const lost = (reason: string): void => {
    if (pooled.exited) return;
    pooled.exited = true;
    const index = idle.indexOf(pooled);
    if (index >= 0) idle.splice(index, 1);
    busy.delete(pooled);
    const listener = pooled.listener;
    pooled.listener = undefined;
    listener?.onCrash(reason);
  };
  worker.on('error', (error) => lost(`the worker failed: ${error.message}`));
  worker.on('exit', (code) => lost(`the worker exited with code ${code}`));
  return pooled;
}

/**
 * Starts a program in a warm worker (or a new one). The worker is referenced while the program runs, so the process
 * waits for it, and unreferenced while idle, so a warm worker never keeps a process alive.
 */
export function startSandbox(run: RunMessage, listener: SandboxListener): SandboxSession {
  let pooled = idle.pop();
  while (pooled?.exited === true) pooled = idle.pop();
  pooled ??= spawn();
  const current = pooled;
  current.listener = listener;
  busy.add(current);
  current.worker.ref();
  current.worker.postMessage(run);
  let released = false;
  return {
    post: (message) => {
      if (!released && !current.exited) current.worker.postMessage(message);
    },
    terminate: async () => {
      released = true;
      current.listener = undefined;
      busy.delete(current);
      current.exited = true;
      await current.worker.terminate();
    },
    release: () => {
      if (released) return;
      released = true;
      current.listener = undefined;
      busy.delete(current);
      if (current.exited) return;
      if (idle.length < MAX_IDLE_WORKERS) {
        current.worker.unref();
        idle.push(current);
      } else {
        current.exited = true;
        void current.worker.terminate();
      }
    },
  };
}

/**
 * Starts a worker ahead of the first program, so that one does not wait for QuickJS to load (about 50 ms).
 *
 * @example
 * prewarmCodeSandbox(); // at startup
 */
export function prewarmCodeSandbox(): void {
  if (idle.length > 0) return;
  const pooled = spawn();
  pooled.worker.unref();
  idle.push(pooled);
}

/**
 * Terminates every idle worker of the sandbox pool (and waits for them): for tests and for a clean shutdown.
 * Programs still running keep their workers until they end.
 *
 * @example
 * afterAll(() => closeCodeSandboxes());
 */
export async function closeCodeSandboxes(): Promise<void> {
  const workers = idle.splice(0);
  for (const pooled of workers) pooled.exited = true;
  await Promise.all(workers.map((pooled) => pooled.worker.terminate()));
}
