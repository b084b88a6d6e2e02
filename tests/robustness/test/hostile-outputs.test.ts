/**
 * Issue 18, classes 1 and 2: what a tool sends back (an output, a thrown error, a plan's summary, a validation
 * message, a hook's reason) reaches the model bounded, with a marker; and serialising it is bounded in time and
 * memory, whatever its shape (shared sub-objects, deep or wide nesting, huge strings, hostile getters). Through the
 * public entries: `executeAction`, `serializeOutput` / `toJsonValue` / `formatObservationForModel`, `formatPlanResult`
 * through `execute_tool_plan`, and `runAgent` with the scripted model.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type Action, contentText, type RunEvent, utf8ByteLength } from '@org/core';
import { createToolPlanTool } from '@org/plan-executor';
import { runAgent } from '@org/planner';
import { createScriptedModel } from '@org/provider-scripted';
import {
  defineTool,
  executeAction,
  formatObservationForModel,
  serializeOutput,
  type ToolObservation,
  ToolRegistry,
  toJsonValue,
} from '@org/tools';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { assertEveryCallAnsweredOnce, eventLog, NUM_RUNS, propertyTimeout } from './support/run-helpers.js';

// A collector this file can call between measurements (the flag is read when `gc` is first looked up).
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

const MB = 1024 * 1024;
const STATUSES = new Set(['success', 'error', 'skipped', 'blocked', 'timeout', 'aborted']);

/** A DAG of `levels` levels and `levels + 1` objects: each level references the next twice (2^levels paths). */
function dag(levels: number, leaf: unknown = { leaf: 'x' }): unknown {
  let node = leaf;
  for (let level = 0; level < levels; level++) node = { a: node, b: node };
  return node;
}

/** The same with arrays, a Map and a Set on the way. */
function mixedDag(levels: number): unknown {
  let node: unknown = ['leaf'];
  for (let level = 0; level < levels; level++) {
    const next = level % 3;
    node =
      next === 0
        ? [node, node]
        : next === 1
          ? new Map([
              ['a', node],
              ['b', node],
            ])
          : new Set([node, [node]]);
  }
  return node;
}

/** `depth` levels of nesting, built without recursion. */
function deep(depth: number, asArray: boolean): unknown {
  let node: unknown = 'bottom';
  for (let level = 0; level < depth; level++) node = asArray ? [node] : { next: node };
  return node;
}

/** An object whose every read of `a` or `b` makes a fresh one: an infinite tree with nothing shared. */
function lazyTree(): unknown {
  const make = (): object => ({
    get a() {
      return make();
    },
    get b() {
      return make();
    },
  });
  return make();
}

const DANGEROUS_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'toJSON',
];
/** Unicode look-alikes and the characters that break naive cutting: Cyrillic, zero-width, RTL override, surrogates. */
const LOOK_ALIKES = ['раураl', 'a\u200bb', '\u202etxt.exe', '😀', '\ud800', '\udc00', 'é', '\u0000', '"\\'];

function wide(keys: number, withDangerousKeys: boolean): unknown {
  const object: Record<string, unknown> = {};
  for (let index = 0; index < keys; index++) {
    const key = withDangerousKeys
      ? (DANGEROUS_KEYS[index % DANGEROUS_KEYS.length] as string) + index
      : `k${index}`;
    Object.defineProperty(object, key, {
      value: index,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  if (withDangerousKeys)
    for (const key of DANGEROUS_KEYS)
      Object.defineProperty(object, key, {
        value: key,
        enumerable: true,
        writable: true,
        configurable: true,
      });
  return object;
}

function hostileObject(kind: number): unknown {
  switch (kind) {
    case 0: {
      const cycle: Record<string, unknown> = { name: 'loop' };
      cycle.self = cycle;
      cycle.list = [cycle, { back: cycle }];
      return cycle;
    }
    case 1:
      return {
        ok: 1,
        get broken(): never {
          throw new Error('getter');
        },
      };
    case 2:
      return {
        toJSON(): never {
          throw new Error('toJSON');
        },
      };
    case 3: {
      const self: Record<string, unknown> = {};
      self.toJSON = () => self;
      return self;
    }
    case 4:
      return new Proxy(
        {},
        {
          ownKeys(): never {
            throw new Error('ownKeys');
          },
        },
      );
    case 5:
      return new Map<unknown, unknown>([
        [{ key: 'object' }, 1],
        [Symbol('s'), 2],
        [3n, dag(10)],
      ]);
    case 6:
      return {
        big: 2n ** 200n,
        nan: Number.NaN,
        inf: Number.POSITIVE_INFINITY,
        negativeZero: -0,
        huge: 1e308 * 10,
      };
    case 7:
      return lazyTree();
    default:
      return { when: new Date(Number.NaN), error: new TypeError('bad'), bytes: new Uint8Array(1_000_000) };
  }
}

/** Generated hostile values, each with the number of bytes it stands for as input (what a linear bound is per). */
const hostileValue: fc.Arbitrary<{ value: unknown; inputBytes: number; label: string }> = fc.oneof(
  fc
    .integer({ min: 1, max: 28 })
    .map((levels) => ({ value: dag(levels), inputBytes: levels * 16, label: `dag ${levels}` })),
  fc
    .integer({ min: 1, max: 28 })
    .map((levels) => ({ value: mixedDag(levels), inputBytes: levels * 32, label: `mixed dag ${levels}` })),
  fc
    .record({ depth: fc.integer({ min: 1, max: 20_000 }), asArray: fc.boolean() })
    .map(({ depth, asArray }) => ({
      value: deep(depth, asArray),
      inputBytes: depth * 12,
      label: `deep ${depth}`,
    })),
  fc
    .record({ keys: fc.integer({ min: 0, max: 5_000 }), dangerous: fc.boolean() })
    .map(({ keys, dangerous }) => ({
      value: wide(keys, dangerous),
      inputBytes: keys * 16,
      label: `wide ${keys}`,
    })),
  fc
    .record({ length: fc.integer({ min: 0, max: 300_000 }), piece: fc.constantFrom(...LOOK_ALIKES, 'x') })
    .map(({ length, piece }) => ({
      value: piece.repeat(Math.ceil(length / piece.length)),
      inputBytes: length * 3,
      label: `string ${length}`,
    })),
  fc
    .integer({ min: 0, max: 8 })
    // Kind 8 holds a typed array of 1 MB (a thrown one is described by JSON.stringify, which lists its keys).
    .map((kind) => ({
      value: hostileObject(kind),
      inputBytes: kind === 8 ? MB : 4_096,
      label: `hostile ${kind}`,
    })),
  fc
    .anything({
      withBigInt: true,
      withMap: true,
      withSet: true,
      withDate: true,
      withTypedArray: true,
      maxDepth: 4,
    })
    .map((value) => ({ value, inputBytes: 4_096, label: 'anything' })),
);

/**
 * Milliseconds allowed for a piece of work over `bytes`: a generous 5 s per MB plus 1 s (a GC pause, a busy shared
 * machine). The measured figures are far below (see the README); the bound is there to catch work that is not
 * linear (path by path over a DAG: 2^28 paths, a hang).
 */
const allowedMs = (bytes: number): number => 1_000 + (5_000 * bytes) / MB;

function isJsonValue(value: unknown): boolean {
  return JSON.stringify(JSON.parse(JSON.stringify(value))) === JSON.stringify(value);
}

function measure<T>(work: () => T): { result: T; ms: number } {
  const started = performance.now();
  const result = work();
  return { result, ms: performance.now() - started };
}

async function measureAsync<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await work();
  return { result, ms: performance.now() - started };
}

/** Heap the result of `work` keeps, after collection: what the caller holds afterwards. */
async function retainedHeap<T>(work: () => Promise<T>): Promise<{ result: T; bytes: number }> {
  collect();
  const before = process.memoryUsage().heapUsed;
  const result = await work();
  collect();
  return { result, bytes: process.memoryUsage().heapUsed - before };
}

function action(toolName: string, id = 'call_1'): Action {
  return { id, toolName, args: {} };
}

function assertBoundedObservation(observation: ToolObservation, budget: number): void {
  expect(STATUSES.has(observation.status)).toBe(true);
  const text = formatObservationForModel(observation, { budgetBytes: budget });
  // The marker may pass a budget smaller than itself; every budget in this file is larger than a marker.
  expect(utf8ByteLength(text)).toBeLessThanOrEqual(budget);
  if (observation.status === 'success') {
    expect(isJsonValue(observation.output)).toBe(true);
    const output = observation.output;
    expect(utf8ByteLength(typeof output === 'string' ? output : JSON.stringify(output))).toBeLessThanOrEqual(
      budget,
    );
  } else {
    expect(typeof observation.error?.code).toBe('string');
    expect(utf8ByteLength(observation.error?.message ?? '')).toBeLessThanOrEqual(budget);
  }
}

describe('Issue 18 class 2: serialising a tool output is bounded in time and memory', () => {
  it('the DAG of 28 levels (29 objects, 2^28 paths): serializeOutput, toJsonValue and formatting take milliseconds', () => {
    const value = dag(28);
    const serialized = measure(() => serializeOutput(value, 50_000));
    expect(serialized.ms).toBeLessThan(allowedMs(MB));
    expect(serialized.result.truncated).toBe(true);
    expect(String(serialized.result.output)).toMatch(
      /\[output truncated: showing the first \d+ of more than \d+ bytes; ask for a narrower result to see more\]$/,
    );
    expect(utf8ByteLength(String(serialized.result.output))).toBeLessThanOrEqual(50_000);
    // Unbudgeted: the 16 MiB memory bound still holds, and the converted value can be written as JSON.
    const converted = measure(() => JSON.stringify(toJsonValue(value)));
    expect(converted.ms).toBeLessThan(allowedMs(16 * MB));
    expect(converted.result.length).toBeLessThanOrEqual(17 * MB);
    const unbudgeted = measure(() => serializeOutput(value, Number.POSITIVE_INFINITY));
    expect(unbudgeted.ms).toBeLessThan(allowedMs(16 * MB));
    expect(utf8ByteLength(String(unbudgeted.result.output))).toBeLessThanOrEqual(16 * MB);
    const formatted = measure(() =>
      formatObservationForModel({
        actionId: 'a',
        toolName: 't',
        status: 'success',
        output: value as never,
        durationMs: 1,
      }),
    );
    expect(formatted.ms).toBeLessThan(allowedMs(16 * MB));
  });

  it('shared sub-objects are read once: a getter on the shared object runs once, not once per path', () => {
    let reads = 0;
    const shared = {
      get value(): number {
        reads += 1;
        return 1;
      },
    };
    serializeOutput(dag(20, shared), 10_000_000);
    expect(reads).toBe(1);
  });

  it('time grows linearly with the output, not with the number of paths: 10x the levels is not 2^10x the time', () => {
    // Same budget, 14 against 28 levels: path-by-path would be 16,384 times slower.
    serializeOutput(dag(28), 50_000); // warm-up
    const small = measure(() => {
      for (let round = 0; round < 20; round++) serializeOutput(dag(14), 50_000);
    });
    const large = measure(() => {
      for (let round = 0; round < 20; round++) serializeOutput(dag(28), 50_000);
    });
    expect(large.ms / Math.max(small.ms, 1)).toBeLessThan(20);
  });

  it('executeAction with a tool returning the DAG: a typed observation at once, the timeout and abort still work after', async () => {
    const registry = new ToolRegistry([
      defineTool({ name: 'dag', description: 'Returns a DAG.', input: z.object({}), execute: () => dag(28) }),
      defineTool({
        name: 'lazy',
        description: 'Returns an infinite lazy tree.',
        input: z.object({}),
        execute: async () => lazyTree(),
      }),
    ]);
    for (const name of ['dag', 'lazy']) {
      const { result, ms } = await measureAsync(() =>
        executeAction(registry, action(name), { timeoutMs: 1_000 }),
      );
      expect(ms).toBeLessThan(allowedMs(MB));
      expect(result.status).toBe('success');
      expect(result.truncated).toBe(true);
      assertBoundedObservation(result, 50_000);
    }
  });

  it('heap: what an observation keeps is bounded by the budget, whatever the output', async () => {
    const registry = new ToolRegistry([
      defineTool({ name: 'dag', description: 'Returns a DAG.', input: z.object({}), execute: () => dag(28) }),
      defineTool({
        name: 'big',
        description: 'Returns 20 MB.',
        input: z.object({}),
        execute: () => ({ text: 'x'.repeat(20 * MB) }),
      }),
    ]);
    for (const name of ['dag', 'big']) {
      const { result, bytes } = await retainedHeap(async () => {
        const observation = await executeAction(registry, action(name));
        // The caller keeps the model's view, not the raw output (which the tool made, not the library).
        return observation.output;
      });
      expect(utf8ByteLength(String(result))).toBeLessThanOrEqual(50_000);
      expect(bytes).toBeLessThan(4 * MB);
    }
  });

  it(
    'property: any hostile output, returned or thrown: a typed observation within the budget, time bounded per input byte',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          hostileValue,
          fc.integer({ min: 1_000, max: 8_000 }),
          fc.constantFrom('return', 'throw', 'reject', 'message'),
          async ({ value, inputBytes }, budget, how) => {
            const registry = new ToolRegistry([
              defineTool({
                name: 'hostile',
                description: 'Sends back a hostile value.',
                input: z.object({}),
                execute: async () => {
                  if (how === 'return') return value;
                  if (how === 'throw') throw value;
                  if (how === 'message')
                    throw new Error(typeof value === 'string' ? value : String(inputBytes));
                  return Promise.reject(value);
                },
              }),
            ]);
            const events: RunEvent[] = [];
            const { result, ms } = await measureAsync(() =>
              executeAction(registry, action('hostile'), {
                outputBudgetBytes: budget,
                onEvent: (event) => events.push(event),
              }),
            );
            expect(ms).toBeLessThan(allowedMs(inputBytes + 4 * budget));
            assertBoundedObservation(result, budget);
            expect(events.map((event) => event.type)).toEqual(['tool-call-started', 'tool-call-finished']);
            // serializeOutput and formatObservationForModel directly.
            const direct = measure(() => serializeOutput(value, budget));
            expect(direct.ms).toBeLessThan(allowedMs(inputBytes + 4 * budget));
            const output = direct.result.output;
            expect(isJsonValue(output)).toBe(true);
            expect(
              utf8ByteLength(typeof output === 'string' ? output : JSON.stringify(output)),
            ).toBeLessThanOrEqual(budget);
          },
        ),
        { numRuns: NUM_RUNS },
      );
    },
    propertyTimeout(20),
  );
});

describe('Issue 18 class 1: everything that reaches the model from a tool is bounded, with a marker', () => {
  it('a 2 MB and a 20 MB error message: cut to the budget with a marker, in time linear in the message', async () => {
    const sizes = [2 * MB, 20 * MB];
    const times: number[] = [];
    for (const size of sizes) {
      const message = 'e'.repeat(size);
      const registry = new ToolRegistry([
        defineTool({
          name: 'fails',
          description: 'Fails loudly.',
          input: z.object({}),
          execute: () => {
            throw new Error(message);
          },
        }),
      ]);
      const { result, ms } = await measureAsync(() => executeAction(registry, action('fails')));
      times.push(ms);
      expect(ms).toBeLessThan(allowedMs(size));
      expect(result.error?.code).toBe('tool_execution_failed');
      expect(result.error?.message).toMatch(
        /\n\[error message truncated: showing the first \d+ of \d+ bytes\]$/,
      );
      assertBoundedObservation(result, 50_000);
    }
  });

  it('an unknown tool name of 1 MB, a hook reason of 1 MB, thousands of invalid fields: each message bounded', async () => {
    const huge = 'n'.repeat(MB);
    const registry = new ToolRegistry([
      defineTool({
        name: 'strict',
        description: 'Takes many numbers.',
        input: z.record(z.string(), z.number()),
        execute: () => 'ok',
      }),
      defineTool({ name: 'guarded', description: 'Guarded.', input: z.object({}), execute: () => 'ok' }),
    ]);
    const unknown = await executeAction(registry, { id: 'c1', toolName: huge, args: {} });
    expect(unknown.error?.code).toBe('unknown_tool');
    assertBoundedObservation(unknown, 50_000);

    const blocked = await executeAction(registry, action('guarded'), {
      hooks: { beforeToolUse: () => ({ decision: 'block', reason: huge }) },
    });
    expect(blocked.status).toBe('blocked');
    assertBoundedObservation(blocked, 50_000);
    expect(utf8ByteLength(blocked.interceptions?.[0]?.reason ?? '')).toBeLessThanOrEqual(1_000);

    const args: Record<string, unknown> = {};
    for (let index = 0; index < 20_000; index++) args[`${'k'.repeat(100)}${index}`] = 'not a number';
    const invalid = await executeAction(registry, { id: 'c2', toolName: 'strict', args }, { validate: true });
    expect(invalid.error?.code).toBe('invalid_tool_arguments');
    assertBoundedObservation(invalid, 50_000);
  });

  it('an observation built elsewhere (not by executeAction): formatObservationForModel still bounds it', () => {
    const observation: ToolObservation = {
      actionId: 'a',
      toolName: 't',
      status: 'error',
      error: { code: 'x'.repeat(10_000), message: 'm'.repeat(3 * MB) },
      durationMs: 1,
      artifacts: Array.from({ length: 10_000 }, (_, index) => ({
        url: `https://example.com/${index}`,
        mimeType: 'text/plain',
        size: 1,
        sha256: '0'.repeat(64),
      })),
    };
    const text = formatObservationForModel(observation);
    expect(utf8ByteLength(text)).toBeLessThanOrEqual(50_000 + 4_096);
    expect(text).toContain('[error message truncated');
    expect(text).toContain('[artifact list truncated');
  });

  it('a plan through execute_tool_plan whose steps fail with 2 MB errors and return DAGs: the summary fits the budget', async () => {
    const base = new ToolRegistry([
      defineTool({
        name: 'fails',
        description: 'Fails with a huge message.',
        input: z.object({}),
        execute: () => {
          throw new Error('f'.repeat(2 * MB));
        },
      }),
      defineTool({ name: 'dag', description: 'Returns a DAG.', input: z.object({}), execute: () => dag(28) }),
    ]);
    const tools = ToolRegistry.compose(base, new ToolRegistry([createToolPlanTool({ tools: base })]));
    const steps = [
      ...Array.from({ length: 20 }, (_, index) => ({ id: `f${index}`, tool: 'fails', arguments: {} })),
      ...Array.from({ length: 20 }, (_, index) => ({ id: `d${index}`, tool: 'dag', arguments: {} })),
    ];
    const model = createScriptedModel({
      script: [{ toolCalls: [{ toolName: 'execute_tool_plan', arguments: { steps } }] }, { text: 'done' }],
    });
    const log = eventLog();
    const { result, ms } = await measureAsync(() =>
      runAgent({ model, tools, task: 'Plan.', outputBudgetBytes: 20_000, onEvent: log.listener }),
    );
    expect(ms).toBeLessThan(allowedMs(40 * 2 * MB));
    expect(result.finishReason).toBe('final-answer');
    assertEveryCallAnsweredOnce(result);
    for (const message of result.messages) {
      if (message.role === 'tool')
        expect(utf8ByteLength(contentText(message.content))).toBeLessThanOrEqual(20_000);
    }
  });

  it(
    'property: runAgent with the scripted model and a tool returning or throwing hostile values: every tool message bounded',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          hostileValue,
          fc.constantFrom('return', 'throw'),
          fc.integer({ min: 2_000, max: 8_000 }),
          async ({ value, inputBytes }, how, budget) => {
            const tools = [
              defineTool({
                name: 'hostile',
                description: 'Sends back a hostile value.',
                input: z.object({}),
                execute: () => {
                  if (how === 'throw') throw value;
                  return value;
                },
              }),
            ];
            const model = createScriptedModel({
              script: [{ toolCalls: [{ toolName: 'hostile' }, { toolName: 'hostile' }] }, { text: 'ok' }],
            });
            const { result, ms } = await measureAsync(() =>
              runAgent({ model, tools, task: 'Go.', outputBudgetBytes: budget }),
            );
            expect(ms).toBeLessThan(allowedMs(2 * inputBytes + 8 * budget));
            expect(result.finishReason).toBe('final-answer');
            assertEveryCallAnsweredOnce(result);
            for (const message of result.messages) {
              if (message.role === 'tool')
                expect(utf8ByteLength(contentText(message.content))).toBeLessThanOrEqual(budget);
            }
          },
        ),
        { numRuns: NUM_RUNS },
      );
    },
    propertyTimeout(30),
  );
});
