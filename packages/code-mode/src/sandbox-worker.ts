import type {
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
  QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import type {
  CallMessage,
  ConsoleEntry,
  DoneMessage,
  HostMessage,
  ModuleMessage,
  ResultChannelMessage,
  RunMessage,
  SandboxOutcome,
  WorkerMessage,
  WorkerStartData,
} from './sandbox-protocol.js';

/** Where the worker loads QuickJS from: resolved by the host, so the worker needs no module resolution of its own. */
export interface SandboxWorkerPaths {
  readonly core: string;
  readonly variant: string;
}

/**
 * The worker's whole program. It runs as the source text of this function (`new Worker(text, { eval: true })`), so it
 * is self-contained: it closes over nothing and receives `require`, the resolved paths and its start data (the
 * channel of call results, whose first message is the variant's `WebAssembly.Module`, compiled once by the host and
 * instantiated once per program) as arguments. That keeps
 * one TypeScript source for tests (run from `src`) and the build, with no second entry file to locate at run time.
 *
 * Each program gets a fresh WebAssembly module over its own `WebAssembly.Memory` with a `maximum`: QuickJS's
 * `setMemoryLimit` alone does not bound the prebuilt variants' memory, and a module that overflowed its stack or
 * ran out of memory must never run again. The next program's sandbox (module, runtime, context and the generic part
 * of the prelude) is made while the worker is idle, after the previous program's outcome was sent, so a program
 * finds it ready and only installs its own functions, time and seed. Modules are dropped, not disposed: disposing a
 * runtime with a live handle (a pending call's resolvers) aborts the WebAssembly, and dropping the module frees its
 * memory all the same.
 */
export function sandboxWorkerMain(
  load: (path: string) => unknown,
  paths: SandboxWorkerPaths,
  startData: WorkerStartData,
): void {
  type Core = typeof import('quickjs-emscripten-core');
  const core = load(paths.core) as Core;
  const variantExports = load(paths.variant) as { default?: unknown };
  const baseVariant = (variantExports.default ??
    variantExports) as import('quickjs-emscripten-core').QuickJSSyncVariant;
  // The WebAssembly global of Node (this package's TypeScript libraries do not declare it).
  const wasm = (
    globalThis as unknown as {
      WebAssembly: {
        Memory: new (descriptor: { initial: number; maximum: number }) => object;
        Module: abstract new (...args: never[]) => object;
        Instance: new (module: object, imports: object) => object;
        instantiate: (source: object, imports: object) => Promise<unknown>;
      };
    }
  ).WebAssembly;
  // quickjs-emscripten instantiates the compiled module with the asynchronous `WebAssembly.instantiate`, whose
  // promise V8 may settle only after its background compile jobs (lazy compilation, tier-up): measured up to 250 ms
  // on a busy machine, against under 2 ms for the synchronous instantiation. This realm is the sandbox's own and
  // nothing else in it instantiates WebAssembly, so the compiled-module case is made synchronous here.
  const instantiate = wasm.instantiate.bind(wasm);
  wasm.instantiate = (source, imports) =>
    source instanceof wasm.Module
      ? Promise.resolve(new wasm.Instance(source, imports))
      : instantiate(source, imports);
  // QuickJS learns the time zone from this realm (emscripten's localtime asks the worker's own Date): made UTC here,
  // so a program's local time (parsing '2020-01-02T03:04' included) is UTC on every host. The host's realm is
  // another one: its Date is untouched.
  (
    globalThis as unknown as { Date: { prototype: { getTimezoneOffset: () => number } } }
  ).Date.prototype.getTimezoneOffset = () => 0;
  const { parentPort, receiveMessageOnPort } = load(
    'node:worker_threads',
  ) as typeof import('node:worker_threads');
  if (parentPort === null) return;
  const port = parentPort;
  const results = startData.results.port as import('node:worker_threads').MessagePort;
  const posted = startData.results.posted;
  // The host posts QuickJS's compiled module first, right after starting this thread (and bumps the counter from 0).
  let first = receiveMessageOnPort(results);
  while (first === undefined) {
    Atomics.wait(posted, 0, 0, 50);
    first = receiveMessageOnPort(results);
  }
  const compiled = (first.message as ModuleMessage).compiled as object;
  /**
   * How long a program waiting for a call's result blocks on the result counter before the worker goes back to its
   * event loop (the result then arrives as a message): long enough for a fast tool, short enough that nothing waits
   * behind it. `worker.terminate()` interrupts the wait.
   */
  const RESULT_WAIT_MS = 50;
  /**
   * How long a call the program made may wait to be posted with the others of its slice (a `Promise.all` makes them
   * microseconds apart): a call made before a long computation is not held back for all of it.
   */
  const OUTBOX_HOLD_MS = 1;
  const PAGE = 65_536;
  // QuickJS's module asks for this much at start (16 MiB); a memory may not start smaller.
  const INITIAL_PAGES = 256;

  /**
   * One program's sandbox, made before the program arrives: a fresh module over its own memory, its runtime and
   * context, and the prelude's program-independent part evaluated. Taken by one program only, then dropped.
   */
  interface Sandbox {
    readonly pages: number;
    readonly context: QuickJSContext;
    /** The prelude's serializer of the program's value, its reader of a thrown value, and its installer. */
    readonly serializer: QuickJSHandle;
    readonly describer: QuickJSHandle;
    readonly install: QuickJSHandle;
    /** The program the sandbox's host functions report to, once one took it. */
    readonly route: { owner: ProgramRun | undefined };
  }

  const buildSandbox = (module: QuickJSWASMModule, pages: number): Sandbox => {
    const runtime = module.newRuntime();
    const context = runtime.newContext();
    const route: Sandbox['route'] = { owner: undefined };
    const callFunction = context.newFunction('call', (nameHandle, argsHandle) => {
      const owner = route.owner;
      if (owner === undefined)
        return context.newError({ name: 'InternalError', message: 'No program runs.' });
      return owner.onCall(context.getString(nameHandle), context.getString(argsHandle));
    });
    context.setProp(context.global, '__call', callFunction);
    callFunction.dispose();
    const consoleFunction = context.newFunction('console', (levelHandle, textHandle) => {
      route.owner?.onConsole(
        context.getString(levelHandle) as ConsoleEntry['level'],
        context.getString(textHandle),
      );
    });
    context.setProp(context.global, '__console', consoleFunction);
    consoleFunction.dispose();
    const prelude = context.evalCode(PRELUDE, 'prelude.js');
    if (prelude.error !== undefined) {
      const reason = String(context.dump(prelude.error));
      prelude.error.dispose();
      throw new Error(`the sandbox's prelude failed: ${reason}`);
    }
    // Kept out of the program's reach: only the host holds these handles.
    const serializer = context.getProp(prelude.value, 0);
    const describer = context.getProp(prelude.value, 1);
    const install = context.getProp(prelude.value, 2);
    prelude.value.dispose();
    return { pages, context, serializer, describer, install, route };
  };

  const prepare = async (pages: number): Promise<Sandbox> => {
    const memory = new wasm.Memory({ initial: INITIAL_PAGES, maximum: pages });
    const options = { wasmMemory: memory, wasmModule: compiled } as Parameters<Core['newVariant']>[1];
    const module = await core.newQuickJSWASMModuleFromVariant(core.newVariant(baseVariant, options));
    return buildSandbox(module, pages);
  };
  let prepared: { pages: number; sandbox: Promise<Sandbox> } | undefined;
  /** The sandbox made ahead when it has the program's memory size, else a new one; never handed out twice. */
  const takeSandbox = (pages: number): Promise<Sandbox> => {
    const ready = prepared !== undefined && prepared.pages === pages ? prepared.sandbox : prepare(pages);
    prepared = undefined;
    return ready;
  };
  const prepareNext = (pages: number): void => {
    prepared = { pages, sandbox: prepare(pages) };
    // A failure shows when the sandbox is taken; nothing to report while idle.
    prepared.sandbox.catch(() => {});
  };

  const send = (message: WorkerMessage): void => port.postMessage(message);
  let current: ProgramRun | undefined;

  let programSeen = false;
  port.on('message', (message: HostMessage) => {
    if (message.type === 'run') {
      programSeen = true;
      const pages = Math.floor(message.limits.memoryBytes / PAGE);
      takeSandbox(pages).then(
        (sandbox) => {
          if (cancelledRunId === message.runId) {
            // Cancelled while its sandbox was made: that sandbox ran nothing, so it is the next program's.
            send({
              type: 'done',
              runId: message.runId,
              outcome: { kind: 'cancelled' },
              console: [],
              cpuMs: 0,
            });
            prepared = { pages, sandbox: Promise.resolve(sandbox) };
            send({ type: 'ready' });
            return;
          }
          current = new ProgramRun(sandbox, message);
          current.start();
          awaitResults();
        },
        (error: unknown) => finish(message.runId, pages, { kind: 'crashed', reason: String(error) }, [], 0),
      );
    }
  });

  /** A cancelled run that had no program running yet (its sandbox was being made). */
  let cancelledRunId: number | undefined;
  const deliver = (message: ResultChannelMessage): void => {
    if (message.type === 'cancel') {
      if (current !== undefined && current.runId === message.runId) current.cancel();
      else cancelledRunId = message.runId;
      return;
    }
    if (current !== undefined && current.runId === message.runId)
      current.settleCall(message.callId, message.json, message.error);
  };
  /** Settles every result already posted; whether there was one. The program runs on them after (`pump`). */
  const deliverPosted = (): boolean => {
    let delivered = false;
    for (let next = receiveMessageOnPort(results); next !== undefined; next = receiveMessageOnPort(results)) {
      deliver(next.message as ResultChannelMessage);
      delivered = true;
    }
    return delivered;
  };
  /**
   * While the program waits for calls' results, the worker takes them from the result port as they are posted,
   * blocked on the shared counter between them: no trip through the event loop per call. Every result already there
   * is settled before the program runs again, so results that come together cost one run of its jobs, not one each.
   * The counter is read before the port, so a result posted in between makes the wait return at once.
   */
  const awaitResults = (): void => {
    while (current?.waitingForCalls() === true) {
      const seen = Atomics.load(posted, 0);
      if (deliverPosted()) current?.pump();
      else if (Atomics.wait(posted, 0, seen, RESULT_WAIT_MS) === 'timed-out') return;
    }
  };
  results.on('message', (message: ResultChannelMessage) => {
    deliver(message);
    deliverPosted();
    current?.pump();
    awaitResults();
  });

  const finish = (
    runId: number,
    pages: number,
    outcome: SandboxOutcome,
    consoleEntries: ConsoleEntry[],
    cpuMs: number,
  ): void => {
    const done: DoneMessage = { type: 'done', runId, outcome, console: consoleEntries, cpuMs };
    current = undefined;
    send(done);
    // The outcome is on its way: the next program's sandbox is made now, off that program's path.
    prepareNext(pages);
  };

  /** The program's rules, installed before it runs; evaluated as its own script so the program's lines stay put. */
  const PRELUDE = `(function () {
  'use strict';
  const call = globalThis.__call, write = globalThis.__console;
  delete globalThis.__call; delete globalThis.__console;
  // Their callbacks run when the collector decides: a timing channel, and a program that differs between runs.
  delete globalThis.WeakRef;
  delete globalThis.FinalizationRegistry;
  const show = (value) => {
    if (typeof value === 'string') return value;
    try { const text = JSON.stringify(value); return text === undefined ? String(value) : text; }
    catch { return String(value); }
  };
  const consoleObject = {};
  for (const level of ['log', 'info', 'warn', 'error', 'debug'])
    consoleObject[level] = (...values) => { write(level, values.map(show).join(' ')); };
  globalThis.console = Object.freeze(consoleObject);
  // What depends on the program (its functions, time and seed), installed once when it arrives.
  let installed = false;
  const install = (specText) => {
    if (installed) throw new Error('the sandbox is already installed');
    installed = true;
    const spec = JSON.parse(specText);
    let state = spec.seed >>> 0;
    Math.random = function random() {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    // Date is frozen at the effects' time and every path to it leads here: the constructor is replaced on the shared
    // prototype too, so 'new Date().constructor' or 'Object.getPrototypeOf(d).constructor' never reach the real clock.
    // (Local time is UTC: see the worker's getTimezoneOffset above.)
    const RealDate = Date, now = spec.now, construct = Reflect.construct;
    const DatePrototype = RealDate.prototype;
    function SandboxDate(...args) {
      if (!new.target) return new SandboxDate().toString();
      return construct(RealDate, args.length === 0 ? [now] : args, new.target);
    }
    Object.defineProperty(SandboxDate, 'prototype', { value: DatePrototype });
    Object.defineProperty(DatePrototype, 'constructor', { value: SandboxDate, writable: true, configurable: true });
    SandboxDate.now = () => now;
    SandboxDate.parse = RealDate.parse;
    SandboxDate.UTC = RealDate.UTC;
    globalThis.Date = SandboxDate;
    for (const { identifier, toolName } of spec.functions) {
      globalThis[identifier] = async function (args) {
        const text = JSON.stringify(args === undefined ? {} : args, (key, value) => {
          if (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint')
            throw new TypeError(identifier + ': arguments must be JSON (found a ' + typeof value + ' at ' + JSON.stringify(key) + ')');
          return value;
        });
        // Checked before the text leaves the sandbox (the host checks its UTF-8 bytes again): a string can be no
        // shorter in UTF-8 bytes than in characters.
        if (text.length > spec.maxArgumentsBytes)
          throw new TypeError(identifier + ': the arguments are larger than ' + spec.maxArgumentsBytes + ' bytes of JSON');
        return JSON.parse(await call(toolName, text));
      };
    }
  };
  const stringify = JSON.stringify;
  const serialize = (value) => stringify(value, (key, item) => {
    const kind = typeof item;
    if (kind === 'function' || kind === 'symbol' || kind === 'bigint')
      throw new TypeError('a ' + kind + ' at ' + (key === '' ? 'the top level' : JSON.stringify(key)));
    return item;
  });
  // What the host reads of a thrown object: its name, message, stack and code when they are strings, else its JSON.
  // Run by the host within the program's CPU budget, since reading them runs the program's getters and toJSON.
  const describeThrown = (value) => {
    const text = (key) => {
      try { const item = value[key]; return typeof item === 'string' ? item.slice(0, 4000) : null; }
      catch { return null; }
    };
    const message = text('message');
    let json = null;
    if (message === null) {
      try { const whole = stringify(value); if (typeof whole === 'string') json = whole.slice(0, 4000); } catch {}
    }
    return stringify([text('name'), message, text('stack'), text('code'), json]);
  };
  return [serialize, describeThrown, install];
})();`;

  // The program is one async function; the opening sits on its first line so every line keeps its number.
  const OPENING = '(async () => {';

  /** A thrown value as the host reads it. */
  interface Described {
    readonly errorName: string;
    readonly reason: string;
    readonly where: { line?: number; column?: number };
  }

  /** One program on its own module. */
  class ProgramRun {
    readonly runId: number;
    private readonly context: QuickJSContext;
    private readonly pages: number;
    private readonly limits: RunMessage['limits'];
    private readonly calls = new Map<number, QuickJSDeferredPromise>();
    /** Calls made in the current slice, posted together when it ends (`postCalls`). */
    private outbox: CallMessage[] = [];
    /** When the first call in the outbox was made. */
    private outboxSince = 0;
    private readonly consoleEntries: ConsoleEntry[] = [];
    private consoleBytes = 0;
    private inputBytes = 0;
    private callCount = 0;
    private cpuMs = 0;
    private sliceDeadline = Number.POSITIVE_INFINITY;
    /** Set by a host function that found a limit passed; the interrupt handler then stops the program at once. */
    private stop: SandboxOutcome | undefined;
    private promise: QuickJSHandle | undefined;
    private readonly serializer: QuickJSHandle;
    private readonly describer: QuickJSHandle;
    private readonly install: QuickJSHandle;
    private sampledAt = performance.now();
    private heapLimit = 0;
    private heapPeak = 0;
    private ended = false;

    constructor(
      sandbox: Sandbox,
      private readonly message: RunMessage,
    ) {
      this.runId = message.runId;
      this.limits = message.limits;
      this.pages = sandbox.pages;
      this.context = sandbox.context;
      this.serializer = sandbox.serializer;
      this.describer = sandbox.describer;
      this.install = sandbox.install;
      sandbox.route.owner = this;
      const runtime = this.context.runtime;
      runtime.setMaxStackSize(this.limits.stackBytes);
      // QuickJS's own allocator limit, under the memory's maximum: most bombs then end as a catchable
      // "out of memory" inside QuickJS instead of a failed grow of the WebAssembly memory.
      this.heapLimit = Math.floor(this.limits.memoryBytes / 2);
      runtime.setMemoryLimit(this.heapLimit);
      runtime.setInterruptHandler(() => {
        // Every few milliseconds of the program (not at its start: measuring walks the whole heap): the high-water mark of QuickJS's heap, to tell its out-of-memory `null` from a
        // program's own `throw null` (QuickJS cannot allocate an error at its limit, so it throws `null`).
        const now = performance.now();
        if (now - this.sampledAt > 2) {
          this.sampledAt = now;
          this.sampleMemory();
        }
        // A call made before the program computes for a while goes now, to run beside the computation.
        if (this.outbox.length > 0 && now - this.outboxSince > OUTBOX_HOLD_MS) this.postCalls();
        return this.stop !== undefined || now > this.sliceDeadline;
      });
    }

    start(): void {
      const context = this.context;
      try {
        const spec = JSON.stringify({
          functions: this.message.functions,
          maxArgumentsBytes: this.message.maxArgumentsBytes,
          now: this.message.now,
          seed: this.message.randomSeed,
        });
        const specHandle = context.newString(spec);
        // The prelude is the sandbox's own code: it runs outside the program's CPU budget.
        const installed = context.callFunction(this.install, context.undefined, specHandle);
        specHandle.dispose();
        if (installed.error !== undefined) {
          const reason = this.describe(installed.error).reason;
          installed.error.dispose();
          this.end({ kind: 'crashed', reason: `the sandbox's prelude failed: ${reason}` });
          return;
        }
        installed.value.dispose();
        const evaluated = this.slice(() =>
          context.evalCode(`${OPENING}${this.message.program}\n})()`, 'program.js'),
        );
        if (evaluated.error !== undefined) {
          const described = this.describe(evaluated.error);
          evaluated.error.dispose();
          if (this.stop !== undefined) this.end(this.stop);
          else if (described.errorName === 'SyntaxError' && described.reason !== 'stack overflow')
            this.end({ kind: 'syntax', ...described.where, reason: described.reason });
          else this.end(this.classify(described));
          return;
        }
        this.promise = evaluated.value;
        this.pump();
      } catch (error) {
        this.end(this.hostFailure(error));
      }
    }

    /** The host no longer wants this program: it ends now, its pending calls' results are ignored. */
    cancel(): void {
      this.end({ kind: 'cancelled' });
    }

    /** True while the program is pending on calls whose results have not come back. */
    waitingForCalls(): boolean {
      return !this.ended && this.calls.size > 0;
    }

    settleCall(
      callId: number,
      json: string | undefined,
      error: { code: string; status: string; message: string } | undefined,
    ): void {
      const deferred = this.calls.get(callId);
      if (deferred === undefined || this.ended) return;
      this.calls.delete(callId);
      const context = this.context;
      try {
        if (json !== undefined) {
          this.inputBytes += Buffer.byteLength(json, 'utf8');
          if (this.inputBytes > this.limits.maxInputBytes) {
            this.calls.set(callId, deferred);
            this.end({
              kind: 'limit',
              limit: 'maxInputBytes',
              detail: `the result of call ${callId} brought the total to ${this.inputBytes} bytes`,
            });
            return;
          }
          const handle = context.newString(json);
          deferred.resolve(handle);
          handle.dispose();
        } else {
          const failure = error ?? { code: 'error', status: 'error', message: 'The call failed.' };
          // An error's text enters the sandbox too, and counts against the same limit.
          this.inputBytes += Buffer.byteLength(failure.message, 'utf8');
          if (this.inputBytes > this.limits.maxInputBytes) {
            this.calls.set(callId, deferred);
            this.end({
              kind: 'limit',
              limit: 'maxInputBytes',
              detail: `the error of call ${callId} brought the total to ${this.inputBytes} bytes`,
            });
            return;
          }
          const handle = context.newError({ name: 'ToolCallError', message: failure.message });
          const code = context.newString(failure.code);
          const status = context.newString(failure.status);
          context.setProp(handle, 'code', code);
          context.setProp(handle, 'status', status);
          code.dispose();
          status.dispose();
          deferred.reject(handle);
          handle.dispose();
        }
        deferred.dispose();
      } catch (failure) {
        this.end(this.hostFailure(failure));
      }
    }

    /**
     * Runs the program's pending jobs within its CPU budget, posts the calls they made in one message, then sees where
     * the program stands.
     */
    pump(): void {
      if (this.ended || this.promise === undefined) return;
      const runtime = this.context.runtime;
      const jobs = this.slice(() => runtime.executePendingJobs());
      this.postCalls();
      // A job that threw outside the program's promise; the stop reason, when there is one, says why.
      if (jobs.error !== undefined) jobs.error.dispose();
      if (this.stop !== undefined) {
        this.end(this.stop);
        return;
      }
      const state = this.context.getPromiseState(this.promise);
      if (state.type === 'pending') {
        if (this.calls.size === 0) this.end({ kind: 'never-settles' });
        return;
      }
      if (state.type === 'rejected') {
        const described = this.describe(state.error);
        state.error.dispose();
        this.end(this.classify(described));
        return;
      }
      this.end(this.serialize(state.value));
    }

    /** The program's value as JSON text, within its limit; anything else is a typed outcome. */
    private serialize(value: QuickJSHandle): SandboxOutcome {
      const context = this.context;
      try {
        if (context.typeof(value) === 'undefined') return { kind: 'returned', json: undefined };
        const serializer = this.serializer;
        const result = this.slice(() => context.callFunction(serializer, context.undefined, value));
        if (result.error !== undefined) {
          const described = this.describe(result.error);
          result.error.dispose();
          if (this.stop !== undefined) return this.stop;
          const classified = this.classify(described);
          if (classified.kind === 'limit') return classified;
          return { kind: 'invalid-return', reason: described.reason };
        }
        const json = context.typeof(result.value) === 'string' ? context.getString(result.value) : undefined;
        result.value.dispose();
        if (json === undefined) return { kind: 'returned', json: undefined };
        const bytes = Buffer.byteLength(json, 'utf8');
        if (bytes > this.limits.maxReturnBytes)
          return { kind: 'limit', limit: 'maxReturnBytes', detail: `the value is ${bytes} bytes of JSON` };
        return { kind: 'returned', json };
      } catch (error) {
        return this.hostFailure(error);
      } finally {
        value.dispose();
      }
    }

    onCall(toolName: string, args: string): QuickJSHandle {
      const context = this.context;
      this.callCount += 1;
      if (this.callCount > this.limits.maxToolCalls) {
        this.stop ??= {
          kind: 'limit',
          limit: 'maxToolCalls',
          detail: `call ${this.callCount} was not made`,
        };
        return context.newError({ name: 'InternalError', message: 'The program was stopped.' });
      }
      const callId = this.callCount;
      const deferred = context.newPromise();
      this.calls.set(callId, deferred);
      if (this.outbox.length === 0) this.outboxSince = performance.now();
      this.outbox.push({ type: 'call', runId: this.runId, callId, toolName, args });
      return deferred.handle;
    }

    /**
     * Posts the calls made since the last post: one message however many there are, and none for none. Called when
     * a slice of the program ends, and from the interrupt handler once a call has waited `OUTBOX_HOLD_MS`.
     */
    private postCalls(): void {
      const outbox = this.outbox;
      if (outbox.length === 0) return;
      this.outbox = [];
      send(outbox.length === 1 ? outbox[0]! : { type: 'calls', calls: outbox });
    }

    onConsole(level: ConsoleEntry['level'], text: string): void {
      this.consoleBytes += Buffer.byteLength(text, 'utf8') + 1;
      if (this.consoleBytes > this.limits.maxConsoleBytes) {
        this.stop ??= { kind: 'limit', limit: 'maxConsoleBytes' };
        return;
      }
      this.consoleEntries.push({ level, text });
    }

    /** Runs sandbox code with what is left of the CPU budget as its deadline, and counts the time it took. */
    private slice<T>(run: () => T): T {
      const started = performance.now();
      this.sliceDeadline = started + (this.limits.cpuTimeMs - this.cpuMs);
      try {
        return run();
      } finally {
        const elapsed = performance.now() - started;
        this.cpuMs += elapsed;
        this.sliceDeadline = Number.POSITIVE_INFINITY;
        if (this.cpuMs > this.limits.cpuTimeMs) this.stop ??= { kind: 'limit', limit: 'cpuTimeMs' };
      }
    }

    /**
     * A thrown value of the sandbox, as data: its name, message and where in the program it was thrown. Nothing of
     * the program runs outside its CPU budget: a primitive is read as it is, an object through the prelude's reader
     * (its getters and toJSON are the program's code) within the budget, and by its kind when that fails.
     */
    private describe(handle: QuickJSHandle): Described {
      const context = this.context;
      const kind = context.typeof(handle);
      if (kind !== 'object' && kind !== 'function') {
        // A primitive: reading it runs none of the program's code.
        let value: unknown;
        try {
          value = context.dump(handle);
        } catch {
          value = kind;
        }
        return { errorName: 'a value that is not an Error', reason: String(value).slice(0, 1000), where: {} };
      }
      if (context.sameValue(handle, context.null)) {
        // QuickJS throws `null` when it cannot even allocate its "out of memory" error.
        if (this.memoryNearlyFull())
          return { errorName: 'InternalError', reason: 'out of memory', where: {} };
        return { errorName: 'a value that is not an Error', reason: 'null', where: {} };
      }
      const fields = this.readThrown(handle);
      if (fields === undefined)
        return {
          errorName: 'a value that is not an Error',
          reason: `a thrown ${kind} that could not be read`,
          where: {},
        };
      const [name, message, stack, code, json] = fields;
      let reason = message ?? json ?? `a thrown ${kind}`;
      if (code !== null) reason = `${reason} (code ${code})`;
      const where: { line?: number; column?: number } = {};
      const match = /program\.js:(\d+):(\d+)/.exec(stack ?? '');
      if (match !== null) {
        const line = Number(match[1]);
        const column = Number(match[2]);
        where.line = line;
        where.column = line === 1 ? Math.max(1, column - OPENING.length) : column;
      }
      return { errorName: name ?? 'Error', reason: reason.slice(0, 2000), where };
    }

    /** The name, message, stack, code and JSON of a thrown object, read by the prelude within the CPU budget. */
    private readThrown(handle: QuickJSHandle): (string | null)[] | undefined {
      const context = this.context;
      const describer = this.describer;
      const result = this.slice(() => context.callFunction(describer, context.undefined, handle));
      if (result.error !== undefined) {
        result.error.dispose();
        return undefined;
      }
      const text = context.typeof(result.value) === 'string' ? context.getString(result.value) : undefined;
      result.value.dispose();
      if (text === undefined) return undefined;
      let fields: unknown;
      try {
        fields = JSON.parse(text);
      } catch {
        return undefined;
      }
      if (
        !Array.isArray(fields) ||
        fields.length !== 5 ||
        !fields.every((field) => field === null || typeof field === 'string')
      )
        return undefined;
      return fields as (string | null)[];
    }

    /** Records the heap's size when it is the largest seen. */
    private sampleMemory(): void {
      try {
        const handle = this.context.runtime.computeMemoryUsage();
        const usage = this.context.dump(handle) as { memory_used_size?: number };
        handle.dispose();
        this.heapPeak = Math.max(this.heapPeak, usage.memory_used_size ?? 0);
      } catch {
        // No room even to measure: the heap is full.
        this.heapPeak = this.heapLimit;
      }
    }

    /** True when the heap came near its limit: a thrown `null` is then QuickJS's out-of-memory. */
    private memoryNearlyFull(): boolean {
      this.sampleMemory();
      return this.heapPeak >= 0.5 * this.heapLimit;
    }

    /** A thrown value as an outcome: a limit when it is QuickJS's own stop, the program's error otherwise. */
    private classify(described: Described): SandboxOutcome {
      if (this.stop !== undefined) return this.stop;
      // QuickJS reports its stack limit as an InternalError, or as a SyntaxError from its parsers (JSON.parse,
      // a program nested too deep).
      if (described.reason === 'stack overflow') return { kind: 'limit', limit: 'stackBytes' };
      if (described.errorName === 'InternalError') {
        if (described.reason.startsWith('out of memory')) return { kind: 'limit', limit: 'memoryBytes' };
        if (described.reason.startsWith('interrupted')) return { kind: 'limit', limit: 'cpuTimeMs' };
      }
      return { kind: 'threw', errorName: described.errorName, reason: described.reason, ...described.where };
    }

    /** A failure of the WebAssembly itself (a trap, the host's stack): the module is never used again. */
    private hostFailure(error: unknown): SandboxOutcome {
      if (this.stop !== undefined) return this.stop;
      const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      if (error instanceof RangeError && /call stack/i.test(text))
        return { kind: 'limit', limit: 'stackBytes' };
      if (/memory|out of bounds|Cannot enlarge/i.test(text)) return { kind: 'limit', limit: 'memoryBytes' };
      return { kind: 'crashed', reason: text.slice(0, 2000) };
    }

    private end(outcome: SandboxOutcome): void {
      if (this.ended) return;
      // Calls the program made before it ended reach the host before its outcome, as they took effect first.
      this.postCalls();
      this.ended = true;
      // Pending calls' results that arrive later are ignored (`settleCall` checks `ended`); the module is dropped.
      finish(this.runId, this.pages, outcome, this.consoleEntries, this.cpuMs);
    }
  }

  /**
   * Runs a small program of the sandbox's own on a sandbox made for it, then drops that sandbox (its module never
   * runs anything else). WebAssembly is compiled lazily, function by function, and the JavaScript around it starts
   * interpreted: without this, the worker's first real program would pay for compiling QuickJS's parser, promise
   * jobs and JSON paths (about 5 ms on a small machine). Done once per worker, after its first sandbox is ready and
   * only if no program came meanwhile, so a program that arrives at once is not kept waiting by it.
   */
  const warmUp = async (): Promise<void> => {
    // A program already came: it is doing the compiling, and must not wait for a second instantiation.
    if (programSeen) return;
    const { context, install, serializer } = await prepare(INITIAL_PAGES);
    const spec = context.newString(
      JSON.stringify({ functions: [], maxArgumentsBytes: 1024, now: 0, seed: 1 }),
    );
    context.callFunction(install, context.undefined, spec);
    const evaluated = context.evalCode(
      `${OPENING}const values = [1, 2, 3].map((n) => ({ n, text: String(n) }));\nawait null;\n` +
        'return { values, total: values.reduce((sum, value) => sum + value.n, 0) };\n})()',
      'program.js',
    );
    if (evaluated.error !== undefined) return;
    context.runtime.executePendingJobs();
    const state = context.getPromiseState(evaluated.value);
    if (state.type === 'fulfilled') context.callFunction(serializer, context.undefined, state.value);
    // Nothing is disposed: the module is dropped whole.
  };

  // Make the first sandbox at once, so the first program rarely waits for it; say the thread is up (the pool's
  // `booted`); then warm the code paths up.
  prepareNext(Math.floor((64 * 1024 * 1024) / PAGE));
  prepared?.sandbox
    .then(() => {
      send({ type: 'ready' });
      return warmUp();
    })
    .catch(() => {});
}
