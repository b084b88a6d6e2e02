import type { RunEvent } from '@org/core';
import { defineTool } from '@org/tools';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { shopTools } from './__fixtures__/shop-tools.js';
import {
  CodeAbortedError,
  CodeLimitError,
  type CodeLimits,
  CodeNeverSettlesError,
  CodeReturnValueError,
  CodeRuntimeError,
  CodeSyntaxError,
  closeCodeSandboxes,
  formatCodeResult,
  runCode,
} from './index.js';

afterAll(() => closeCodeSandboxes());

/** A tool that records how many of its calls run at once, and waits until `release` is called. */
function gatedTool() {
  let active = 0;
  let peak = 0;
  const waiting: (() => void)[] = [];
  const tool = defineTool({
    name: 'slow_echo',
    description: 'Echoes after a while.',
    input: z.object({ value: z.number() }),
    execute: async ({ value }) => {
      active += 1;
      peak = Math.max(peak, active);
      await new Promise<void>((resolve) => waiting.push(resolve));
      active -= 1;
      return value;
    },
  });
  return {
    tool,
    peak: () => peak,
    /** Releases the calls waiting now, repeatedly, until `done` settles. */
    async releaseUntil(done: Promise<unknown>): Promise<void> {
      let finished = false;
      void done.finally(() => {
        finished = true;
      });
      while (!finished) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        for (const release of waiting.splice(0)) release();
      }
    },
    waitingCount: () => waiting.length,
  };
}

describe('runCode', () => {
  it('runs a TypeScript program over tool results: list, each, aggregate', async () => {
    const result = await runCode(
      `type Order = { id: string; total: number; paid: boolean };
const ids = await list_orders({});
const orders: Order[] = await Promise.all(ids.map((o: { id: string }) => get_order({ id: o.id })));
console.log('orders', orders.length);
return { unpaid: orders.filter((o) => !o.paid).reduce((sum, o) => sum + o.total, 0) };`,
      { tools: shopTools },
    );
    expect(result.status).toBe('success');
    expect(result.value).toEqual({ unpaid: 42.5 });
    expect(result.console).toEqual([{ level: 'log', text: 'orders 3' }]);
    expect(result.calls.map((call) => call.toolName)).toEqual([
      'list_orders',
      'get_order',
      'get_order',
      'get_order',
    ]);
    expect(result.calls.map((call) => call.observation.actionId)).toEqual([
      'code/1',
      'code/2',
      'code/3',
      'code/4',
    ]);
  });

  it('runs Promise.all calls in parallel, up to maxConcurrency', async () => {
    const gate = gatedTool();
    const program = 'return await Promise.all([1, 2, 3, 4, 5].map((value) => slow_echo({ value })));';
    const unbounded = runCode(program, { tools: [gate.tool] });
    // All five wait at once before any is released: they really run side by side.
    while (gate.waitingCount() < 5) await new Promise((resolve) => setTimeout(resolve, 5));
    await gate.releaseUntil(unbounded);
    expect((await unbounded).value).toEqual([1, 2, 3, 4, 5]);
    expect(gate.peak()).toBe(5);

    const limitedGate = gatedTool();
    const limited = runCode(program, { tools: [limitedGate.tool], maxConcurrency: 2 });
    await limitedGate.releaseUntil(limited);
    expect((await limited).value).toEqual([1, 2, 3, 4, 5]);
    expect(limitedGate.peak()).toBe(2);
  });

  it('starts a call the program made before computing beside the computation, not after it', async () => {
    const started = new Map<string, number>();
    const mark = defineTool({
      name: 'mark',
      description: 'Records when it started.',
      input: z.object({ label: z.string() }),
      execute: ({ label }) => {
        started.set(label, performance.now());
        return label;
      },
    });
    // The calls of one slice go to the host together; one made before a long computation must not wait for its end.
    const result = await runCode(
      "const first = mark({ label: 'before' });\n" +
        'let total = 0;\nfor (let i = 0; i < 5e6; i++) total += i % 7;\n' +
        "await mark({ label: 'after' });\nreturn [await first, total > 0];",
      { tools: [mark], limits: { cpuTimeMs: 10_000 } },
    );
    expect(result.value).toEqual(['before', true]);
    // The computation takes well over 50 ms in the sandbox; the first call ran while it did.
    expect(started.get('after')! - started.get('before')!).toBeGreaterThan(50);
  });

  it('validates and coerces every call as a plan step does, and hands failures to the program as ToolCallError', async () => {
    const result = await runCode(
      `const sum = await add({ a: '2', b: 3 });
let failure;
try { await add({ a: 'two', b: 3 }); } catch (error) { failure = { name: error.name, code: error.code, status: error.status }; }
return { sum, failure };`,
      { tools: shopTools },
    );
    expect(result.value).toEqual({
      sum: 5,
      failure: { name: 'ToolCallError', code: 'invalid_tool_arguments', status: 'error' },
    });
    expect(result.calls[1]?.observation.status).toBe('error');
  });

  it("applies a schema's transform once: the validated arguments run as they are", async () => {
    const shout = defineTool({
      name: 'shout',
      description: 'Returns its text.',
      input: z.object({ text: z.string().transform((text) => `${text}!`) }),
      execute: ({ text }) => text,
    });
    const result = await runCode("return await shout({ text: 'hi' });", { tools: [shout] });
    expect(result.value).toBe('hi!');
  });

  it('refuses a tool that needs approval with plan mode advice, unless approveCall approves it', async () => {
    const program = `try { return await refund_order({ id: 'o1' }); } catch (error) { return error.message; }`;
    const refused = await runCode(program, { tools: shopTools });
    expect(refused.value).toBe(
      "Call to 'refund_order' was not run: tool 'refund_order' needs approval, which a program cannot ask for. Call 'refund_order' directly instead.",
    );
    expect(refused.calls[0]?.observation).toMatchObject({
      status: 'blocked',
      error: { code: 'approval_required' },
    });
    const approved = await runCode(program, { tools: shopTools, approveCall: () => true });
    expect(approved.value).toEqual({ refunded: 'o1' });
    // An approveCall that throws refuses the call (failing closed) and says why, in plan mode's words.
    const failing = await runCode(program, {
      tools: shopTools,
      approveCall: () => {
        throw new Error('approval service down');
      },
    });
    expect(failing.value).toBe(
      "Call to 'refund_order' was not run: deciding whether tool 'refund_order' needs approval failed (approval service down).",
    );
    expect(failing.calls[0]?.observation).toMatchObject({
      status: 'blocked',
      error: { code: 'approval_required', details: { toolName: 'refund_order' } },
    });
  });

  it('decides approval on the validated, coerced arguments, and runs exactly those', async () => {
    const ran: unknown[] = [];
    const approvals: unknown[] = [];
    const deleteFiles = defineTool({
      name: 'delete_files',
      description: 'Deletes files.',
      input: z.object({ force: z.boolean() }),
      needsApproval: (args) => args.force === true,
      execute: (args) => {
        ran.push(args);
        return { deleted: true };
      },
    });
    // "true" is coerced to true: the rule sees true, so the call needs approval the program cannot give.
    const refused = await runCode(`return await delete_files({ force: "true" });`, { tools: [deleteFiles] });
    expect(refused.calls[0]?.observation).toMatchObject({
      status: 'blocked',
      error: { code: 'approval_required' },
    });
    expect(ran).toEqual([]);
    // approveCall sees the coerced arguments, and the tool gets exactly them.
    const approved = await runCode(`return await delete_files({ force: "true" });`, {
      tools: [deleteFiles],
      approveCall: (action) => {
        approvals.push(action.args);
        return true;
      },
    });
    expect(approved.value).toEqual({ deleted: true });
    expect(approvals).toEqual([{ force: true }]);
    expect(ran).toEqual([{ force: true }]);
    // Invalid arguments are the call's observation, before any approval is asked for.
    const invalid = await runCode(
      `try { return await delete_files({ force: "maybe" }); } catch (error) { return error.code; }`,
      { tools: [deleteFiles], approveCall: () => true },
    );
    expect(invalid.calls[0]?.observation).toMatchObject({
      status: 'error',
      error: { code: 'invalid_tool_arguments' },
    });
    expect(approvals).toHaveLength(1);
  });

  it('isolates a throwing onEvent listener: every call settles, the program completes', async () => {
    let told = 0;
    const onEvent = (): void => {
      told += 1;
      throw new Error('a listener bug');
    };
    const program = `
const refused = await get_order([1]).catch((error) => error.code);
const blocked = await refund_order({ id: 'o1' }).catch((error) => error.code);
const order = await get_order({ id: 'o1' });
return { refused, blocked, id: order.id };`;
    const result = await runCode(program, { tools: shopTools, onEvent });
    expect(result.error).toBeUndefined();
    expect(result.value).toEqual({
      refused: 'invalid_tool_arguments',
      blocked: 'approval_required',
      id: 'o1',
    });
    expect(result.calls.map((call) => call.observation.status)).toEqual(['error', 'blocked', 'success']);
    expect(told).toBeGreaterThanOrEqual(4);
  });

  it('settles a call whose executor rejects, as an error observation', async () => {
    const result = await runCode(`return await get_order({ id: 'o1' }).catch((error) => error.code);`, {
      tools: shopTools,
      executeCall: () => Promise.reject(new Error('journal unavailable')),
    });
    expect(result.value).toBe('tool_execution_failed');
    expect(result.calls[0]?.observation.error?.message).toContain('journal unavailable');
  });

  it('applies hooks, per-call timeouts and paired events with the program prefix', async () => {
    const events: RunEvent[] = [];
    const never = defineTool({
      name: 'never_returns',
      description: 'Hangs.',
      input: z.object({}),
      execute: (_args, context) =>
        new Promise((_resolve, reject) =>
          context.signal.addEventListener('abort', () => reject(new Error('stopped'))),
        ),
    });
    const result = await runCode(
      `const results = await Promise.allSettled([get_order({ id: 'o1' }), never_returns({}), get_order({ id: 'o2' })]);
return results.map((r) => r.status === 'fulfilled' ? r.value.id : r.reason.code);`,
      {
        tools: [...shopTools, never],
        actionIdPrefix: 'call_9/',
        onEvent: (event) => events.push(event),
        callOptions: {
          timeoutMs: 50,
          hooks: {
            beforeToolUse: ({ action }) =>
              action.args.id === 'o2' ? { decision: 'block', reason: 'o2 is private' } : undefined,
          },
        },
      },
    );
    expect(result.value).toEqual(['o1', 'timeout', 'blocked_by_hook']);
    const started = events
      .filter((event) => event.type === 'tool-call-started')
      .map((event) => event.action.id);
    const finished = events
      .filter((event) => event.type === 'tool-call-finished')
      .map((event) => event.observation.actionId);
    expect(started.sort()).toEqual(['call_9/1', 'call_9/2', 'call_9/3']);
    expect(finished.sort()).toEqual(['call_9/1', 'call_9/2', 'call_9/3']);
  });

  it('reports a syntax error with its line and column, and runs no tool', async () => {
    const typescript = await runCode('await list_orders({});\nconst x: number = ;\n', { tools: shopTools });
    expect(typescript.status).toBe('error');
    expect(CodeSyntaxError.isInstance(typescript.error)).toBe(true);
    expect(typescript.error).toMatchObject({ code: 'code_syntax_error', line: 2 });
    expect(typescript.calls).toEqual([]);

    // Past sucrase (which only reads types), QuickJS finds it: the line and column are still the model's.
    const javascript = await runCode('await list_orders({});\nreturn 1;\nlet a = 1; let a = 2;', {
      tools: shopTools,
    });
    expect(javascript.error).toMatchObject({ code: 'code_syntax_error', line: 3 });
    expect(javascript.calls).toEqual([]);

    const firstLine = await runCode('return 1 +* 2;', { tools: shopTools });
    expect(firstLine.error).toMatchObject({ code: 'code_syntax_error', line: 1, column: 11 });
  });

  it('reports a throw with its line and column, and the calls that already took effect', async () => {
    const result = await runCode(
      `const first = await get_order({ id: 'o1' });
const second = await get_order({ id: 'o2' });
throw new RangeError('total too small: ' + (first.total + second.total));`,
      { tools: shopTools },
    );
    expect(CodeRuntimeError.isInstance(result.error)).toBe(true);
    expect(result.error).toMatchObject({ errorName: 'RangeError', line: 3, column: expect.any(Number) });
    expect(result.error?.message).toContain('total too small: 35.5');
    expect(result.calls.map((call) => call.observation.status)).toEqual(['success', 'success']);
    const text = JSON.parse(formatCodeResult(result));
    expect(text.status).toBe('error');
    expect(text.error.code).toBe('code_threw');
    expect(Object.keys(text.tookEffect)).toEqual(['#1 get_order', '#2 get_order']);
    expect(text.summary).toContain('do not repeat them');
  });

  it('tells a thrown null from running out of memory', async () => {
    const result = await runCode('await add({ a: 1, b: 2 });\nthrow null;', { tools: shopTools });
    expect(result.error).toMatchObject({ code: 'code_threw', errorName: 'a value that is not an Error' });
    expect(result.error?.message).toContain('null');
  });

  it.each([
    ['a toJSON that loops', 'throw { toJSON() { while (true) {} } };'],
    [
      'a message getter that loops',
      "const e = new Error('x');\nObject.defineProperty(e, 'message', { get() { while (true) {} } });\nthrow e;",
    ],
    ['a name getter that loops', "throw { get name() { while (true) {} }, message: 'm' };"],
  ])(
    'reads a thrown value within the CPU limit: %s ends at cpuTimeMs, not the wall time',
    async (_name, source) => {
      const result = await runCode(source, { tools: [], limits: { cpuTimeMs: 200, wallTimeMs: 60_000 } });
      expect(result.error).toMatchObject({ code: 'code_limit_exceeded', limit: 'cpuTimeMs' });
    },
  );

  it('describes thrown objects that are not errors by their message, or as JSON', async () => {
    const coded = await runCode("throw { name: 'Refused', message: 'no', code: 'E1' };", { tools: [] });
    expect(coded.error).toMatchObject({ code: 'code_threw', errorName: 'Refused' });
    expect(coded.error?.message).toContain('no (code E1)');
    const plain = await runCode('throw { a: 1 };', { tools: [] });
    expect(plain.error?.message).toContain('{"a":1}');
  });

  it('ends a program waiting on a promise nothing can settle at once', async () => {
    const started = performance.now();
    const result = await runCode('await get_order({ id: "o1" });\nawait new Promise(() => {});', {
      tools: shopTools,
    });
    expect(CodeNeverSettlesError.isInstance(result.error)).toBe(true);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(result.calls).toHaveLength(1);
  });

  it('refuses return values that are not JSON', async () => {
    for (const program of ['return () => 1;', 'return { n: 10n };', 'const a = {}; a.self = a; return a;']) {
      const result = await runCode(program, { tools: shopTools });
      expect(CodeReturnValueError.isInstance(result.error), program).toBe(true);
    }
    expect((await runCode('return;', { tools: shopTools })).value).toBeUndefined();
  });

  it('gives Date.now and Math.random from the effects seam, so a replay takes the same path', async () => {
    const program = 'return [Date.now(), new Date().getTime(), Math.random(), Math.random()];';
    const effects = { now: () => 1_700_000_000_000, randomSeed: () => 42 };
    const first = await runCode(program, { tools: shopTools, effects });
    const second = await runCode(program, { tools: shopTools, effects });
    expect(first.value).toEqual(second.value);
    expect((first.value as number[]).slice(0, 2)).toEqual([1_700_000_000_000, 1_700_000_000_000]);
  });

  it('reaches no real clock through any path to Date, and tells local time as UTC', async () => {
    const frozen = Date.UTC(2023, 10, 14, 22, 13, 20);
    const program = `
const D = new Date().constructor;
class Later extends Date {}
return {
  viaConstructor: D.now(),
  viaNewConstructor: new D().getTime(),
  viaPrototype: Date.prototype.constructor.now(),
  viaGetPrototypeOf: Object.getPrototypeOf(new Date()).constructor.now(),
  viaReflect: Reflect.construct(D, []).getTime(),
  viaSubclass: [new Later().getTime(), new Later() instanceof Later],
  called: Date() === new Date().toString(),
  sameConstructor: D === Date,
  weak: [typeof WeakRef, typeof FinalizationRegistry],
  local: [new Date().getHours(), new Date().getTimezoneOffset(), new Date(2020, 0, 2, 3, 4).toISOString()],
  parsed: [Date.parse('2020-01-02T03:04'), new Date('2020-01-02T03:04').getTime(), Date.parse('Jan 2 2020 03:04')],
  text: new Date().toString(),
};`;
    const result = await runCode(program, { tools: [], effects: { now: () => frozen } });
    expect(result.error).toBeUndefined();
    expect(result.value).toEqual({
      viaConstructor: frozen,
      viaNewConstructor: frozen,
      viaPrototype: frozen,
      viaGetPrototypeOf: frozen,
      viaReflect: frozen,
      viaSubclass: [frozen, true],
      called: true,
      sameConstructor: true,
      weak: ['undefined', 'undefined'],
      local: [22, 0, '2020-01-02T03:04:00.000Z'],
      parsed: [Date.UTC(2020, 0, 2, 3, 4), Date.UTC(2020, 0, 2, 3, 4), Date.UTC(2020, 0, 2, 3, 4)],
      text: 'Tue Nov 14 2023 22:13:20 GMT+0000',
    });
  });

  it('has no network, timers, modules or host objects', async () => {
    const result = await runCode(
      'return [typeof fetch, typeof setTimeout, typeof require, typeof process, typeof globalThis.__call, typeof import.meta];',
      { tools: shopTools },
    );
    // import.meta is a syntax error outside a module: the program learns that, and nothing runs.
    expect(result.error?.code).toBe('code_syntax_error');
    const globals = await runCode(
      'return [typeof fetch, typeof setTimeout, typeof require, typeof process, typeof __call, typeof __console];',
      { tools: shopTools },
    );
    expect(globals.value).toEqual([
      'undefined',
      'undefined',
      'undefined',
      'undefined',
      'undefined',
      'undefined',
    ]);
  });

  it('aborts with the signal: running calls are stopped and reported', async () => {
    const controller = new AbortController();
    const gate = gatedTool();
    const pending = runCode('return await slow_echo({ value: 1 });', {
      tools: [gate.tool],
      signal: controller.signal,
    });
    while (gate.waitingCount() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error('user left'));
    const result = await pending;
    expect(CodeAbortedError.isInstance(result.error)).toBe(true);
    expect(result.error?.message).toContain('user left');
    expect(result.calls[0]?.observation.status).toBe('aborted');
  });

  it('stops each limit with a typed error naming it', async () => {
    const cases: [string, Partial<CodeLimits>, string][] = [
      ['while (true) {}', { cpuTimeMs: 100 }, 'cpuTimeMs'],
      [
        'for (let i = 0; i < 50; i++) get_order({ id: "o1" });\nreturn 1;',
        { maxToolCalls: 10 },
        'maxToolCalls',
      ],
      ['return "x".repeat(5000);', { maxReturnBytes: 1000 }, 'maxReturnBytes'],
      [
        'for (let i = 0; i < 100; i++) console.log("line " + i);',
        { maxConsoleBytes: 200 },
        'maxConsoleBytes',
      ],
      ['return (await list_orders({})).length;', { maxInputBytes: 10 }, 'maxInputBytes'],
      ['function f(n) { return f(n + 1) + 1; }\nreturn f(0);', {}, 'stackBytes'],
      [
        'const parts = [];\nwhile (true) parts.push("x".repeat(1 << 16) + parts.length);',
        { memoryBytes: 16 * 1024 * 1024 },
        'memoryBytes',
      ],
    ];
    for (const [program, limits, limit] of cases) {
      const result = await runCode(program, { tools: shopTools, limits });
      expect(CodeLimitError.isInstance(result.error), program).toBe(true);
      expect(result.error, program).toMatchObject({ code: 'code_limit_exceeded', limit });
    }
  });

  it('stops a program past its wall time, even while a call is running', async () => {
    // A warm worker first: on a loaded machine a cold one could spend the deadline starting.
    await runCode('return 1;', { tools: shopTools });
    const gate = gatedTool();
    const pending = runCode('return await slow_echo({ value: 1 });', {
      tools: [gate.tool],
      limits: { wallTimeMs: 1_500 },
    });
    const result = await pending;
    expect(result.error).toMatchObject({ code: 'code_limit_exceeded', limit: 'wallTimeMs' });
    expect(result.calls[0]?.observation.status).toBe('aborted');
    // The pool replaces the terminated worker: the next program runs.
    expect((await runCode('return 2;', { tools: shopTools })).value).toBe(2);
  });

  it('throws CodeModeOptionsError for bad options', async () => {
    await expect(
      runCode('return 1', { tools: shopTools, limits: { cpuTimeMs: Number.NaN } }),
    ).rejects.toMatchObject({
      code: 'invalid_code_mode_options',
      option: 'limits.cpuTimeMs',
    });
    await expect(runCode('return 1', { tools: shopTools, maxConcurrency: 0 })).rejects.toMatchObject({
      option: 'maxConcurrency',
    });
    // A WebAssembly memory addresses at most 4 GiB.
    await expect(
      runCode('return 1', { tools: shopTools, limits: { memoryBytes: 8 * 1024 ** 3 } }),
    ).rejects.toMatchObject({ code: 'invalid_code_mode_options', option: 'limits.memoryBytes' });
  });

  it('refuses a source past maxSourceBytes before parsing it, as a limit the model reads', async () => {
    const result = await runCode(`return 1;${' '.repeat(100)}`, {
      tools: [],
      limits: { maxSourceBytes: 64 },
    });
    expect(CodeLimitError.isInstance(result.error)).toBe(true);
    expect(result.error).toMatchObject({ limit: 'maxSourceBytes', maximum: 64 });
    expect(result.error?.message).toContain('To fix: write a shorter program');
    const within = await runCode('return 1;', { tools: [], limits: { maxSourceBytes: 64 } });
    expect(within.value).toBe(1);
  });

  it('refuses arguments past their size limit inside the sandbox, before they are copied out', async () => {
    const ran: unknown[] = [];
    const echo = defineTool({
      name: 'echo_text',
      description: 'Echoes.',
      input: z.object({ text: z.string() }),
      execute: ({ text }) => {
        ran.push(text);
        return text.length;
      },
    });
    const result = await runCode(
      `try { return await echo_text({ text: 'x'.repeat(2 * 1024 * 1024) }); } catch (error) { return error.message; }`,
      { tools: [echo] },
    );
    expect(result.value).toBe('echo_text: the arguments are larger than 1048576 bytes of JSON');
    expect(result.calls).toEqual([]);
    expect(ran).toEqual([]);
  });

  it("counts the text of failed calls' errors against maxInputBytes", async () => {
    const failing = defineTool({
      name: 'always_fails',
      description: 'Fails.',
      input: z.object({}),
      execute: () => {
        throw new Error('x'.repeat(400));
      },
    });
    const result = await runCode(
      `for (let i = 0; i < 10; i++) { try { await always_fails({}); } catch {} }\nreturn 'done';`,
      { tools: [failing], limits: { maxInputBytes: 1000 } },
    );
    expect(result.error).toMatchObject({ code: 'code_limit_exceeded', limit: 'maxInputBytes' });
  });

  it('tells the model, at the wall time, that a loop inside one built-in cannot be interrupted', () => {
    const error = new CodeLimitError({ limit: 'wallTimeMs', maximum: 1000 });
    expect(error.message).toContain('a loop inside one built-in');
  });
});
