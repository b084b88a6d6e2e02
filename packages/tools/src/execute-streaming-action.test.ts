import { AbortedError, type RunEvent } from '@org/core';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  defineTool,
  type ExecuteActionOptions,
  executeAction,
  executeStreamingAction,
  InvalidToolArgumentsError,
  InvalidToolOptionError,
  type ToolExecutionContext,
  type ToolInputStream,
  ToolRegistry,
} from './index.js';

afterEach(() => {
  vi.useRealTimers();
});

/** A tool that records what it saw of its input: each fragment as it arrived, and its signal. */
function recordingTool(options: { readonly timeoutMs?: number; readonly inject?: readonly string[] } = {}) {
  const seen = {
    fragments: [] as string[],
    signal: undefined as AbortSignal | undefined,
    context: undefined as ToolExecutionContext | undefined,
    iterationError: undefined as unknown,
    argumentsError: undefined as unknown,
    executeCalls: 0,
  };
  let notify: () => void = () => {};
  const tool = defineTool({
    name: 'search',
    description: 'Searches.',
    input: z.object({ query: z.string(), limit: z.number().int().optional(), userId: z.string().optional() }),
    ...(options.inject === undefined ? {} : { inject: options.inject }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    execute: ({ query }) => {
      seen.executeCalls++;
      return { query, via: 'execute' };
    },
    executeStreaming: async (input, context) => {
      seen.signal = context.signal;
      seen.context = context;
      try {
        for await (const fragment of input) {
          seen.fragments.push(fragment);
          notify();
        }
      } catch (error) {
        seen.iterationError = error;
      }
      try {
        const args = await input.arguments;
        return { query: args.query, userId: args.userId, via: 'executeStreaming' };
      } catch (error) {
        seen.argumentsError = error;
        throw error;
      }
    },
  });
  const fragmentArrived = (): Promise<void> =>
    new Promise<void>((resolve) => {
      notify = resolve;
    });
  return { tool, seen, fragmentArrived, registry: new ToolRegistry([tool]) };
}

function eventsOf(): { events: RunEvent[]; onEvent: (event: RunEvent) => void } {
  const events: RunEvent[] = [];
  return { events, onEvent: (event) => events.push(event) };
}

function kinds(events: readonly RunEvent[]): string[] {
  return events.map((event) => event.type);
}

describe('executeStreamingAction', () => {
  it('starts a tool with executeStreaming at once: it reads the fragments while they stream, then runs on the final arguments', async () => {
    const { tool, seen, fragmentArrived, registry } = recordingTool();
    const { events, onEvent } = eventsOf();
    const execution = executeStreamingAction(registry, { id: 'c1', toolName: 'search' }, { onEvent });
    expect(execution.startedEarly).toBe(true);
    expect(kinds(events)).toEqual(['tool-call-started']);
    expect(events[0]).toMatchObject({ action: { id: 'c1', toolName: 'search', args: {} } });

    const first = fragmentArrived();
    execution.push('{"query":');
    await first;
    expect(seen.fragments).toEqual(['{"query":']);
    const second = fragmentArrived();
    execution.push('"paris"}');
    await second;
    expect(seen.fragments).toEqual(['{"query":', '"paris"}']);

    execution.complete({ id: 'c1', toolName: 'search', args: { query: 'paris' } });
    const observation = await execution.observation;
    expect(observation).toMatchObject({
      actionId: 'c1',
      toolName: 'search',
      status: 'success',
      output: { query: 'paris', via: 'executeStreaming' },
    });
    expect(seen.executeCalls).toBe(0);
    expect(seen.signal?.aborted).toBe(false);
    expect(kinds(events)).toEqual(['tool-call-started', 'tool-call-finished']);
    expect(tool.eager).toBe(false);
  });

  it('aborted before complete: the observation is aborted, the tool signal aborts, its input and arguments reject', async () => {
    const { seen, fragmentArrived, registry } = recordingTool();
    const { events, onEvent } = eventsOf();
    const execution = executeStreamingAction(registry, { id: 'c1', toolName: 'search' }, { onEvent });
    const arrived = fragmentArrived();
    execution.push('{"query":"pa');
    await arrived;
    execution.abort(new Error('the stream failed'));
    const observation = await execution.observation;
    expect(observation.status).toBe('aborted');
    expect(observation.error?.code).toBe('aborted');
    expect(observation.error?.message).toContain('the stream failed');
    expect(seen.signal?.aborted).toBe(true);
    // The tool is abandoned at the abort; what it still runs sees its input fail.
    await vi.waitFor(() => expect(seen.argumentsError).toBeDefined());
    expect(AbortedError.isInstance(seen.iterationError)).toBe(true);
    expect(AbortedError.isInstance(seen.argumentsError)).toBe(true);
    expect(kinds(events)).toEqual(['tool-call-started', 'tool-call-finished']);
    // Later calls change nothing.
    execution.complete({ id: 'c1', toolName: 'search', args: { query: 'paris' } });
    execution.push('ris"}');
    expect(await execution.observation).toBe(observation);
  });

  it('invalid final arguments: the input arguments reject and the observation is the validation error executeAction gives', async () => {
    const { seen, registry } = recordingTool();
    const { events, onEvent } = eventsOf();
    const options: ExecuteActionOptions = { onEvent, validate: true };
    const execution = executeStreamingAction(registry, { id: 'c1', toolName: 'search' }, options);
    execution.push('{"limit": "many"}');
    execution.complete({ id: 'c1', toolName: 'search', args: { limit: 'many' } });
    const observation = await execution.observation;
    const direct = await executeAction(
      registry,
      { id: 'c1', toolName: 'search', args: { limit: 'many' } },
      { validate: true },
    );
    expect(observation.status).toBe('error');
    expect(observation.error).toEqual(direct.error);
    expect(observation.error?.code).toBe('invalid_tool_arguments');
    await vi.waitFor(() => expect(seen.argumentsError).toBeDefined());
    expect(InvalidToolArgumentsError.isInstance(seen.argumentsError)).toBe(true);
    expect(seen.signal?.aborted).toBe(true);
    expect(kinds(events)).toEqual(['tool-call-started', 'tool-call-finished']);
  });

  it('a result returned before complete waits for it: counted at complete, discarded at abort', async () => {
    const quick = defineTool({
      name: 'quick',
      description: 'Answers without waiting for its arguments.',
      input: z.object({ n: z.number() }),
      execute: () => 'execute',
      executeStreaming: () => 'early',
    });
    const kept = executeStreamingAction(quick, { id: 'a', toolName: 'quick' });
    let settled = false;
    void kept.observation.then(() => {
      settled = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    kept.complete({ id: 'a', toolName: 'quick', args: { n: 1 } });
    expect(await kept.observation).toMatchObject({ status: 'success', output: 'early' });

    const discarded = executeStreamingAction(quick, { id: 'b', toolName: 'quick' });
    await new Promise((resolve) => setImmediate(resolve));
    discarded.abort('retry');
    expect(await discarded.observation).toMatchObject({ status: 'aborted', error: { code: 'aborted' } });
  });

  it('every iteration reads the whole text from its first fragment', async () => {
    const texts: string[] = [];
    const tool = defineTool({
      name: 'twice',
      description: 'Reads its input twice.',
      input: z.object({ a: z.number() }),
      execute: () => 0,
      executeStreaming: async (input: ToolInputStream<{ a: number }>) => {
        await input.arguments;
        for (let pass = 0; pass < 2; pass++) {
          let text = '';
          for await (const fragment of input) text += fragment;
          texts.push(text);
        }
        return texts.length;
      },
    });
    const execution = executeStreamingAction(tool, { id: 'x', toolName: 'twice' });
    for (const fragment of ['{"a"', ':', '1}']) execution.push(fragment);
    execution.complete({ id: 'x', toolName: 'twice', args: { a: 1 } });
    expect((await execution.observation).output).toBe(2);
    expect(texts).toEqual(['{"a":1}', '{"a":1}']);
  });

  it('applies the call deadline from the start: a tool still waiting for its arguments times out once', async () => {
    vi.useFakeTimers();
    const { seen, registry } = recordingTool({ timeoutMs: 1000 });
    const { events, onEvent } = eventsOf();
    const execution = executeStreamingAction(
      registry,
      { id: 'c1', toolName: 'search' },
      { onEvent, timeoutMs: 500 },
    );
    execution.push('{"query":"pa');
    await vi.advanceTimersByTimeAsync(500);
    const observation = await execution.observation;
    expect(observation.status).toBe('timeout');
    expect(observation.error?.details).toEqual({ timeoutMs: 500 });
    expect(seen.signal?.aborted).toBe(true);
    execution.complete({ id: 'c1', toolName: 'search', args: { query: 'paris' } });
    expect(kinds(events)).toEqual(['tool-call-started', 'tool-call-finished']);
  });

  it('refuses invalid options at once, as executeAction does', () => {
    const { registry } = recordingTool();
    for (const timeoutMs of [0, -1, Number.NaN, 2 ** 31]) {
      expect(() => executeStreamingAction(registry, { id: 'c', toolName: 'search' }, { timeoutMs })).toThrow(
        InvalidToolOptionError,
      );
    }
    expect(() =>
      executeStreamingAction(registry, { id: 'c', toolName: 'search' }, { outputBudgetBytes: Number.NaN }),
    ).toThrow(InvalidToolOptionError);
    expect(() =>
      executeStreamingAction(registry, { id: 'c', toolName: 'search' }, { maxArgumentBytes: -1 }),
    ).toThrow(InvalidToolOptionError);
  });

  it('cuts the output to the budget and runs afterToolUse, as executeAction does', async () => {
    const big = defineTool({
      name: 'big',
      description: 'Returns a lot.',
      input: z.object({ size: z.number() }),
      execute: () => '',
      executeStreaming: async (input) => 'x'.repeat((await input.arguments).size),
    });
    const afterToolUse = vi.fn(() => undefined);
    const execution = executeStreamingAction(
      big,
      { id: 'b', toolName: 'big' },
      { outputBudgetBytes: 100, hooks: { afterToolUse } },
    );
    execution.complete({ id: 'b', toolName: 'big', args: { size: 10_000 } });
    const observation = await execution.observation;
    const direct = await executeAction(
      new ToolRegistry([big]),
      { id: 'b', toolName: 'big', args: { size: 10_000 } },
      { outputBudgetBytes: 100 },
    );
    expect(observation.truncated).toBe(true);
    expect(observation.rawOutput).toBe('x'.repeat(10_000));
    expect(afterToolUse).toHaveBeenCalledTimes(1);
    expect(afterToolUse.mock.calls[0]).toMatchObject([{ action: { id: 'b', args: { size: 10_000 } } }]);
    expect(direct.status).toBe('success');
  });

  it('fills hidden parameters: the tool sees its injected values, the arguments carry the application value', async () => {
    const { seen, registry } = recordingTool({ inject: ['userId'] });
    const execution = executeStreamingAction(
      registry,
      { id: 'c1', toolName: 'search' },
      { injected: { userId: 'u-42', secret: 'not for this tool' } },
    );
    execution.complete({ id: 'c1', toolName: 'search', args: { query: 'paris', userId: 'forged' } });
    const observation = await execution.observation;
    expect(observation.output).toMatchObject({ userId: 'u-42' });
    expect(seen.context?.injected).toEqual({ userId: 'u-42' });
    expect(observation.interceptions).toEqual([expect.objectContaining({ source: 'inject' })]);

    const missing = recordingTool({ inject: ['userId'] });
    const refused = executeStreamingAction(missing.registry, { id: 'c2', toolName: 'search' });
    expect((await refused.observation).error?.code).toBe('missing_injected_value');
    expect(missing.seen.signal).toBeUndefined();
  });

  it('ends the call at the caller signal, with the tool signal following it', async () => {
    const { seen, registry } = recordingTool();
    const controller = new AbortController();
    const execution = executeStreamingAction(
      registry,
      { id: 'c1', toolName: 'search' },
      { signal: controller.signal },
    );
    execution.push('{"query"');
    controller.abort(new Error('run stopped'));
    const observation = await execution.observation;
    expect(observation).toMatchObject({ status: 'aborted', error: { code: 'aborted' } });
    expect(observation.error?.message).toContain('run stopped');
    expect(seen.signal?.aborted).toBe(true);
  });

  it('fails a call whose text grows past maxArgumentBytes, early or not', async () => {
    const { seen, registry } = recordingTool();
    const execution = executeStreamingAction(
      registry,
      { id: 'c1', toolName: 'search' },
      { maxArgumentBytes: 16 },
    );
    execution.push('{"query":"');
    execution.push('a very long query');
    const observation = await execution.observation;
    expect(observation.error).toMatchObject({ code: 'limit_exceeded', details: { maximum: 16 } });
    expect(seen.signal?.aborted).toBe(true);

    const plain = defineTool({ name: 'plain', description: 'P.', input: z.object({}), execute: () => 1 });
    const waiting = executeStreamingAction(plain, { id: 'p', toolName: 'plain' }, { maxArgumentBytes: 4 });
    waiting.push('{"aaaaa":1}');
    expect((await waiting.observation).error?.code).toBe('limit_exceeded');
  });

  it('refuses to complete with the action of another call', () => {
    const { registry } = recordingTool();
    const execution = executeStreamingAction(registry, { id: 'c1', toolName: 'search' });
    expect(() => execution.complete({ id: 'c2', toolName: 'search', args: { query: 'x' } })).toThrow(
      InvalidToolOptionError,
    );
    execution.abort();
  });

  describe('waits for the final arguments where they must be seen first', () => {
    it('with a beforeToolUse hook: nothing starts early; at complete the hook sees the call, then execute runs', async () => {
      const { seen, registry } = recordingTool();
      const { events, onEvent } = eventsOf();
      const beforeToolUse = vi.fn(() => undefined);
      const execution = executeStreamingAction(
        registry,
        { id: 'c1', toolName: 'search' },
        { onEvent, hooks: { beforeToolUse } },
      );
      expect(execution.startedEarly).toBe(false);
      execution.push('{"query":"paris"}');
      await new Promise((resolve) => setImmediate(resolve));
      expect(seen.signal).toBeUndefined();
      expect(events).toEqual([]);
      execution.complete({ id: 'c1', toolName: 'search', args: { query: 'paris' } });
      const observation = await execution.observation;
      expect(beforeToolUse).toHaveBeenCalledTimes(1);
      expect(observation.output).toEqual({ query: 'paris', via: 'execute' });
      expect(seen.executeCalls).toBe(1);
      expect(kinds(events)).toEqual(['tool-call-started', 'tool-call-finished']);
    });

    it('with an approval to decide: nothing starts; an abort gives a finished event for a call that never started', async () => {
      const guarded = defineTool({
        name: 'send',
        description: 'Sends.',
        input: z.object({ to: z.string() }),
        needsApproval: true,
        execute: () => 'sent',
        executeStreaming: () => 'sent early',
      });
      const { events, onEvent } = eventsOf();
      const execution = executeStreamingAction(
        guarded,
        { id: 's', toolName: 'send' },
        { onEvent, requireApproval: true },
      );
      expect(execution.startedEarly).toBe(false);
      execution.abort('discarded');
      const observation = await execution.observation;
      expect(observation).toMatchObject({ status: 'aborted', error: { code: 'aborted' } });
      expect(kinds(events)).toEqual(['tool-call-finished']);
    });

    it('the caller signal ends a call still waiting for its arguments, at once or when it fires', async () => {
      const plain = defineTool({
        name: 'plain',
        description: 'Plain.',
        input: z.object({}),
        execute: () => 1,
      });
      const controller = new AbortController();
      const waiting = executeStreamingAction(
        plain,
        { id: 'p', toolName: 'plain' },
        { signal: controller.signal },
      );
      controller.abort(new Error('run stopped'));
      expect(await waiting.observation).toMatchObject({ status: 'aborted', error: { code: 'aborted' } });
      const late = executeStreamingAction(
        plain,
        { id: 'q', toolName: 'plain' },
        { signal: controller.signal },
      );
      expect((await late.observation).error?.message).toContain('run stopped');
    });

    it('a tool without executeStreaming runs through executeAction at complete', async () => {
      const plain = defineTool({
        name: 'plain',
        description: 'Plain.',
        input: z.object({ n: z.number() }),
        execute: ({ n }) => n * 2,
      });
      const execution = executeStreamingAction(plain, { id: 'p', toolName: 'plain' }, { validate: true });
      expect(execution.startedEarly).toBe(false);
      execution.push('{"n":"4"}');
      execution.complete({ id: 'p', toolName: 'plain', args: { n: '4' } });
      expect(await execution.observation).toMatchObject({ status: 'success', output: 8 });
    });
  });

  it('property: any fragments, any tool behaviour, any ending: one started and one finished event, one observation, the signal aborted unless it succeeded', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ maxLength: 6 }), { maxLength: 6 }),
        fc.constantFrom('awaits-arguments', 'returns-at-once', 'throws-at-once', 'reads-input'),
        fc.constantFrom('complete', 'complete-invalid', 'abort', 'signal', 'overflow'),
        fc.nat({ max: 6 }),
        async (fragments, behaviour, ending, endAt) => {
          const events: RunEvent[] = [];
          let signal: AbortSignal | undefined;
          const tool = defineTool({
            name: 'probe',
            description: 'Probes.',
            input: z.object({ n: z.number() }),
            execute: (): unknown => 'execute',
            executeStreaming: async (input, context) => {
              signal = context.signal;
              if (behaviour === 'returns-at-once') return 'early';
              if (behaviour === 'throws-at-once') throw new Error('broken');
              if (behaviour === 'reads-input') for await (const _ of input);
              return (await input.arguments).n;
            },
          });
          const controller = new AbortController();
          const execution = executeStreamingAction(
            tool,
            { id: 'c', toolName: 'probe' },
            {
              onEvent: (event) => events.push(event),
              validate: true,
              signal: controller.signal,
              maxArgumentBytes: 64,
            },
          );
          const end = (): void => {
            if (ending === 'complete') execution.complete({ id: 'c', toolName: 'probe', args: { n: 1 } });
            else if (ending === 'complete-invalid')
              execution.complete({ id: 'c', toolName: 'probe', args: { n: 'x' } });
            else if (ending === 'abort') execution.abort('discarded');
            else if (ending === 'signal') controller.abort('stopped');
            else {
              execution.push('x'.repeat(100));
              execution.abort('after the overflow');
            }
          };
          for (let index = 0; index < fragments.length; index++) {
            if (index === endAt) end();
            execution.push(fragments[index]!);
            await Promise.resolve();
          }
          if (endAt >= fragments.length) end();
          const observation = await execution.observation;
          expect(events.map((event) => event.type)).toEqual(['tool-call-started', 'tool-call-finished']);
          expect(events[1]).toMatchObject({ observation });
          const expected =
            ending === 'complete'
              ? behaviour === 'throws-at-once'
                ? 'error'
                : 'success'
              : ending === 'abort' || ending === 'signal'
                ? 'aborted'
                : 'error';
          expect(observation.status).toBe(expected);
          if (
            observation.status !== 'success' &&
            behaviour !== 'throws-at-once' &&
            behaviour !== 'returns-at-once'
          )
            expect(signal?.aborted).toBe(true);
        },
      ),
      { numRuns: Number(process.env.FC_NUM_RUNS ?? 500) },
    );
  });
});
