import { defineTool, executeStreamingAction, type Tool, ToolRegistry } from '@org/tools';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CODE_MODE_TOOL_NAME,
  CodeModeOptionsError,
  type CodeResult,
  closeCodeSandboxes,
  configureCodeSandboxes,
  createCodeModeTool,
  runCode,
} from './index.js';
import { sandboxWorkerCount, sandboxWorkersStarted } from './sandbox-pool.js';

afterAll(() => closeCodeSandboxes());

/** One call of a test tool as it ran: its key, and whether the answer was still streaming when it started. */
interface Hop {
  readonly key: string;
  readonly whileStreaming: boolean;
  ended: boolean;
  aborted: boolean;
}

/**
 * A streamed code call driven by hand: `hop` is eager and approval-free (it may start early), `write_note` is not
 * eager, `wipe` is eager but needs approval (neither may ever start before the answer is final).
 */
function harness(options: { hopMs?: (index: number) => number; maxPrefixRuns?: number } = {}) {
  const hops: Hop[] = [];
  const notes: string[] = [];
  const wipes: string[] = [];
  const results: CodeResult[] = [];
  let streaming = true;
  const hop = defineTool({
    name: 'hop',
    description: 'The next key after a key.',
    input: z.object({ key: z.string() }),
    eager: true,
    execute: async ({ key }, context) => {
      const record: Hop = { key, whileStreaming: streaming, ended: false, aborted: false };
      hops.push(record);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, options.hopMs?.(hops.length - 1) ?? 5);
        context.signal?.addEventListener('abort', () => {
          record.aborted = true;
          clearTimeout(timer);
          reject(new Error('hop aborted'));
        });
      });
      record.ended = true;
      return { next: `${key}>` };
    },
  });
  const writeNote = defineTool({
    name: 'write_note',
    description: 'Writes a note.',
    input: z.object({ text: z.string() }),
    execute: ({ text }) => {
      notes.push(text);
      return 'ok';
    },
  });
  const wipe = defineTool({
    name: 'wipe',
    description: 'Wipes a key (needs approval).',
    input: z.object({ key: z.string() }),
    eager: true,
    needsApproval: true,
    execute: ({ key }) => {
      wipes.push(key);
      return 'wiped';
    },
  });
  const tools = new ToolRegistry([
    createCodeModeTool({
      tools: [hop, writeNote, wipe] as Tool[],
      onCodeResult: (result) => results.push(result),
      approveCall: () => true,
      ...(options.maxPrefixRuns === undefined ? {} : { maxPrefixRuns: options.maxPrefixRuns }),
    }),
  ]);

  /** Streams `code` in fragments of 9 characters, a turn of the event loop apart, and waits for `until`. */
  const stream = async (id: string, code: string, until: () => boolean) => {
    const execution = executeStreamingAction(tools, { id, toolName: CODE_MODE_TOOL_NAME });
    const text = JSON.stringify({ code });
    for (let index = 0; index < text.length; index += 9) {
      execution.push(text.slice(index, index + 9));
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await waitFor(until);
    return execution;
  };
  const complete = async (execution: ReturnType<typeof executeStreamingAction>, id: string, code: string) => {
    streaming = false;
    execution.complete({ id, toolName: CODE_MODE_TOOL_NAME, args: { code } });
    const observation = await execution.observation;
    return { observation, result: results.at(-1) };
  };
  return { hops, notes, wipes, stream, complete };
}

/** Waits until `condition` holds (the test fails on its timeout otherwise). */
async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 2));
}

describe('speculative prefix runs of a streamed program', () => {
  it('starts a call reading an earlier result before the answer ends, and the program takes both results', async () => {
    const { hops, stream, complete } = harness();
    const code = "const a = await hop({ key: 'x' }); const b = await hop({ key: a.next });\nreturn b;";
    // Without prefix runs `hop({ key: a.next })` could only start once the answer is complete: this would never end.
    const execution = await stream('call_chain', code, () => hops.some((call) => call.key === 'x>'));
    const { observation, result } = await complete(execution, 'call_chain', code);
    expect(observation.status).toBe('success');
    expect(result?.value).toEqual({ next: 'x>>' });
    expect(hops.map((call) => [call.key, call.whileStreaming])).toEqual([
      ['x', true],
      ['x>', true],
    ]);
    expect(result?.calls.map((call) => call.early)).toEqual([true, true]);
    expect(result?.unusedEarlyCalls).toEqual([]);
  });

  it('never starts a tool that is not eager or needs approval, nor what follows it, before the answer is final', async () => {
    const { hops, notes, wipes, stream, complete } = harness();
    const code = [
      "const a = await hop({ key: 'x' });",
      'await write_note({ text: a.next });',
      'await wipe({ key: a.next });',
      "const c = await hop({ key: a.next + '!' });",
      'return c;',
    ].join('\n');
    // A prefix run stands at `write_note` for as long as the answer streams: give it time to get past it, were it to.
    const execution = await stream('call_wait', code, () => hops.some((call) => call.ended));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(notes).toEqual([]);
    expect(wipes).toEqual([]);
    expect(hops.map((call) => call.key)).toEqual(['x']);
    const { result } = await complete(execution, 'call_wait', code);
    expect(result?.value).toEqual({ next: 'x>!>' });
    expect(notes).toEqual(['x>']);
    expect(wipes).toEqual(['x>']);
    expect(hops.map((call) => [call.key, call.whileStreaming])).toEqual([
      ['x', true],
      ['x>!', false],
    ]);
  });

  it('aborts and reports a speculative call the final program does not make', async () => {
    // The speculative call would take a minute: it is still running when the program ends.
    const { hops, stream, complete } = harness({ hopMs: (index) => (index === 0 ? 60_000 : 5) });
    // The prefix run draws its own random numbers (each run has its own seed), so the final program's call differs.
    const code =
      'const t = Math.random();\nconst r = await hop({ key: String(t) });\nreturn r.next.length > 0;';
    const execution = await stream('call_branch', code, () => hops.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const { result } = await complete(execution, 'call_branch', code);
    expect(result?.value).toBe(true);
    expect(result?.calls.map((call) => call.early === true)).toEqual([false]);
    // Each prefix run after the second statement made its own call (its own seed): none is the program's.
    const speculative = hops.filter((call) => call.whileStreaming);
    expect(speculative.length).toBeGreaterThan(0);
    expect(hops.at(-1)?.whileStreaming).toBe(false);
    expect(result?.unusedEarlyCalls.map((unused) => unused.action.args)).toEqual(
      speculative.map((call) => ({ key: call.key })),
    );
    // The first one (a minute long) was still running when the program ended.
    expect(result?.unusedEarlyCalls[0]?.observation.status).toBe('aborted');
    expect(hops[0]?.aborted).toBe(true);
  });

  it('starts at most maxPrefixRuns prefix runs', async () => {
    const { hops, stream, complete } = harness({ maxPrefixRuns: 2 });
    const code = [
      "const a = await hop({ key: 'x' });",
      'const b = await hop({ key: a.next });',
      'const c = await hop({ key: b.next });',
      'const d = await hop({ key: c.next });',
      'return d;',
    ].join('\n');
    const execution = await stream('call_capped', code, () => hops.length === 2 && hops[1]!.ended);
    // The second prefix run (the first two statements) keeps standing where it ended; no third one starts.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(hops.map((call) => call.key)).toEqual(['x', 'x>']);
    const { result } = await complete(execution, 'call_capped', code);
    expect(result?.value).toEqual({ next: 'x>>>>' });
    expect(result?.calls.map((call) => call.early === true)).toEqual([true, true, false, false]);
  });

  it('runs no prefix when maxPrefixRuns is 0, and refuses a bad value', async () => {
    const { hops, stream, complete } = harness({ maxPrefixRuns: 0 });
    const code = "const a = await hop({ key: 'x' });\nconst b = await hop({ key: a.next });\nreturn b;";
    const execution = await stream('call_off', code, () => hops.some((call) => call.ended));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(hops.map((call) => call.key)).toEqual(['x']);
    const { result } = await complete(execution, 'call_off', code);
    expect(result?.calls.map((call) => call.early === true)).toEqual([true, false]);
    for (const maxPrefixRuns of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => createCodeModeTool({ tools: [], maxPrefixRuns })).toThrow(CodeModeOptionsError);
  });

  it('starts no prefix run while every sandbox worker is busy: a program that will really run never waits for one', async () => {
    configureCodeSandboxes({ maxWorkers: 1 });
    let release: (() => void) | undefined;
    const gate = defineTool({
      name: 'gate',
      description: 'Waits until released.',
      input: z.object({}),
      execute: () => new Promise<string>((resolve) => (release = () => resolve('open'))),
    });
    try {
      // Another program holds the only worker (it is inside its call).
      const busy = runCode('return await gate({});', { tools: [gate] });
      await waitFor(() => release !== undefined);
      const { hops, stream, complete } = harness();
      const code = "const a = await hop({ key: 'x' });\nconst b = await hop({ key: a.next });\nreturn b;";
      const execution = await stream('call_busy', code, () => hops.some((call) => call.ended));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(hops.map((call) => call.key)).toEqual(['x']);
      release?.();
      expect((await busy).value).toBe('open');
      // The worker is free now, but no statement closed since: no speculation waited in the queue for it.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(hops.map((call) => call.key)).toEqual(['x']);
      const { result } = await complete(execution, 'call_busy', code);
      expect(result?.value).toEqual({ next: 'x>>' });
      expect(result?.calls.map((call) => call.early === true)).toEqual([true, false]);
    } finally {
      release?.();
      configureCodeSandboxes({});
    }
  });

  it('starts no worker for a superseded prefix run: the worker drops the program and runs the next one', async () => {
    const { hops, stream, complete } = harness({ hopMs: () => 40 });
    const code = [
      "const a = await hop({ key: 'x' });",
      'const b = await hop({ key: a.next });',
      'const c = await hop({ key: b.next });',
      'const d = await hop({ key: c.next });',
      'const e = await hop({ key: d.next });',
      'return e;',
    ].join('\n');
    // Warm: the workers a streamed program uses (its prefix runs' and its own) are there before it.
    await complete(await stream('call_warm', code, () => true), 'call_warm', code);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const startedBefore = sandboxWorkersStarted();
    hops.length = 0;
    // Each statement closes while the prefix run before it waits for a 40 ms call: five runs, four superseded.
    const execution = await stream('call_reuse', code, () => hops.some((call) => call.key === 'x>>>>'));
    const { result } = await complete(execution, 'call_reuse', code);
    expect(result?.value).toEqual({ next: 'x>>>>>' });
    expect(result?.calls.map((call) => call.early === true)).toEqual([true, true, true, true, true]);
    expect(sandboxWorkersStarted() - startedBefore).toBe(0);
  });

  it('ends every prefix run and early call when the code call is aborted, and leaves no worker running', async () => {
    const { hops, stream } = harness({ hopMs: () => 60_000 });
    const code = "const a = await hop({ key: 'x' });\nconst b = await hop({ key: 'y' + a.next });\nreturn b;";
    const execution = await stream('call_abort', code, () => hops.length === 1);
    execution.abort('the answer was discarded');
    const observation = await execution.observation;
    expect(observation.status).toBe('aborted');
    await waitFor(() => hops.every((call) => call.aborted));
    expect(hops.map((call) => call.key)).toEqual(['x']);
    // The prefix run's worker drops its program and goes back to the pool (it is not terminated), where
    // closeCodeSandboxes waits for it.
    await closeCodeSandboxes();
    expect(sandboxWorkerCount()).toBe(0);
  });
});
