import { defineTool } from '@org/tools';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { shopTools } from './__fixtures__/shop-tools.js';
import { CodeModeOptionsError, closeCodeSandboxes, formatCodeResult, runCode } from './index.js';

afterAll(() => closeCodeSandboxes());

const big = defineTool({
  name: 'big',
  description: 'A large output.',
  input: z.object({ n: z.number() }),
  execute: ({ n }) => ({ n, text: 'y'.repeat(20_000) }),
});

describe('formatCodeResult', () => {
  it('keeps every failure within the budget, and cuts the value and console with a marker', async () => {
    const result = await runCode(
      `const settled = await Promise.allSettled([add({ a: 'x', b: 1 }), get_order({ id: 'nope' }), big({ n: 1 })]);
console.log('z'.repeat(20000));
return { text: 'v'.repeat(50000), statuses: settled.map((s) => s.status) };`,
      { tools: [...shopTools, big] },
    );
    expect(result.status).toBe('success');
    const text = formatCodeResult(result, { budgetBytes: 4_000 });
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4_000);
    const body = JSON.parse(text);
    expect(Object.keys(body.failedCalls)).toEqual(['#1 add', '#2 get_order']);
    expect(body.failedCalls['#1 add'].code).toBe('invalid_tool_arguments');
    expect(body.failedCalls['#2 get_order'].message).toContain('No order nope');
    expect(String(body.value)).toContain('truncated');
    expect(String(body.console)).toContain('truncated');
  });

  it('after a failure, lists the calls that took effect with their outputs', async () => {
    const result = await runCode(
      "const order = await get_order({ id: 'o2' });\nawait add({ a: order.total, b: 1 });\nthrow new Error('stop here');",
      { tools: shopTools },
    );
    const body = JSON.parse(formatCodeResult(result, { budgetBytes: Number.POSITIVE_INFINITY }));
    expect(body.status).toBe('error');
    expect(body.error.message).toContain('line 3');
    expect(body.tookEffect).toEqual({
      '#1 get_order': { id: 'o2', total: 25.5, paid: false },
      '#2 add': 26.5,
    });
  });

  it('refuses a budget that is not a limit', () => {
    const result = {
      status: 'success' as const,
      value: 1,
      console: [],
      calls: [],
      error: undefined,
      unusedEarlyCalls: [],
      durationMs: 0,
      cpuMs: 0,
    };
    expect(() => formatCodeResult(result, { budgetBytes: Number.NaN })).toThrow(CodeModeOptionsError);
  });
});

describe('a program that ends while calls still run', () => {
  it('stops them, reports them aborted, and ignores their late results', async () => {
    let finish: (() => void) | undefined;
    const slow = defineTool({
      name: 'slow',
      description: 'Ignores its signal and answers late.',
      input: z.object({}),
      execute: () =>
        new Promise((resolve) => {
          finish = () => resolve('late');
        }),
    });
    const result = await runCode("slow({});\nreturn 'done';", { tools: [slow] });
    expect(result.value).toBe('done');
    expect(result.calls.map((call) => call.observation.status)).toEqual(['aborted']);
    finish?.();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await runCode('return 7;', { tools: [slow] })).value).toBe(7);
  });

  it('never runs the calls still waiting for a slot', async () => {
    let started = 0;
    const slow = defineTool({
      name: 'slow',
      description: 'Answers late.',
      input: z.object({ n: z.number() }),
      execute: (_args, context) =>
        new Promise((resolve) => {
          started += 1;
          context.signal.addEventListener('abort', () => resolve('stopped'));
        }),
    });
    const result = await runCode("for (let n = 0; n < 5; n++) slow({ n });\nreturn 'done';", {
      tools: [slow],
      maxConcurrency: 1,
    });
    expect(result.value).toBe('done');
    expect(started).toBeLessThanOrEqual(1);
    expect(result.calls).toHaveLength(5);
    expect(result.calls.every((call) => call.observation.status === 'aborted')).toBe(true);
  });
});
