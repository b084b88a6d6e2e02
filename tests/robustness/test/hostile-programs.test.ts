/**
 * Issue 24: programs the model writes for code mode are hostile input. Each hostile program ends within its limit
 * with a typed error the model can read, the host is unharmed (the next program runs, the built-in prototypes are as
 * they were: the prototype guard of this suite checks every test), and a property holds random programs to a
 * reference evaluation outside the sandbox.
 */

import {
  CODE_MODE_TOOL_NAME,
  CodeLimitError,
  type CodeLimits,
  CodeNeverSettlesError,
  type CodeResult,
  CodeReturnValueError,
  CodeRuntimeError,
  closeCodeSandboxes,
  createCodeModeTool,
  type RunCodeOptions,
  runCode,
} from '@org/code-mode';
import { defineTool, executeStreamingAction, type Tool, ToolRegistry } from '@org/tools';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { NUM_RUNS, propertyTimeout } from './support/run-helpers.js';

afterAll(() => closeCodeSandboxes());

let addCalls = 0;
const add = defineTool({
  name: 'add',
  description: 'Adds two numbers.',
  input: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => {
    addCalls += 1;
    return a + b;
  },
});
const echo = defineTool({
  name: 'echo',
  description: 'Returns its arguments.',
  input: { type: 'object', properties: {}, additionalProperties: true },
  execute: (args: Record<string, unknown>) => args,
});
const huge = defineTool({
  name: 'huge',
  description: 'Returns a large text.',
  input: z.object({ megabytes: z.number() }),
  execute: ({ megabytes }) => 'x'.repeat(megabytes * 1024 * 1024),
});
const tools: Tool[] = [add, echo, huge] as Tool[];

/** Runs a hostile program, then proves the host still runs an ordinary one. */
async function runHostile(
  source: string,
  limits: Partial<CodeLimits> = {},
  options: Partial<RunCodeOptions> = {},
) {
  const result = await runCode(source, { tools, limits, ...options });
  const after = await runCode('return await add({ a: 1, b: 2 });', { tools });
  expect(after.value, 'the next program runs').toBe(3);
  return result;
}

function expectLimit(result: Awaited<ReturnType<typeof runCode>>, limit: string): void {
  expect(CodeLimitError.isInstance(result.error), `${result.error?.message}`).toBe(true);
  expect(result.error).toMatchObject({ code: 'code_limit_exceeded', limit });
  // The model reads what to change.
  expect(result.error?.message).toContain('To fix:');
}

describe('issue 24: hostile programs end within their limits with a typed error; the host is unharmed', () => {
  it('an infinite loop: stopped by the CPU limit (interrupt handler)', async () => {
    const result = await runHostile('let i = 0;\nwhile (true) { i++; }', { cpuTimeMs: 200 });
    expectLimit(result, 'cpuTimeMs');
    expect(result.durationMs).toBeLessThan(5_000);
  });

  it('a loop inside one built-in, where the interrupt handler never runs: the worker is terminated at the wall time', async () => {
    const result = await runHostile('return Array(2 ** 32 - 1).indexOf(1);', {
      wallTimeMs: 1_000,
      cpuTimeMs: 200,
    });
    expectLimit(result, 'wallTimeMs');
    expect(result.durationMs).toBeLessThan(5_000);
  });

  it.each([
    ['arrays', 'const kept = [];\nwhile (true) kept.push(new Array(100000).fill(kept.length));'],
    ['a doubling string', 'let text = "x";\nwhile (true) text = text.repeat(2);'],
    ['objects', 'const kept = [];\nfor (let i = 0; ; i++) kept.push({ i, text: "item " + i });'],
  ])(
    'a memory bomb (%s): stopped by the memory limit of its own WebAssembly memory',
    async (_name, source) => {
      const result = await runHostile(source, { memoryBytes: 16 * 1024 * 1024, cpuTimeMs: 10_000 });
      expectLimit(result, 'memoryBytes');
    },
  );

  it.each([
    ['a recursive function', 'function down(n) { return down(n + 1) + 1; }\nreturn down(0);'],
    [
      'recursion caught and repeated',
      'function down(n) { return down(n + 1) + 1; }\nfor (let i = 0; i < 100; i++) { try { down(0); } catch {} }\nreturn down(0);',
    ],
    ['deeply nested JSON.parse', 'return JSON.parse("[".repeat(1000000) + "]".repeat(1000000));'],
    [
      'a deeply nested value printed',
      'let v = [];\nfor (let i = 0; i < 100000; i++) v = [v];\nreturn String(v);',
    ],
  ])('deep recursion (%s): stopped by the stack limit, never the host stack', async (_name, source) => {
    const result = await runHostile(source);
    expectLimit(result, 'stackBytes');
  });

  it('a loop making 10^6 tool calls: stopped at maxToolCalls; no more calls ran than allowed', async () => {
    addCalls = 0;
    const result = await runHostile(
      'const all = [];\nfor (let i = 0; i < 1000000; i++) all.push(add({ a: i, b: 1 }));\nreturn (await Promise.all(all)).length;',
      { maxToolCalls: 100 },
    );
    expectLimit(result, 'maxToolCalls');
    // The ordinary program after it made one call.
    expect(addCalls).toBeLessThanOrEqual(101);
    expect(result.calls.length).toBeLessThanOrEqual(100);
  });

  it('escape attempts find nothing of the host', async () => {
    const probes = await runHostile(`
const fromFunction = (() => { try { return typeof (function () {}).constructor('return process')(); } catch (error) { return error.name; } })();
const fromObject = (() => { try { return typeof ({}).constructor.constructor('return this')().process; } catch (error) { return error.name; } })();
const viaTool = (() => { try { return typeof add.constructor.constructor('return require')(); } catch (error) { return error.name; } })();
const imported = await import('node:fs').then(() => 'loaded', (error) => 'refused');
const names = Object.getOwnPropertyNames(globalThis).filter((name) => /^(process|require|module|Buffer|fetch|setTimeout|setInterval|queueMicrotask)$|^__/.test(name));
return { fromFunction, fromObject, viaTool, imported, names, stack: typeof Error.prepareStackTrace };`);
    expect(probes.value).toEqual({
      fromFunction: 'ReferenceError',
      fromObject: 'undefined',
      viaTool: 'ReferenceError',
      imported: 'refused',
      names: [],
      stack: 'undefined',
    });
    const escaping = await runHostile("constructor.constructor('return process')().exit(1);");
    expect(CodeRuntimeError.isInstance(escaping.error)).toBe(true);
    expect(escaping.error).toMatchObject({ errorName: 'ReferenceError', line: 1 });
  });

  it('objects crafted to pollute the host prototypes arrive as plain own data', async () => {
    const result = await runHostile(`
const crafted = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}');
const echoed = await echo(crafted);
return { crafted, echoed, list: [crafted] };`);
    expect(result.status).toBe('success');
    const value = result.value as Record<string, Record<string, unknown>>;
    expect(Object.hasOwn(value.crafted as object, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(value.crafted)).toBe(Object.prototype);
    expect(Object.hasOwn(value.echoed as object, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.hasOwn(Object.prototype, 'polluted')).toBe(false);
  });

  it('a promise that never settles: ended at once, not at the wall time', async () => {
    const result = await runHostile('await add({ a: 1, b: 1 });\nawait new Promise(() => {});', {
      wallTimeMs: 30_000,
    });
    expect(CodeNeverSettlesError.isInstance(result.error)).toBe(true);
    expect(result.durationMs).toBeLessThan(5_000);
    expect(result.calls.map((call) => call.observation.status)).toEqual(['success']);
  });

  it('huge console output: stopped at maxConsoleBytes, what was written within it kept', async () => {
    const result = await runHostile('while (true) console.log("x".repeat(1000));', {
      maxConsoleBytes: 10_000,
    });
    expectLimit(result, 'maxConsoleBytes');
    const written = result.console.reduce((sum, entry) => sum + entry.text.length + 1, 0);
    expect(written).toBeLessThanOrEqual(10_000);
    expect(result.console.length).toBeGreaterThan(0);
  });

  it.each([
    ['a cycle', 'const a = { b: {} };\na.b.a = a;\nreturn a;'],
    ['a BigInt', 'return { total: 2n ** 64n };'],
    ['a function', 'return { run() {} };'],
    ['a symbol', 'return [Symbol("x")];'],
    ['a getter that throws', 'return { get x() { throw new Error("boom"); } };'],
  ])('a return value that is not JSON (%s): CodeReturnValueError', async (_name, source) => {
    const result = await runHostile(source);
    expect(CodeReturnValueError.isInstance(result.error), result.error?.message).toBe(true);
  });

  it('a toJSON that never ends: stopped by the CPU limit while the value is read', async () => {
    const result = await runHostile('return { toJSON() { while (true) {} } };', { cpuTimeMs: 200 });
    expectLimit(result, 'cpuTimeMs');
  });

  it.each([
    ['toJSON', 'throw { toJSON() { while (true) {} } };'],
    [
      'message getter',
      "const e = new Error('x');\nObject.defineProperty(e, 'message', { get() { while (true) {} } });\nthrow e;",
    ],
  ])(
    'a thrown value whose %s never ends: stopped by the CPU limit while it is read',
    async (_name, source) => {
      const result = await runHostile(source, { cpuTimeMs: 200, wallTimeMs: 60_000 });
      expectLimit(result, 'cpuTimeMs');
    },
  );

  it('the real clock is out of reach: every path to Date gives the frozen time', async () => {
    const frozen = 1_700_000_000_000;
    const result = await runHostile(
      `const D = new Date().constructor;
return [D.now(), new D().getTime(), Date.prototype.constructor.now(), Object.getPrototypeOf(new Date()).constructor.now(),
  Reflect.construct(D, []).getTime(), new (class extends Date {})().getTime(), typeof WeakRef, typeof FinalizationRegistry];`,
      {},
      { effects: { now: () => frozen } },
    );
    expect(result.value).toEqual([frozen, frozen, frozen, frozen, frozen, frozen, 'undefined', 'undefined']);
  });

  it('arguments that coerce into an approval-gated call: approval is decided on what would run', async () => {
    let deleted = 0;
    const deleteFiles = defineTool({
      name: 'delete_files',
      description: 'Deletes files.',
      input: z.object({ force: z.boolean() }),
      needsApproval: (args) => args.force === true,
      execute: () => {
        deleted += 1;
        return 'deleted';
      },
    });
    for (const force of ['"true"', '"yes"', '"1"', '"on"', '["true"]']) {
      const result = await runCode(
        `return await delete_files({ force: ${force} }).catch((error) => error.code);`,
        {
          tools: [deleteFiles],
        },
      );
      expect(['approval_required', 'invalid_tool_arguments'], force).toContain(result.value);
    }
    expect(deleted).toBe(0);
  });

  it('a throwing onEvent listener: the program completes and the host is unharmed', async () => {
    const result = await runHostile(
      'const refused = await add([1]).catch((error) => error.code);\nreturn [refused, await add({ a: 1, b: 1 })];',
      {},
      {
        onEvent: () => {
          throw new Error('a listener bug');
        },
      },
    );
    expect(result.value).toEqual(['invalid_tool_arguments', 2]);
  });

  it('a tool result too large for the sandbox: stopped at maxInputBytes before it enters', async () => {
    const result = await runHostile('const text = await huge({ megabytes: 12 });\nreturn text.length;');
    expectLimit(result, 'maxInputBytes');
    // The call itself succeeded and took effect: the model is told.
    expect(result.calls[0]?.observation.status).toBe('success');
  });

  it('a tool result within maxInputBytes but past the memory: a typed memory error, never a crash', async () => {
    const result = await runHostile(
      'const parts = [];\nfor (let i = 0; i < 6; i++) parts.push(await huge({ megabytes: 1 }));\nreturn parts.join("").length;',
      { memoryBytes: 16 * 1024 * 1024 },
    );
    expectLimit(result, 'memoryBytes');
  });
});

// Random programs: sequential calls, Promise.all, loops and conditionals over tool results.
type Expression =
  | { readonly kind: 'literal'; readonly value: number }
  | { readonly kind: 'variable'; readonly index: number };
type Operation =
  | { readonly kind: 'call'; readonly a: Expression; readonly b: Expression }
  | { readonly kind: 'all'; readonly pairs: readonly (readonly [Expression, Expression])[] }
  | { readonly kind: 'loop'; readonly count: number; readonly b: Expression }
  | {
      readonly kind: 'branch';
      readonly left: Expression;
      readonly right: Expression;
      readonly whenTrue: Expression;
      readonly otherwise: Expression;
    };

const expression: fc.Arbitrary<Expression> = fc.oneof(
  fc.integer({ min: -50, max: 50 }).map((value) => ({ kind: 'literal', value }) as const),
  fc.nat(20).map((index) => ({ kind: 'variable', index }) as const),
);
const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constant('call' as const), a: expression, b: expression }),
  fc.record({
    kind: fc.constant('all' as const),
    pairs: fc.array(fc.tuple(expression, expression), { minLength: 1, maxLength: 4 }),
  }),
  fc.record({ kind: fc.constant('loop' as const), count: fc.nat(4), b: expression }),
  fc.record({
    kind: fc.constant('branch' as const),
    left: expression,
    right: expression,
    whenTrue: expression,
    otherwise: expression,
  }),
);

/** The program's text: each operation defines the next variable from earlier ones (a variable index wraps). */
function render(operations: readonly Operation[]): string {
  const lines: string[] = [];
  const show = (item: Expression, defined: number): string =>
    item.kind === 'literal' || defined === 0
      ? String(item.kind === 'literal' ? item.value : 0)
      : `v${item.index % defined}`;
  operations.forEach((op, defined) => {
    const name = `v${defined}`;
    if (op.kind === 'call')
      lines.push(
        `const ${name}: number = await add({ a: ${show(op.a, defined)}, b: ${show(op.b, defined)} });`,
      );
    else if (op.kind === 'all') {
      const calls = op.pairs.map(([a, b]) => `add({ a: ${show(a, defined)}, b: ${show(b, defined)} })`);
      lines.push(
        `const ${name} = (await Promise.all([${calls.join(', ')}])).reduce((sum, item) => sum + item, 0);`,
      );
    } else if (op.kind === 'loop') {
      lines.push(
        `let ${name} = 0;`,
        `for (let i = 0; i < ${op.count}; i++) ${name} = await add({ a: ${name} + i, b: ${show(op.b, defined)} });`,
      );
    } else {
      lines.push(
        `let ${name};`,
        `if (${show(op.left, defined)} > ${show(op.right, defined)}) ${name} = await add({ a: ${show(op.whenTrue, defined)}, b: 1 });`,
        `else ${name} = await add({ a: ${show(op.otherwise, defined)}, b: -1 });`,
      );
    }
  });
  lines.push(`return [${operations.map((_, index) => `v${index}`).join(', ')}];`);
  return lines.join('\n');
}

describe('issue 24: random programs in the sandbox match a reference evaluation outside it', () => {
  it(
    'property: the same return value and the same multiset of tool calls',
    async () => {
      const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
        ...args: string[]
      ) => (...values: unknown[]) => Promise<unknown>;
      await fc.assert(
        fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 8 }), async (operations) => {
          const source = render(operations);
          const sandboxCalls: string[] = [];
          const recordingAdd = defineTool({
            name: 'add',
            description: 'Adds two numbers.',
            input: z.object({ a: z.number(), b: z.number() }),
            execute: ({ a, b }) => {
              sandboxCalls.push(`${a}+${b}`);
              return a + b;
            },
          });
          const result = await runCode(source, { tools: [recordingAdd] });
          expect(result.error, source).toBeUndefined();

          // The reference: the same JavaScript, run by the test itself (trusted text it generated), types removed.
          const referenceCalls: string[] = [];
          const reference = new AsyncFunction('add', source.replace(/: number/g, ''));
          const expected = await reference(async ({ a, b }: { a: number; b: number }) => {
            referenceCalls.push(`${a}+${b}`);
            return a + b;
          });
          expect(result.value, source).toEqual(expected);
          expect([...sandboxCalls].sort(), source).toEqual([...referenceCalls].sort());
          expect(
            result.calls
              .map((call) => `${(call.args as { a: number }).a}+${(call.args as { b: number }).b}`)
              .sort(),
          ).toEqual([...referenceCalls].sort());
        }),
        { numRuns: Math.min(NUM_RUNS, 200) },
      );
    },
    propertyTimeout(30),
  );
});

describe('issue 24: a code call read while it streams', () => {
  /** Streams `text` into a code call in the given cut points; returns the observation and what started early. */
  async function streamCall(
    text: string,
    cuts: readonly number[],
    complete: Record<string, unknown> | undefined,
  ) {
    const early: string[] = [];
    const lookup = defineTool({
      name: 'lookup',
      description: 'Looks a key up.',
      input: z.object({ key: z.string() }),
      eager: true,
      execute: ({ key }) => {
        early.push(key);
        return key.length;
      },
    });
    const results: CodeResult[] = [];
    const registry = new ToolRegistry([
      createCodeModeTool({ tools: [lookup], onCodeResult: (result) => results.push(result) }),
    ]);
    const execution = executeStreamingAction(registry, { id: 'call_s', toolName: CODE_MODE_TOOL_NAME });
    let from = 0;
    for (const cut of [...cuts, text.length]) {
      execution.push(text.slice(from, cut));
      from = cut;
    }
    if (complete === undefined) execution.abort('the answer was discarded');
    else execution.complete({ id: 'call_s', toolName: CODE_MODE_TOOL_NAME, args: complete });
    const observation = await execution.observation;
    return { observation, results, early };
  }

  const cutsOf = (length: number) =>
    fc
      .uniqueArray(fc.integer({ min: 0, max: Math.max(0, length) }), { maxLength: 12 })
      .map((cuts) => cuts.sort((a, b) => a - b));

  it(
    'property: however the program is cut, the same result; each distinct literal call starts early once and is used, or reported unused',
    async () => {
      const key = fc.constantFrom('a', 'b', "o'1", 'x"y', 'é', '\\n', 'line\nbreak');
      await fc.assert(
        fc.asyncProperty(
          fc.array(key, { minLength: 1, maxLength: 4 }),
          fc.boolean(),
          fc.nat(1000),
          async (keys, comment, seed) => {
            const lines = keys.map(
              (k, index) => `const v${index} = await lookup({ key: ${JSON.stringify(k)} });`,
            );
            if (comment) lines.push(`// lookup({ key: 'unused' })`);
            lines.push(`return [${keys.map((_, index) => `v${index}`).join(', ')}];`);
            const code = lines.join('\n');
            const text = JSON.stringify({ code });
            const cuts = fc.sample(cutsOf(text.length), { numRuns: 1, seed })[0] ?? [];
            const { observation, results } = await streamCall(text, cuts, { code });
            expect(observation.status).toBe('success');
            const [result] = results;
            expect(result?.value).toEqual(keys.map((k) => k.length));
            const used = result?.calls.filter((call) => call.early === true).length ?? 0;
            const unused = result?.unusedEarlyCalls.length ?? 0;
            // Each distinct literal call started early once and the program took it; the one in a comment is reported.
            expect(used).toBe(new Set(keys).size);
            expect(unused).toBe(comment ? 1 : 0);
            expect(result?.unusedEarlyCalls.every((call) => call.action.args.key === 'unused')).toBe(true);
          },
        ),
        { numRuns: Math.min(NUM_RUNS, 100) },
      );
    },
    propertyTimeout(40),
  );

  it(
    'property: any text streamed as a code call ends with one observation; nothing throws, nothing leaks',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.string({ maxLength: 300 }), fc.boolean(), async (junk, completeIt) => {
          const text = `{"code":"lookup({ key: 'k' }); ${junk}`;
          const { observation } = await streamCall(
            text,
            [5, 17, 30],
            completeIt ? { code: junk } : undefined,
          );
          expect(['success', 'aborted', 'error']).toContain(observation.status);
        }),
        { numRuns: Math.min(NUM_RUNS, 100) },
      );
    },
    propertyTimeout(40),
  );
});
