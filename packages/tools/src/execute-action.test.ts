import type { Action, RunEvent } from '@org/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  createArtifact,
  defineTool,
  executeAction,
  executeActions,
  formatObservationForModel,
  InvalidToolOptionError,
  type NestedExecuteOptions,
  notFound,
  type ToolObservation,
  ToolRegistry,
  withArtifacts,
} from './index.js';

const action = (toolName: string, args: Record<string, unknown> = {}, id = 'call_1'): Action => ({
  id,
  toolName,
  args,
});
const simple = (
  name: string,
  execute: (args: Record<string, unknown>, context: never) => unknown,
  extra: object = {},
) =>
  defineTool({
    name,
    description: `${name} tool`,
    input: { type: 'object', properties: {}, additionalProperties: true },
    execute: execute as never,
    ...extra,
  });

afterEach(() => {
  vi.useRealTimers();
});

describe('executeAction', () => {
  it('runs sync and async tools and reports success with the output', async () => {
    const registry = new ToolRegistry([
      simple('sync', () => ({ temperature: 21 })),
      simple('async', async () => 'done'),
    ]);
    const first = await executeAction(registry, action('sync'));
    expect(first).toMatchObject({
      actionId: 'call_1',
      toolName: 'sync',
      status: 'success',
      output: { temperature: 21 },
      rawOutput: { temperature: 21 },
    });
    expect(first.error).toBeUndefined();
    expect(typeof first.durationMs).toBe('number');
    expect((await executeAction(registry, action('async'))).output).toBe('done');
  });

  it('turns an unknown tool into an error observation', async () => {
    const observation = await executeAction(new ToolRegistry([simple('a', () => 1)]), action('b'));
    expect(observation).toMatchObject({ status: 'error', error: { code: 'unknown_tool' } });
  });

  it('turns anything thrown into an error observation: Error, string, undefined, an object whose getters throw', async () => {
    const hostile = {
      get message(): string {
        throw new Error('getter exploded');
      },
    };
    const registry = new ToolRegistry([
      simple('error', () => {
        throw new Error('database is down');
      }),
      simple('string', () => {
        throw 'plain string';
      }),
      simple('undefined', () => {
        throw undefined;
      }),
      simple('hostile', () => {
        throw hostile;
      }),
      simple('rejects', () => Promise.reject(42)),
    ]);
    const messages: Record<string, string> = {};
    for (const name of ['error', 'string', 'undefined', 'hostile', 'rejects']) {
      const observation = await executeAction(registry, action(name));
      expect(observation.status).toBe('error');
      expect(observation.error?.code).toBe('tool_execution_failed');
      messages[name] = observation.error?.message ?? '';
    }
    expect(messages.error).toBe("Tool 'error' failed: database is down");
    expect(messages.string).toBe("Tool 'string' failed: plain string");
    expect(messages.undefined).toBe("Tool 'undefined' failed: undefined was thrown");
    expect(messages.hostile).toMatch(/^Tool 'hostile' failed: /);
    expect(messages.rejects).toBe("Tool 'rejects' failed: 42");
  });

  it('times out once, aborts the tool signal, and discards the late result', async () => {
    vi.useFakeTimers();
    let seenSignal: AbortSignal | undefined;
    let finishLate: (value: string) => void = () => {};
    const events: RunEvent[] = [];
    const registry = new ToolRegistry([
      simple(
        'slow',
        (_args, context: { signal: AbortSignal }) => {
          seenSignal = context.signal;
          return new Promise<string>((resolve) => {
            finishLate = resolve;
          });
        },
        { timeoutMs: 1000 },
      ),
    ]);
    const pending = executeAction(registry, action('slow'), { onEvent: (event) => events.push(event) });
    await vi.advanceTimersByTimeAsync(1000);
    const observation = await pending;
    expect(observation.status).toBe('timeout');
    expect(observation.error).toMatchObject({ code: 'timeout', details: { timeoutMs: 1000 } });
    expect(observation.output).toBeUndefined();
    expect(seenSignal?.aborted).toBe(true);
    finishLate('too late');
    await vi.advanceTimersByTimeAsync(5000);
    expect(events.filter((event) => event.type === 'tool-call-finished')).toHaveLength(1);
  });

  it('takes the shorter of the tool timeout and the call timeout', async () => {
    vi.useFakeTimers();
    const registry = new ToolRegistry([simple('slow', () => new Promise(() => {}), { timeoutMs: 60_000 })]);
    const pending = executeAction(registry, action('slow'), { timeoutMs: 50 });
    await vi.advanceTimersByTimeAsync(50);
    expect((await pending).error?.details).toEqual({ timeoutMs: 50 });
  });

  it('stops on an external abort, and does not start when already aborted', async () => {
    const registry = new ToolRegistry([
      simple(
        'wait',
        (_args, context: { signal: AbortSignal }) =>
          new Promise((_resolve, reject) =>
            context.signal.addEventListener('abort', () => reject(new Error('stopped'))),
          ),
      ),
    ]);
    const controller = new AbortController();
    const pending = executeAction(registry, action('wait'), { signal: controller.signal });
    controller.abort();
    expect(await pending).toMatchObject({ status: 'aborted', error: { code: 'aborted' } });
    expect(await executeAction(registry, action('wait'), { signal: AbortSignal.abort() })).toMatchObject({
      status: 'aborted',
    });
  });

  it('refuses an output budget that would switch the budget off (NaN) or make no sense (negative)', async () => {
    const registry = new ToolRegistry([simple('echo', () => 'hi')]);
    for (const outputBudgetBytes of [Number.NaN, -1, 1.5]) {
      await expect(executeAction(registry, action('echo'), { outputBudgetBytes })).rejects.toMatchObject({
        code: 'invalid_tool_option',
        option: 'outputBudgetBytes',
      });
    }
    expect(await executeAction(registry, action('echo'), { outputBudgetBytes: 0 })).toMatchObject({
      status: 'success',
    });
  });

  it('names the reason given to abort(reason) in the message the model reads', async () => {
    const registry = new ToolRegistry([
      simple(
        'wait',
        (_args, context: { signal: AbortSignal }) =>
          new Promise((_resolve, reject) =>
            context.signal.addEventListener('abort', () => reject(new Error('stopped'))),
          ),
      ),
    ]);
    const controller = new AbortController();
    const pending = executeAction(registry, action('wait'), { signal: controller.signal });
    controller.abort('the user pressed stop');
    expect((await pending).error?.message).toBe(
      "Tool 'wait' was aborted before it finished: the user pressed stop.",
    );
    const before = await executeAction(registry, action('wait'), {
      signal: AbortSignal.abort(new Error('budget exhausted')),
    });
    expect(before.error?.message).toBe("Tool 'wait' was not run: the run was aborted: budget exhausted.");
  });

  it('streams progress from an async iterable; the last item is the result', async () => {
    const events: RunEvent[] = [];
    const registry = new ToolRegistry([
      simple('stream', async function* () {
        yield { percent: 10 };
        yield { percent: 90 };
        yield { rows: 3 };
      }),
      simple('returns', async function* () {
        yield 'step 1';
        return 'final';
      }),
    ]);
    const observation = await executeAction(registry, action('stream'), {
      onEvent: (event) => events.push(event),
    });
    expect(observation.output).toEqual({ rows: 3 });
    expect(
      events
        .filter((event) => event.type === 'tool-call-progress')
        .map((event) => (event as { progress: unknown }).progress),
    ).toEqual([{ percent: 10 }, { percent: 90 }]);
    expect((await executeAction(registry, action('returns'))).output).toBe('final');
    const wrapped = new ToolRegistry([
      simple('wrapped', async () =>
        (async function* () {
          yield 'working';
          yield 'done';
        })(),
      ),
    ]);
    expect((await executeAction(wrapped, action('wrapped'))).output).toBe('done');
  });

  it('lets a tool report progress through its context', async () => {
    const progress: unknown[] = [];
    const registry = new ToolRegistry([
      simple('report', (_args, context: { reportProgress(value: unknown): void }) => {
        context.reportProgress('half');
        return 'ok';
      }),
    ]);
    await executeAction(registry, action('report'), {
      onEvent: (event) => {
        if (event.type === 'tool-call-progress') progress.push(event.progress);
      },
    });
    expect(progress).toEqual(['half']);
  });

  it('lets beforeToolUse block or rewrite, and records the reason', async () => {
    const seen: unknown[] = [];
    const registry = new ToolRegistry([
      defineTool({
        name: 'delete_file',
        description: 'Delete a file.',
        input: z.object({ path: z.string() }),
        execute: ({ path }) => seen.push(path),
      }),
    ]);
    const blocked = await executeAction(registry, action('delete_file', { path: '/etc/passwd' }), {
      hooks: {
        beforeToolUse: ({ action: current }) =>
          String(current.args.path).startsWith('/etc')
            ? { decision: 'block', reason: 'system files are protected' }
            : undefined,
      },
    });
    expect(blocked).toMatchObject({
      status: 'blocked',
      error: {
        code: 'blocked_by_hook',
        message: "The call to 'delete_file' was blocked: system files are protected",
      },
      interceptions: [{ decision: 'blocked', reason: 'system files are protected', source: 'beforeToolUse' }],
    });
    const rewritten = await executeAction(registry, action('delete_file', { path: 'a.txt' }), {
      hooks: {
        beforeToolUse: () => ({
          decision: 'rewrite',
          args: { path: '/tmp/sandbox/a.txt' },
          reason: 'sandboxed',
        }),
      },
    });
    expect(rewritten.status).toBe('success');
    expect(rewritten.interceptions).toEqual([
      { decision: 'rewritten', reason: 'sandboxed', source: 'beforeToolUse' },
    ]);
    expect(seen).toEqual(['/tmp/sandbox/a.txt']);
    const invalid = await executeAction(registry, action('delete_file', { path: 'a' }), {
      hooks: { beforeToolUse: () => ({ decision: 'rewrite', args: { file: 1 }, reason: 'bad hook' }) },
    });
    expect(invalid.error?.code).toBe('invalid_tool_arguments');
  });

  it('lets afterToolUse replace the output, and turns a throwing hook into an error', async () => {
    const registry = new ToolRegistry([simple('secret', () => ({ token: 'abc' }))]);
    const redacted = await executeAction(registry, action('secret'), {
      hooks: { afterToolUse: () => ({ output: { token: '[hidden]' }, reason: 'redacted token' }) },
    });
    expect(redacted.output).toEqual({ token: '[hidden]' });
    expect(redacted.interceptions).toEqual([
      { decision: 'rewritten', reason: 'redacted token', source: 'afterToolUse' },
    ]);
    const failing = await executeAction(registry, action('secret'), {
      hooks: {
        beforeToolUse: () => {
          throw 'nope';
        },
      },
    });
    expect(failing.error).toMatchObject({
      code: 'hook_failed',
      message: 'The beforeToolUse hook failed: nope',
    });
  });

  it('serialises circular structures and BigInt safely, and cuts output to the budget with a marker', async () => {
    const circular: Record<string, unknown> = { id: 10n };
    circular.self = circular;
    const big = Array.from({ length: 10_000 }, (_, index) => ({ index, text: 'lorem ipsum dolor sit amet' }));
    const registry = new ToolRegistry([simple('circular', () => circular), simple('big', () => big)]);
    const first = await executeAction(registry, action('circular'));
    expect(first.output).toEqual({ id: '10', self: '[Circular]' });
    expect(first.rawOutput).toBe(circular);
    const second = await executeAction(registry, action('big'), { outputBudgetBytes: 2000 });
    expect(second.truncated).toBe(true);
    expect(typeof second.output).toBe('string');
    expect(new TextEncoder().encode(second.output as string).length).toBeLessThanOrEqual(2000);
    expect(second.output).toMatch(
      // `more than`: the walk stops past the budget, so the size of a large output is a lower bound.
      /\[output truncated: showing the first \d+ of (more than )?\d+ bytes; ask for a narrower result to see more\]$/,
    );
    expect(second.rawOutput).toBe(big);
    const defaultBudget = await executeAction(registry, action('big'));
    expect(new TextEncoder().encode(defaultBudget.output as string).length).toBeLessThanOrEqual(50_000);
  });

  it('checks the output schema', async () => {
    const registry = new ToolRegistry([
      defineTool({
        name: 'count',
        description: 'Count.',
        input: z.object({}),
        output: z.object({ count: z.number() }),
        execute: () => ({ count: 'many' }) as never,
      }),
    ]);
    const observation = await executeAction(registry, action('count'));
    expect(observation).toMatchObject({ status: 'error', error: { code: 'invalid_tool_output' } });
    expect(observation.error?.message).toMatch(/count/);
  });

  it('injects hidden parameters: the application value wins, and a missing one is an error', async () => {
    const calls: unknown[] = [];
    const registry = new ToolRegistry([
      defineTool({
        name: 'list_orders',
        description: 'Orders of the current user.',
        input: z.object({ status: z.string(), userId: z.string() }),
        inject: ['userId', 'db'],
        execute: (args, context) => {
          calls.push({ args, injected: context.injected });
          return 'ok';
        },
      }),
    ]);
    const db = { query: () => [] };
    const observation = await executeAction(
      registry,
      action('list_orders', { status: 'open', userId: 'admin' }),
      { injected: { userId: 'u_42', db } },
    );
    expect(observation.status).toBe('success');
    expect(calls[0]).toEqual({ args: { status: 'open', userId: 'u_42' }, injected: { userId: 'u_42', db } });
    expect(observation.interceptions?.[0]).toMatchObject({ decision: 'rewritten', source: 'inject' });
    const missing = await executeAction(registry, action('list_orders', { status: 'open' }), {
      injected: { userId: 'u_42' },
    });
    expect(missing.error).toMatchObject({ code: 'missing_injected_value', details: { parameter: 'db' } });
  });

  it('delivers typed results and artifacts beside the text', async () => {
    const artifact = createArtifact({
      url: 'https://files.example.com/r.pdf',
      mimeType: 'application/pdf',
      sha256: 'a'.repeat(64),
      size: 1234,
      name: 'r.pdf',
    });
    const registry = new ToolRegistry([
      simple('find', () => notFound({ what: 'customer', query: { email: 'x@example.com' } })),
      simple('report', () => withArtifacts({ summary: 'Revenue up 4%' }, [artifact])),
    ]);
    const found = await executeAction(registry, action('find'));
    expect(Object.keys(found.output as object)[0]).toBe('kind');
    expect(found.output).toMatchObject({ kind: 'not_found', what: 'customer' });
    const report = await executeAction(registry, action('report'));
    expect(report.output).toEqual({ summary: 'Revenue up 4%' });
    expect(report.artifacts).toEqual([artifact]);
    expect(formatObservationForModel(report)).toBe(
      `{"summary":"Revenue up 4%"}\nArtifacts:\n- r.pdf (application/pdf, 1234 bytes, sha256 ${'a'.repeat(64)}): https://files.example.com/r.pdf`,
    );
  });

  it('emits started and finished events, and a throwing listener changes nothing', async () => {
    const registry = new ToolRegistry([simple('a', () => 1)]);
    const types: string[] = [];
    const observation = await executeAction(registry, action('a'), {
      onEvent: (event) => {
        types.push(event.type);
        throw new Error('listener bug');
      },
    });
    expect(observation.status).toBe('success');
    expect(types).toEqual(['tool-call-started', 'tool-call-finished']);
  });
});

describe('executeActions', () => {
  it('keeps input order and respects maxConcurrency', async () => {
    let running = 0;
    let peak = 0;
    const registry = new ToolRegistry([
      simple('work', async (args) => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setImmediate(resolve));
        await new Promise((resolve) => setImmediate(resolve));
        running--;
        return args.n;
      }),
    ]);
    const actions = Array.from({ length: 10 }, (_, n) => action('work', { n }, `call_${n}`));
    const observations = await executeActions(registry, actions, { maxConcurrency: 3 });
    expect(observations.map((observation) => observation.output)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(observations.map((observation) => observation.actionId)).toEqual(actions.map((item) => item.id));
    expect(peak).toBe(3);
  });
});

describe('formatObservationForModel', () => {
  it('formats success, errors and empty output', () => {
    const base = { actionId: 'a', toolName: 't', durationMs: 1 };
    expect(formatObservationForModel({ ...base, status: 'success', output: 'plain text' })).toBe(
      'plain text',
    );
    expect(formatObservationForModel({ ...base, status: 'success', output: { a: 1 } })).toBe('{"a":1}');
    expect(formatObservationForModel({ ...base, status: 'success' })).toBe(
      'The tool finished without output.',
    );
    expect(
      formatObservationForModel({
        ...base,
        status: 'timeout',
        error: { code: 'timeout', message: 'Too slow.' },
      }),
    ).toBe('Timeout (timeout): Too slow.');
    expect(
      formatObservationForModel({
        ...base,
        status: 'error',
        error: { code: 'tool_execution_failed', message: 'Boom.' },
      }),
    ).toBe('Error (tool_execution_failed): Boom.');
  });
});

describe('executeAction properties', () => {
  it('turns anything a tool throws or rejects with into one error observation', async () => {
    const { default: fc } = await import('fast-check');
    await fc.assert(
      fc.asyncProperty(
        fc.anything({ withBigInt: true, withMap: true, withSet: true }),
        fc.boolean(),
        async (thrown, asynchronous) => {
          const registry = new ToolRegistry([
            simple('fails', () => {
              if (asynchronous) return Promise.reject(thrown);
              throw thrown;
            }),
          ]);
          const observation = await executeAction(registry, action('fails'));
          expect(observation.status).toBe('error');
          expect(observation.error?.code).toBe('tool_execution_failed');
          expect(typeof observation.error?.message).toBe('string');
        },
      ),
      { numRuns: Number(process.env.FC_NUM_RUNS ?? 1000) },
    );
  });
});

describe('executeAction streaming and abort', () => {
  it('closes a stream that is stuck when the call times out', async () => {
    vi.useFakeTimers();
    let closed = false;
    const registry = new ToolRegistry([
      simple(
        'stuck',
        () => ({
          [Symbol.asyncIterator]: () => ({
            next: () => new Promise<IteratorResult<unknown>>(() => {}),
            return: async () => {
              closed = true;
              return { done: true, value: undefined };
            },
          }),
        }),
        { timeoutMs: 100 },
      ),
    ]);
    const pending = executeAction(registry, action('stuck'));
    await vi.advanceTimersByTimeAsync(100);
    expect((await pending).status).toBe('timeout');
    expect(closed).toBe(true);
  });
});

describe('executeAction: the tool context and its signal', () => {
  it("tells the tool its call's deadline and output budget (the shorter deadline wins)", async () => {
    const seen: Array<[number | undefined, number | undefined]> = [];
    const registry = new ToolRegistry([
      defineTool({
        name: 'reads_limits',
        description: 'Reads its limits.',
        input: z.object({}),
        timeoutMs: 800,
        execute: (_args, context) => {
          seen.push([context.timeoutMs, context.outputBudgetBytes]);
          return 'ok';
        },
      }),
    ]);
    await executeAction(registry, action('reads_limits'), { timeoutMs: 500, outputBudgetBytes: 1_000 });
    await executeAction(registry, action('reads_limits'));
    expect(seen).toEqual([
      [500, 1_000],
      [800, 50_000],
    ]);
  });

  it('does not advise narrower arguments when a tool that runs other tools times out', async () => {
    const inner = new ToolRegistry([
      defineTool({ name: 'inner', description: 'Inner.', input: z.object({}), execute: () => 'done' }),
    ]);
    const registry = new ToolRegistry([
      defineTool({
        name: 'runner',
        description: 'Runs inner tools.',
        input: z.object({}),
        nestedTools: inner,
        execute: (_args, context) =>
          new Promise((resolve) => context.signal.addEventListener('abort', resolve)),
      }),
    ]);
    const observation = await executeAction(registry, action('runner'), { timeoutMs: 5 });
    expect(observation.status).toBe('timeout');
    expect(observation.error?.message).not.toContain('narrower arguments');
    expect(observation.error?.message).toContain('may have taken effect');
  });

  it('gives a call without timeout or external signal a real signal, created on first read and kept', async () => {
    const seen: Array<{ keys: string[]; same: boolean; spread: unknown; aborted: boolean }> = [];
    const events: RunEvent[] = [];
    const registry = new ToolRegistry([
      simple(
        'reads_signal',
        (_args, context: { signal: AbortSignal; reportProgress(value: unknown): void }) => {
          const { reportProgress } = context;
          reportProgress('half way');
          const first = context.signal;
          seen.push({
            keys: Object.keys(context),
            same: first === context.signal,
            spread: { ...context }.signal,
            aborted: context.signal.aborted,
          });
          return 'read';
        },
      ),
    ]);
    const observation = await executeAction(registry, action('reads_signal'), {
      onEvent: (event) => events.push(event),
    });
    expect(observation).toMatchObject({ status: 'success', output: 'read' });
    expect(seen).toEqual([
      {
        keys: [
          'signal',
          'toolCallId',
          'toolName',
          'injected',
          'reportProgress',
          'timeoutMs',
          'deadlineAt',
          'outputBudgetBytes',
          'run',
          'toolCall',
          'executeNested',
        ],
        same: true,
        spread: expect.any(AbortSignal),
        aborted: false,
      },
    ]);
    expect(events.map((event) => event.type)).toEqual([
      'tool-call-started',
      'tool-call-progress',
      'tool-call-finished',
    ]);
  });

  it('aborts a signal the tool reads only after it started waiting, on timeout', async () => {
    vi.useFakeTimers();
    let readLater: () => AbortSignal = () => AbortSignal.abort();
    const registry = new ToolRegistry([
      simple(
        'late_reader',
        (_args, context: { signal: AbortSignal }) => {
          readLater = () => context.signal;
          return new Promise(() => {});
        },
        { timeoutMs: 100 },
      ),
    ]);
    const pending = executeAction(registry, action('late_reader'));
    await vi.advanceTimersByTimeAsync(100);
    expect((await pending).status).toBe('timeout');
    expect(readLater().aborted).toBe(true);
  });

  it('turns a synchronous throw into an error observation, with and without a deadline', async () => {
    const registry = new ToolRegistry([
      simple('throws', () => {
        throw new TypeError('bad input');
      }),
    ]);
    for (const options of [{}, { timeoutMs: 60_000 }, { signal: new AbortController().signal }]) {
      expect(await executeAction(registry, action('throws'), options)).toMatchObject({
        status: 'error',
        error: { code: 'tool_execution_failed', details: { thrownName: 'TypeError' } },
      });
    }
  });

  it('serialises an output edited in place by afterToolUse as edited, and keeps primitive outputs', async () => {
    const registry = new ToolRegistry([
      simple('secret', () => ({ token: 'sk-123', city: 'Paris' })),
      simple('text', () => 'plain'),
    ]);
    const redacted = await executeAction(registry, action('secret'), {
      hooks: {
        afterToolUse: ({ observation }) => {
          (observation.rawOutput as { token: string }).token = '[hidden]';
          return undefined;
        },
      },
    });
    expect(redacted.output).toEqual({ token: '[hidden]', city: 'Paris' });
    const text = await executeAction(registry, action('text'), { hooks: { afterToolUse: () => undefined } });
    expect(text).toMatchObject({ status: 'success', output: 'plain', rawOutput: 'plain' });
  });
});

describe('executeAction: synchronous tools with a deadline or a signal', () => {
  it('uses a synchronous result at once, and lets an abort during the call win', async () => {
    const caller = new AbortController();
    const registry = new ToolRegistry([
      simple('quick', () => ({ done: true })),
      simple('aborts_caller', () => {
        caller.abort(new Error('user pressed stop'));
        return 'finished anyway';
      }),
    ]);
    expect(
      await executeAction(registry, action('quick'), {
        timeoutMs: 1000,
        signal: new AbortController().signal,
      }),
    ).toMatchObject({ status: 'success', output: { done: true } });
    const aborted = await executeAction(registry, action('aborts_caller'), { signal: caller.signal });
    expect(aborted).toMatchObject({ status: 'aborted', error: { code: 'aborted' } });
    expect(aborted.output).toBeUndefined();
  });
});

describe('executeAction: interruptions of tools that never read their signal', () => {
  it('stops and closes a stream on timeout, and a signal read after the timeout is already aborted', async () => {
    vi.useFakeTimers();
    let produced = 0;
    let closed = false;
    let readAfter: () => AbortSignal = () => new AbortController().signal;
    const registry = new ToolRegistry([
      simple(
        'ticker',
        (_args, context: { signal: AbortSignal }) => {
          readAfter = () => context.signal;
          return (async function* ticks() {
            try {
              for (;;) {
                await new Promise((resolve) => setTimeout(resolve, 10));
                produced++;
                yield produced;
              }
            } finally {
              closed = true;
            }
          })();
        },
        { timeoutMs: 35 },
      ),
    ]);
    const pending = executeAction(registry, action('ticker'));
    await vi.advanceTimersByTimeAsync(35);
    expect((await pending).status).toBe('timeout');
    await vi.advanceTimersByTimeAsync(100);
    expect(closed).toBe(true);
    expect(produced).toBeLessThanOrEqual(4);
    expect(readAfter().aborted).toBe(true);
    expect(readAfter().reason).toBeInstanceOf(Error);
  });
});

describe('executeAction: an abort while a hook is pending', () => {
  it('does not run the tool when the signal aborts during an async beforeToolUse hook', async () => {
    const execute = vi.fn(() => 'ran');
    const registry = new ToolRegistry([simple('guarded', execute)]);
    const caller = new AbortController();
    const hooks = {
      // An approval prompt or a policy lookup: the user presses stop while it is pending.
      beforeToolUse: async (): Promise<undefined> => {
        await Promise.resolve();
        caller.abort(new Error('user pressed stop'));
        await Promise.resolve();
        return undefined;
      },
    };
    const observation = await executeAction(registry, action('guarded'), { signal: caller.signal, hooks });
    expect(observation).toMatchObject({ status: 'aborted', error: { code: 'aborted' } });
    expect(execute).not.toHaveBeenCalled();
  });
});

describe('executeAction: injected values are scoped to the tool that declares them', () => {
  it('gives each tool only the injected keys it declares, frozen, and an empty object to a tool declaring none', async () => {
    const seen = new Map<string, Readonly<Record<string, unknown>>>();
    const record = (name: string, inject: string[]) =>
      defineTool({
        name,
        description: `${name} tool`,
        input: z.object({}),
        inject,
        execute: (_args, context) => {
          seen.set(name, context.injected);
          return 'ok';
        },
      });
    const registry = new ToolRegistry([
      record('github_search', ['githubToken']),
      record('send_invoice', ['stripeKey']),
      record('get_time', []),
    ]);
    const injected = { githubToken: 'ghp_secret', stripeKey: 'sk_live_secret' };
    for (const name of ['github_search', 'send_invoice', 'get_time']) {
      const observation = await executeAction(registry, action(name), { injected });
      expect(observation.status).toBe('success');
    }
    expect(seen.get('github_search')).toEqual({ githubToken: 'ghp_secret' });
    expect(seen.get('send_invoice')).toEqual({ stripeKey: 'sk_live_secret' });
    expect(seen.get('get_time')).toEqual({});
    for (const value of seen.values()) expect(Object.isFrozen(value)).toBe(true);
  });
});

describe('executeAction: timeoutMs bounds', () => {
  it('treats an Infinity timeout (the call option or the tool definition) as no timeout', async () => {
    // Node fires a timer above 2^31 - 1 ms after 1 ms: a tool finishing after 10 ms would then have timed out.
    const slow = (): Promise<string> => new Promise((resolve) => setTimeout(() => resolve('done'), 10));
    const registry = new ToolRegistry([
      simple('slow_call', slow),
      simple('slow_tool', slow, { timeoutMs: Number.POSITIVE_INFINITY }),
    ]);
    const byCall = await executeAction(registry, action('slow_call'), {
      timeoutMs: Number.POSITIVE_INFINITY,
    });
    expect(byCall).toMatchObject({ status: 'success', output: 'done' });
    const byTool = await executeAction(registry, action('slow_tool'));
    expect(byTool).toMatchObject({ status: 'success', output: 'done' });
    const both = await executeActions(registry, [action('slow_tool')], {
      timeoutMs: Number.POSITIVE_INFINITY,
    });
    expect(both[0]).toMatchObject({ status: 'success', output: 'done' });
  });

  it('rejects a timeoutMs above 2^31 - 1, NaN, zero or negative with InvalidToolOptionError naming the option', async () => {
    const execute = vi.fn(() => 'ran');
    const registry = new ToolRegistry([simple('echo', execute)]);
    for (const timeoutMs of [2_147_483_648, 1e12, Number.NaN, 0, -5, Number.NEGATIVE_INFINITY]) {
      const call = executeAction(registry, action('echo'), { timeoutMs });
      await expect(call).rejects.toSatisfy(
        (error: unknown) =>
          InvalidToolOptionError.isInstance(error) &&
          error.code === 'invalid_tool_option' &&
          error.option === 'timeoutMs' &&
          error.message.includes('timeoutMs'),
      );
      await expect(executeActions(registry, [action('echo')], { timeoutMs })).rejects.toMatchObject({
        code: 'invalid_tool_option',
        option: 'timeoutMs',
      });
    }
    expect(execute).not.toHaveBeenCalled();
    const largest = await executeAction(registry, action('echo'), { timeoutMs: 2_147_483_647 });
    expect(largest.status).toBe('success');
  });

  it('refuses a tool timeoutMs above 2^31 - 1, NaN, zero or negative at definition', () => {
    for (const timeoutMs of [2_147_483_648, Number.NaN, 0, -1]) {
      expect(() => simple('bad_timeout', () => 'x', { timeoutMs })).toThrow(
        expect.objectContaining({ code: 'invalid_tool_definition', field: 'timeoutMs' }),
      );
    }
    expect(simple('max_timeout', () => 'x', { timeoutMs: 2_147_483_647 }).timeoutMs).toBe(2_147_483_647);
  });
});

describe('executeAction: nested calls (context.executeNested)', () => {
  const composite = (inner: ToolRegistry, options: NestedExecuteOptions = {}) =>
    defineTool({
      name: 'composite',
      description: 'Runs inner tools.',
      input: z.object({ tools: z.array(z.string()), args: z.record(z.string(), z.unknown()).optional() }),
      nestedTools: inner,
      execute: async ({ tools: names, args }, context) => {
        const observations = [];
        for (const [index, toolName] of names.entries()) {
          observations.push(
            await context.executeNested(
              { id: `${context.toolCallId}/${index}`, toolName, args: args ?? {} },
              options,
            ),
          );
        }
        return { seen: context.injected, observations };
      },
    });
  const nestedOf = (observation: ToolObservation) =>
    (observation.rawOutput as { observations: ToolObservation[] }).observations;

  it("applies the caller's hooks and injected values to every nested call; the calling tool sees neither value", async () => {
    const sent: string[] = [];
    const inner = new ToolRegistry([
      defineTool({
        name: 'send_email',
        description: 'Sends an email.',
        input: z.object({}),
        execute: () => {
          sent.push('email');
          return 'sent';
        },
      }),
      defineTool({
        name: 'whoami',
        description: 'The current user.',
        input: z.object({}),
        inject: ['userId'],
        execute: (_args, context) => context.injected.userId,
      }),
    ]);
    const seenByHook: string[] = [];
    const observation = await executeAction(
      new ToolRegistry([composite(inner)]),
      action('composite', { tools: ['whoami', 'send_email'] }),
      {
        injected: { userId: 'u-42', apiKey: 'secret' },
        hooks: {
          beforeToolUse: ({ action: seen }) => {
            seenByHook.push(seen.id);
            return seen.toolName === 'send_email'
              ? { decision: 'block', reason: 'no email today' }
              : undefined;
          },
        },
      },
    );
    expect(seenByHook).toEqual(['call_1', 'call_1/0', 'call_1/1']);
    expect(sent).toEqual([]);
    expect((observation.rawOutput as { seen: object }).seen).toEqual({});
    const nested = nestedOf(observation);
    expect(nested.map((item) => [item.actionId, item.status, item.output])).toEqual([
      ['call_1/0', 'success', 'u-42'],
      ['call_1/1', 'blocked', undefined],
    ]);
    expect(nested[1]?.error?.message).toContain('no email today');
  });

  it('runs only the tools bound in nestedTools: a tool cannot assemble its own to read injected values', async () => {
    const extractor = defineTool({
      name: 'extractor',
      description: 'Reads a secret.',
      input: z.object({}),
      inject: ['apiKey'],
      execute: (_args, context) => context.injected.apiKey,
    });
    const sneaky = defineTool({
      name: 'sneaky',
      description: 'Declares no nested tools.',
      input: z.object({}),
      execute: (_args, context) => context.executeNested({ id: 'x', toolName: 'extractor', args: {} }),
    });
    const observation = await executeAction(new ToolRegistry([sneaky, extractor]), action('sneaky'), {
      injected: { apiKey: 'sk-secret-value' },
    });
    expect(observation).toMatchObject({ status: 'error', error: { code: 'tool_execution_failed' } });
    expect(observation.error?.message).toContain('nestedTools');
    expect(JSON.stringify(observation)).not.toContain('sk-secret-value');
  });

  it('inherits the output budget and the clock; validates nested arguments by default', async () => {
    const inner = new ToolRegistry([
      defineTool({
        name: 'big',
        description: 'Returns a long text.',
        input: z.object({ size: z.number().int() }),
        execute: ({ size }) => 'x'.repeat(size),
      }),
    ]);
    let tick = 1000;
    const observation = await executeAction(
      new ToolRegistry([composite(inner)]),
      action('composite', { tools: ['big', 'big'], args: { size: '500' } }),
      { outputBudgetBytes: 100, now: () => (tick += 10) },
    );
    const [first] = nestedOf(observation);
    expect(first).toMatchObject({ status: 'success', truncated: true });
    expect(String(first?.output).length).toBeLessThan(200);
    expect(first?.durationMs).toBeGreaterThanOrEqual(10);
    expect(first?.durationMs).toBeLessThan(1000);

    const invalid = await executeAction(
      new ToolRegistry([composite(inner)]),
      action('composite', { tools: ['big'], args: { size: 'many' } }),
    );
    expect(nestedOf(invalid)[0]).toMatchObject({
      status: 'error',
      error: { code: 'invalid_tool_arguments' },
    });
  });

  it('refuses a nested tool that needs approval unless the caller says it was approved', async () => {
    const paid: string[] = [];
    const inner = new ToolRegistry([
      defineTool({
        name: 'pay',
        description: 'Pays.',
        input: z.object({}),
        needsApproval: true,
        execute: () => {
          paid.push('paid');
          return 'paid';
        },
      }),
    ]);
    const refused = await executeAction(
      new ToolRegistry([composite(inner)]),
      action('composite', { tools: ['pay'] }),
    );
    expect(nestedOf(refused)[0]).toMatchObject({ status: 'blocked', error: { code: 'approval_required' } });
    expect(paid).toEqual([]);
    const approved = await executeAction(
      new ToolRegistry([composite(inner, { approved: true })]),
      action('composite', { tools: ['pay'] }),
    );
    expect(nestedOf(approved)[0]).toMatchObject({ status: 'success', output: 'paid' });
  });

  it('never runs the tool when the call is aborted while an async approval predicate is pending', async () => {
    const ran: string[] = [];
    const registry = new ToolRegistry([
      defineTool({
        name: 'pay',
        description: 'Pays.',
        input: z.object({}),
        needsApproval: async () => {
          await new Promise((resolve) => setTimeout(resolve, 20));
          return false;
        },
        execute: () => {
          ran.push('paid');
          return 'paid';
        },
      }),
    ]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 5);
    const observation = await executeAction(registry, action('pay'), {
      signal: controller.signal,
      requireApproval: true,
    });
    expect(observation.status).toBe('aborted');
    expect(ran).toEqual([]);
    // Without an abort, the predicate's false lets it run.
    expect((await executeAction(registry, action('pay'), { requireApproval: true })).status).toBe('success');
  });

  it("aborts the nested tool's signal when the calling tool times out, even when the nested call has its own signal", async () => {
    const seen: string[] = [];
    const inner = new ToolRegistry([
      defineTool({
        name: 'waits',
        description: 'Waits for its signal.',
        input: z.object({}),
        execute: (_args, context) =>
          new Promise((resolve) =>
            context.signal.addEventListener('abort', () => {
              seen.push('nested aborted');
              resolve('stopped');
            }),
          ),
      }),
    ]);
    const own = new AbortController();
    for (const options of [{}, { signal: own.signal }]) {
      seen.length = 0;
      const observation = await executeAction(
        new ToolRegistry([{ ...composite(inner, options), timeoutMs: 30 }]),
        action('composite', { tools: ['waits'] }),
      );
      expect(observation.status).toBe('timeout');
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(seen).toEqual(['nested aborted']);
    }
    // The nested call's own signal aborts it too.
    const local = new AbortController();
    setTimeout(() => local.abort(), 10);
    const observation = await executeAction(
      new ToolRegistry([composite(inner, { signal: local.signal })]),
      action('composite', { tools: ['waits'] }),
    );
    expect(nestedOf(observation)[0]).toMatchObject({ status: 'aborted' });
  });

  it("bounds each nested call by the caller's per-call deadline, which a nested option can shorten but not lift", async () => {
    const hang = defineTool({
      name: 'hang',
      description: 'Never finishes.',
      input: z.object({}),
      execute: () => new Promise(() => {}),
    });
    const inner = new ToolRegistry([hang]);
    const shortened = await executeAction(
      new ToolRegistry([composite(inner, { timeoutMs: 20 })]),
      action('composite', { tools: ['hang'] }),
    );
    expect(shortened.status).toBe('success');
    expect(nestedOf(shortened)[0]).toMatchObject({
      status: 'timeout',
      error: { details: { timeoutMs: 20 } },
    });
    const bounded = await executeAction(
      new ToolRegistry([composite(inner, { timeoutMs: 5_000 })]),
      action('composite', { tools: ['hang'] }),
      { timeoutMs: 40 },
    );
    expect(bounded.status).toBe('timeout');
  });

  it('refuses an invalid nested deadline with the typed error', async () => {
    const inner = new ToolRegistry([simple('noop', () => 1)]);
    const invalid = defineTool({
      name: 'invalid',
      description: 'Nests with a bad deadline.',
      input: z.object({}),
      nestedTools: inner,
      execute: (_args, context) =>
        context.executeNested({ id: 'n', toolName: 'noop', args: {} }, { timeoutMs: Number.NaN }),
    });
    const observation = await executeAction(new ToolRegistry([invalid]), action('invalid'));
    expect(observation).toMatchObject({ status: 'error', error: { code: 'tool_execution_failed' } });
    expect(observation.error?.details).toMatchObject({ thrownCode: 'invalid_tool_option' });
  });
});

describe('executeAction: event pairing', () => {
  it('closes its tool-call-started even when something unexpected throws, then rethrows', async () => {
    const registry = new ToolRegistry([simple('ok', () => 'fine')]);
    const broken = Object.create(registry, {
      resolve: {
        value: () => {
          throw new Error('registry exploded');
        },
      },
    }) as ToolRegistry;
    const events: RunEvent[] = [];
    await expect(
      executeAction(broken, action('ok'), { onEvent: (event) => events.push(event), now: () => 5 }),
    ).rejects.toThrow('registry exploded');
    expect(events).toEqual([
      { type: 'tool-call-started', timestamp: 5, action: action('ok') },
      {
        type: 'tool-call-finished',
        timestamp: 5,
        observation: {
          actionId: 'call_1',
          toolName: 'ok',
          status: 'error',
          error: { code: 'internal_error', message: 'The call failed unexpectedly: registry exploded' },
          durationMs: 0,
        },
      },
    ]);
  });
});

describe('executeAction: the run view (context.run, context.toolCall)', () => {
  it('shows the tool the caller’s run and its own call, and nested calls the same run without a model call', async () => {
    const seen: unknown[] = [];
    const inner = new ToolRegistry([
      defineTool({
        name: 'inner',
        description: 'inner tool',
        input: z.object({}),
        execute: (_args, context) => {
          seen.push({ tool: 'inner', step: context.run?.step, toolCall: context.toolCall });
          return 'inner';
        },
      }),
    ]);
    const outer = defineTool({
      name: 'outer',
      description: 'outer tool',
      input: z.object({ x: z.number() }),
      nestedTools: inner,
      execute: async (_args, context) => {
        seen.push({ tool: 'outer', step: context.run?.step, toolCall: context.toolCall });
        await context.executeNested({ id: `${context.toolCallId}/1`, toolName: 'inner', args: {} });
        return 'outer';
      },
    });
    const toolCall = Object.freeze({ id: 'call_1', toolName: 'outer', arguments: '{"x": 1}' });
    const run = Object.freeze({
      runId: 'run_1',
      step: 2,
      history: Object.freeze([]),
      toolCalls: Object.freeze([toolCall]),
    });
    await executeAction(new ToolRegistry([outer]), action('outer', { x: 1 }), { run });
    expect(seen).toEqual([
      { tool: 'outer', step: 2, toolCall },
      { tool: 'inner', step: 2, toolCall: undefined },
    ]);
    seen.length = 0;
    await executeAction(new ToolRegistry([outer]), action('outer', { x: 1 }));
    expect(seen).toEqual([
      { tool: 'outer', step: undefined, toolCall: undefined },
      { tool: 'inner', step: undefined, toolCall: undefined },
    ]);
  });
});
