import { defineTool } from '@org/tools';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CodeAbortedError,
  CodeLimitError,
  CodeModeOptionsError,
  closeCodeSandboxes,
  configureCodeSandboxes,
  runCode,
} from './index.js';

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

  it('refuses a cap that is not a whole number from 1', () => {
    for (const maxWorkers of [0, -1, 1.5, Number.NaN]) {
      expect(() => configureCodeSandboxes({ maxWorkers })).toThrow(CodeModeOptionsError);
    }
  });
});
