import { defineTool, executeStreamingAction, ToolRegistry } from '@org/tools';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CODE_MODE_TOOL_NAME,
  CodeAbortedError,
  CodeLimitError,
  CodeModeOptionsError,
  closeCodeSandboxes,
  configureCodeSandboxes,
  createCodeModeTool,
  prewarmCodeSandbox,
  runCode,
} from './index.js';
import { busySandboxWorkerCount, sandboxWorkerCount, sandboxWorkersStarted } from './sandbox-pool.js';

afterEach(() => configureCodeSandboxes({}));
afterAll(() => closeCodeSandboxes());

/** A tool whose calls wait until `open` is called. */
function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  let entered: () => void = () => {};
  const waiting = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const tool = defineTool({
    name: 'wait_for_gate',
    description: 'Waits for the gate.',
    input: z.object({}),
    execute: async () => {
      entered();
      await opened;
      return 'through';
    },
  });
  return { tool, open, waiting };
}

describe('the sandbox pool', () => {
  it('runs at most maxWorkers programs at once; the others wait their turn, then run', async () => {
    configureCodeSandboxes({ maxWorkers: 1 });
    const { tool, open, waiting } = gate();
    const order: string[] = [];
    const first = runCode('return await wait_for_gate({});', { tools: [tool] }).then((result) => {
      order.push('first');
      return result;
    });
    await waiting;
    const second = runCode('return 2;', { tools: [] }).then((result) => {
      order.push('second');
      return result;
    });
    // The second program needs no tool, yet cannot start while the first holds the only worker.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(order).toEqual([]);
    open();
    expect((await first).value).toBe('through');
    expect((await second).value).toBe(2);
    expect(order).toEqual(['first', 'second']);
  });

  it('ends a waiting program by its signal or its wall time, without it ever starting', async () => {
    configureCodeSandboxes({ maxWorkers: 1 });
    const { tool, open, waiting } = gate();
    const holder = runCode('return await wait_for_gate({});', { tools: [tool] });
    await waiting;
    const controller = new AbortController();
    const aborted = runCode('return 1;', { tools: [], signal: controller.signal });
    const timedOut = runCode('return 1;', { tools: [], limits: { wallTimeMs: 150 } });
    controller.abort();
    expect(CodeAbortedError.isInstance((await aborted).error)).toBe(true);
    expect((await timedOut).error).toMatchObject({ code: 'code_limit_exceeded', limit: 'wallTimeMs' });
    expect(CodeLimitError.isInstance((await timedOut).error)).toBe(true);
    open();
    expect((await holder).value).toBe('through');
    // Nothing is left queued: the next program runs at once.
    expect((await runCode('return 3;', { tools: [] })).value).toBe(3);
  });

  it('keeps the worker of a program aborted while it waits for a call, and gives the next program a fresh sandbox', async () => {
    configureCodeSandboxes({ maxWorkers: 1 });
    await closeCodeSandboxes();
    const { tool, open, waiting } = gate();
    const controller = new AbortController();
    const aborted = runCode('globalThis.leak = 1;\nreturn await wait_for_gate({});', {
      tools: [tool],
      signal: controller.signal,
    });
    await waiting;
    const started = sandboxWorkersStarted();
    controller.abort();
    expect(CodeAbortedError.isInstance((await aborted).error)).toBe(true);
    open();
    while (busySandboxWorkerCount() > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(sandboxWorkerCount()).toBe(1);
    expect((await runCode('return typeof globalThis.leak;', { tools: [] })).value).toBe('undefined');
    expect(sandboxWorkersStarted()).toBe(started);
  });

  it('terminates the worker of an aborted program that does not answer: one computing in a loop', async () => {
    configureCodeSandboxes({ maxWorkers: 1 });
    await closeCodeSandboxes();
    const controller = new AbortController();
    const { tool, open, waiting } = gate();
    open();
    const aborted = runCode('await wait_for_gate({});\nwhile (true) {}', {
      tools: [tool],
      signal: controller.signal,
    });
    // The program is past its call: in its loop, it never reads the cancellation.
    await waiting;
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    expect(CodeAbortedError.isInstance((await aborted).error)).toBe(true);
    while (busySandboxWorkerCount() > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(sandboxWorkerCount()).toBe(0);
    expect((await runCode('return 4;', { tools: [] })).value).toBe(4);
  });

  it('refuses a cap that is not a whole number from 1', () => {
    for (const maxWorkers of [0, -1, 1.5, Number.NaN]) {
      expect(() => configureCodeSandboxes({ maxWorkers })).toThrow(CodeModeOptionsError);
    }
  });
});

describe('sandboxes made ahead', () => {
  // A program that leaves traces everywhere it can; the next one looks for them.
  const polluter =
    'globalThis.leak = 1; Object.prototype.polluted = 1; Array.prototype.push = null; JSON.parse = null;\n' +
    'return Math.random();';
  const inspector =
    'return [typeof globalThis.leak, ({}).polluted === undefined, typeof [].push, typeof JSON.parse,\n' +
    '  Math.random(), Date.now(), typeof __call, typeof __console, typeof __spec];';

  it('gives each program a fresh sandbox on the same worker, back to back or later, with its own time and seed', async () => {
    configureCodeSandboxes({ maxWorkers: 1 });
    const effects = (now: number) => ({ now: () => now, randomSeed: () => 7 });
    const first = await runCode(polluter, { tools: [], effects: effects(1) });
    expect(first.status).toBe('success');
    for (const pause of [0, 50]) {
      await new Promise((resolve) => setTimeout(resolve, pause));
      const next = await runCode(inspector, { tools: [], effects: effects(1000 + pause) });
      expect(next.value).toEqual([
        'undefined',
        true,
        'function',
        'function',
        first.value,
        1000 + pause,
        'undefined',
        'undefined',
        'undefined',
      ]);
      // The inspector's own traces do not reach the next one either.
      expect((await runCode(polluter, { tools: [], effects: effects(2) })).value).toBe(first.value);
    }
    // A program with another memory size than the sandbox made ahead gets one of its own size.
    const smaller = await runCode(inspector, {
      tools: [],
      limits: { memoryBytes: 32 * 1024 * 1024 },
      effects: effects(3),
    });
    expect((smaller.value as unknown[]).slice(0, 4)).toEqual(['undefined', true, 'function', 'function']);
  });

  it('never leaves a prewarmed worker behind closeCodeSandboxes, even one still starting', async () => {
    await closeCodeSandboxes();
    expect(sandboxWorkerCount()).toBe(0);
    prewarmCodeSandbox();
    prewarmCodeSandbox();
    expect(sandboxWorkerCount()).toBe(1);
    await closeCodeSandboxes();
    expect(sandboxWorkerCount()).toBe(0);
    prewarmCodeSandbox();
    // The program runs on the prewarmed worker: no second one.
    expect((await runCode('return 1;', { tools: [] })).value).toBe(1);
    expect(sandboxWorkerCount()).toBe(1);
    await closeCodeSandboxes();
    expect(sandboxWorkerCount()).toBe(0);
  });

  it('starts the worker when a code call starts streaming, runs the program on it, and leaves none behind', async () => {
    await closeCodeSandboxes();
    const tools = new ToolRegistry([createCodeModeTool({ tools: [] })]);
    const code = JSON.stringify({ code: 'return 6 * 7;' });
    const execution = executeStreamingAction(tools, { id: 'call_1', toolName: CODE_MODE_TOOL_NAME });
    execution.push(code.slice(0, 5));
    await new Promise((resolve) => setImmediate(resolve));
    // The model is still writing the program: its worker is already starting.
    expect(sandboxWorkerCount()).toBe(1);
    execution.push(code.slice(5));
    execution.complete({ id: 'call_1', toolName: CODE_MODE_TOOL_NAME, args: JSON.parse(code) });
    const observation = await execution.observation;
    expect(JSON.parse(String(observation.output)).value).toBe(42);
    expect(sandboxWorkerCount()).toBe(1);
    // An answer that will not run leaves its prewarmed worker idle, and closing ends it.
    await closeCodeSandboxes();
    const discarded = executeStreamingAction(tools, { id: 'call_2', toolName: CODE_MODE_TOOL_NAME });
    discarded.push(code.slice(0, 5));
    await new Promise((resolve) => setImmediate(resolve));
    expect(sandboxWorkerCount()).toBe(1);
    discarded.abort('the answer was discarded');
    expect((await discarded.observation).status).toBe('aborted');
    await closeCodeSandboxes();
    expect(sandboxWorkerCount()).toBe(0);
  });
});

describe('call results', () => {
  it('reach the program whether it is still blocked waiting for them or went back to its event loop', async () => {
    const pause = defineTool({
      name: 'pause',
      description: 'Answers after ms milliseconds.',
      input: z.object({ ms: z.number() }),
      execute: async ({ ms }) => {
        await new Promise((resolve) => setTimeout(resolve, ms));
        return ms;
      },
    });
    // 0 ms: the worker is still blocked on the result counter; 120 ms: past its 50 ms wait, the result comes as a
    // message; then both kinds at once.
    const result = await runCode(
      'const quick = await pause({ ms: 0 });\nconst slow = await pause({ ms: 120 });\n' +
        'const both = await Promise.all([pause({ ms: 90 }), pause({ ms: 0 }), pause({ ms: 60 })]);\n' +
        'return [quick, slow, ...both];',
      { tools: [pause] },
    );
    expect(result.value).toEqual([0, 120, 90, 0, 60]);
    expect(result.calls).toHaveLength(5);
  });
});
