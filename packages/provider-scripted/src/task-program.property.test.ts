import type { Message, ToolSpec } from '@org/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createScriptedModel,
  createTaskScripts,
  type TaskAggregate,
  type TaskCall,
  type TaskOutputs,
} from './index.js';

const numRuns = Number(process.env.FC_NUM_RUNS ?? 200);
const TOOLS = ['find', 'fetch_item'] as const;
const codeTool: ToolSpec = {
  name: 'run_code',
  description: TOOLS.map((name) => `declare function ${name}(args: {}): Promise<unknown>;`).join('\n'),
  inputSchema: { type: 'object' },
};
const nativeTools: ToolSpec[] = TOOLS.map((name) => ({
  name,
  description: name,
  inputSchema: { type: 'object' },
}));

/** A small deterministic random source, so that one fast-check seed is one task. */
function randomOf(seed: number): { int: (below: number) => number; pick: <T>(items: readonly T[]) => T } {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (below: number): number => Math.floor(next() * below);
  return { int, pick: (items) => items[int(items.length)] as (typeof items)[number] };
}

/** What a tool returns: a record a function of its name and arguments, with a list of records to fan out over. */
function toolOutput(toolName: string, args: unknown): Record<string, unknown> {
  let hash = 7;
  for (const char of `${toolName}${JSON.stringify(args)}`) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  const item = (offset: number): Record<string, unknown> => ({
    v: (hash + offset) % 7,
    s: `s${(hash + offset) % 5}`,
    ok: (hash + offset) % 2 === 0,
  });
  return { ...item(0), list: Array.from({ length: hash % 4 }, (_, index) => item(index + 1)) };
}

/** A random task: literal and dependent calls, fan-outs over lists, aggregates, returned values. */
function randomTask(seed: number): {
  calls: TaskCall[];
  aggregates: TaskAggregate[];
  outputSteps?: string[];
} {
  const random = randomOf(seed);
  const calls: TaskCall[] = [];
  const lists: string[] = [];
  // Sometimes a batch of independent calls read only as runs of one list (`[$ref:c1.v, $ref:c2.v]`).
  const batch = random.int(3) === 0 ? 2 + random.int(4) : 0;
  const batchRun = (): string[] => {
    const start = random.int(batch);
    const end = start + 1 + random.int(batch - start);
    return Array.from({ length: end - start }, (_, offset) => `$ref:c${start + offset}.v`);
  };
  const count = batch + 1 + random.int(6);
  for (let index = 0; index < count; index++) {
    const id = `c${index}`;
    const earlier = calls.map((call) => call.id).filter((_, at) => at >= batch);
    // A field of a record (a fan-out's output is a list: a missing field is `null` to a plan, `undefined` to code).
    const records = calls
      .filter((call, at) => at >= batch && call.forEach === undefined)
      .map((call) => call.id);
    const reference = (): string => `$ref:${random.pick(records)}.${random.pick(['v', 's', 'ok'])}`;
    const fanOut = index >= batch && lists.length > 0 && random.int(3) === 0;
    const args: Record<string, unknown> = {};
    for (let key = index < batch ? 1 : random.int(3); key > 0; key--) {
      const kind =
        index < batch ? 0 : batch > 0 && random.int(2) === 0 ? 5 : records.length === 0 ? 0 : random.int(5);
      args[`k${key}`] =
        kind === 0
          ? random.pick(['a', 'b', 3, true, null, `q${index}`])
          : kind === 1
            ? reference()
            : kind === 2
              ? `text ${reference()}`
              : kind === 3
                ? records.slice(random.int(records.length)).map((call) => `$ref:${call}.v`)
                : kind === 4
                  ? `$ref:${random.pick(earlier)}`
                  : batchRun();
    }
    if (fanOut) args.item = random.pick(['$item', '$item.s', 'of $item.s']);
    const call: TaskCall = {
      id,
      toolName: random.pick(TOOLS),
      arguments: args,
      ...(fanOut ? { forEach: random.pick(lists) } : {}),
    };
    calls.push(call);
    if (index >= batch) lists.push(fanOut ? `$ref:${id}` : `$ref:${id}.list`);
  }
  const aggregates: TaskAggregate[] = [];
  for (let index = random.int(4); index > 0; index--) {
    const reduce = random.pick<TaskAggregate['reduce']>([
      'count',
      'items',
      { sum: 'v' },
      { max: 'v' },
      { min: 'v' },
    ]);
    aggregates.push({
      id: `g${index}`,
      of: random.int(4) === 0 && aggregates.length > 0 ? `$ref:${aggregates[0]?.id}` : random.pick(lists),
      reduce,
      ...(random.int(2) === 0 ? { where: { ok: random.int(2) === 0 } } : {}),
      ...(random.int(3) === 0 ? { pick: ['s'] } : {}),
    });
  }
  // An aggregate over an aggregate reads a list: only `items` gives one.
  const valid = aggregates.filter(
    (aggregate) =>
      !aggregate.of.startsWith('$ref:g') ||
      aggregates.find((other) => `$ref:${other.id}` === aggregate.of)?.reduce === 'items',
  );
  const ids = [
    ...calls.map((call) => call.id).filter((_, at) => at >= batch),
    ...valid.map((aggregate) => aggregate.id),
  ];
  const outputSteps = random.int(2) === 0 ? undefined : ids.filter(() => random.int(2) === 0);
  return {
    calls,
    aggregates: valid,
    ...(outputSteps === undefined || outputSteps.length === 0 ? {} : { outputSteps }),
  };
}

const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, entry) =>
    typeof entry === 'object' && entry !== null && !Array.isArray(entry)
      ? Object.fromEntries(Object.entries(entry).sort(([a], [b]) => a.localeCompare(b)))
      : entry,
  ) ?? 'undefined';

type AsyncFunctionConstructor = new (...parameters: string[]) => (...args: unknown[]) => Promise<unknown>;
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as AsyncFunctionConstructor;

describe('taskProgram: the program gives what the reference evaluation gives', () => {
  it('same values for the answer and the same tool calls as native mode, on random tasks', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer(), async (seed) => {
        const task = randomTask(seed);
        let observed: TaskOutputs | undefined;
        const scripts = createTaskScripts({
          ...task,
          answer: (outputs) => {
            observed = outputs;
            return 'done';
          },
        });

        // The reference: native mode, every call made by the script with the values it observed.
        const nativeCalls: string[] = [];
        const native = createScriptedModel({ script: scripts.native });
        const history: Message[] = [{ role: 'user', content: 'go' }];
        for (let turn = 0; turn < 20; turn++) {
          const response = await native.generate({ messages: history, tools: nativeTools });
          if (response.toolCalls.length === 0) break;
          history.push({ role: 'assistant', content: '', toolCalls: response.toolCalls });
          for (const call of response.toolCalls) {
            const args = JSON.parse(call.arguments) as unknown;
            nativeCalls.push(`${call.toolName} ${canonical(args)}`);
            const content = JSON.stringify(toolOutput(call.toolName, args));
            history.push({ role: 'tool', toolCallId: call.id, toolName: call.toolName, content });
          }
        }
        const reference = observed;

        // The program, run with the same tools (each result a few microtasks late, so calls interleave).
        const code = createScriptedModel({ script: scripts.code });
        const first = await code.generate({ messages: [{ role: 'user', content: 'go' }], tools: [codeTool] });
        const program = (JSON.parse(first.toolCalls[0]?.arguments ?? '{}') as { code: string }).code;
        const programCalls: string[] = [];
        const functions = TOOLS.map((name) => async (args: unknown) => {
          programCalls.push(`${name} ${canonical(args)}`);
          for (let wait = (programCalls.length * 7) % 4; wait > 0; wait--) await Promise.resolve();
          return toolOutput(name, args);
        });
        const value = await new AsyncFunction(...TOOLS, program)(...functions);
        expect(program).not.toContain('"');
        expect(programCalls.sort()).toEqual(nativeCalls.sort());

        // The answer reads the same values from the program's result as native mode observed.
        await code.generate({
          messages: [
            { role: 'user', content: 'go' },
            { role: 'assistant', content: '', toolCalls: first.toolCalls },
            {
              role: 'tool',
              toolCallId: first.toolCalls[0]?.id ?? '',
              toolName: 'run_code',
              content: JSON.stringify({ status: 'success', value }),
            },
          ],
          tools: [codeTool],
        });
        const fromProgram = observed?.outputs ?? {};
        const expected = task.outputSteps ?? Object.keys(fromProgram);
        for (const id of expected) {
          expect(Object.hasOwn(fromProgram, id), `${id} returned by\n${program}`).toBe(true);
          expect(canonical(fromProgram[id]), `${id} of\n${program}`).toBe(canonical(reference?.outputs[id]));
        }
      }),
      { numRuns },
    );
  });
});
