import type { RunEvent } from '@org/core';
import { createScriptedModel } from '@org/provider-scripted';
import { describe, expect, it, vi } from 'vitest';
import {
  answerFromLastObservation,
  EXPECTED_ANSWER,
  PARIS,
  ROME,
  TASK,
  weatherTools,
} from './__fixtures__/weather-task.js';
import { runAgent, streamAgent } from './index.js';

const script = () => [
  {
    toolCalls: [
      { toolName: 'get_weather', arguments: { city: 'Paris' } },
      { toolName: 'get_weather', arguments: { city: 'Rome' } },
    ],
  },
  { toolCalls: [{ toolName: 'compare_temperatures', arguments: { first: PARIS, second: ROME } }] },
  answerFromLastObservation,
];

describe('streamAgent', () => {
  it('yields the same events runAgent emits, in order, and resolves the same result', async () => {
    const streamed: RunEvent[] = [];
    const alsoToListener: RunEvent[] = [];
    const stream = streamAgent({
      model: createScriptedModel({ script: script() }),
      tools: weatherTools(),
      task: TASK,
      runId: 'run-a',
      onEvent: (event) => alsoToListener.push(event),
    });
    for await (const event of stream) streamed.push(event);
    const result = await stream.result;

    const emitted: RunEvent[] = [];
    const direct = await runAgent({
      model: createScriptedModel({ script: script() }),
      tools: weatherTools(),
      task: TASK,
      runId: 'run-a',
      onEvent: (event) => emitted.push(event),
    });
    const shape = (events: RunEvent[]) => events.map((event) => event.type);
    expect(shape(streamed)).toEqual(shape(emitted));
    expect(alsoToListener).toEqual(streamed);
    expect(result.text).toBe(EXPECTED_ANSWER);
    expect(result).toMatchObject({
      finishReason: direct.finishReason,
      text: direct.text,
      usage: direct.usage,
      roundTrips: direct.roundTrips,
      messages: direct.messages,
      toolStats: direct.toolStats,
    });
  });

  it('delivers an options error through the result and the iteration', async () => {
    const stream = streamAgent({ model: createScriptedModel({ script: [] }), tools: weatherTools() });
    await expect(stream.result).rejects.toMatchObject({ code: 'invalid_agent_options' });
    await expect(
      (async () => {
        for await (const _event of stream) {
          // no events: the run never started
        }
      })(),
    ).rejects.toMatchObject({ code: 'invalid_agent_options' });
  });

  it('aborts the run when the consumer stops reading: nothing new starts, the result says aborted', async () => {
    const executions: string[] = [];
    const model = createScriptedModel({ script: script() });
    const stream = streamAgent({ model, tools: weatherTools(executions), task: TASK });
    for await (const event of stream) {
      if (event.type === 'inference-finished') break;
    }
    const result = await stream.result;
    expect(result.finishReason).toBe('aborted');
    expect(result.error).toMatchObject({ code: 'aborted' });
    expect(model.requests).toHaveLength(1);
    expect(executions).toEqual([]);
  });

  it("still follows the caller's signal, and a stream read to the end is not aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const aborted = streamAgent({
      model: createScriptedModel({ script: script() }),
      tools: weatherTools(),
      task: TASK,
      signal: controller.signal,
    });
    for await (const _event of aborted) {
      // read to the end
    }
    expect((await aborted.result).finishReason).toBe('aborted');

    const complete = streamAgent({
      model: createScriptedModel({ script: script() }),
      tools: weatherTools(),
      task: TASK,
    });
    const types: string[] = [];
    for await (const event of complete) types.push(event.type);
    expect(types.at(-1)).toBe('run-finished');
    expect((await complete.result).text).toBe(EXPECTED_ANSWER);
  });

  it('aborts the run too when the loop body throws or returns', async () => {
    for (const stop of ['throw', 'return'] as const) {
      const model = createScriptedModel({ script: script() });
      const stream = streamAgent({ model, tools: weatherTools(), task: TASK });
      const consume = async (): Promise<void> => {
        for await (const event of stream) {
          if (event.type !== 'inference-finished') continue;
          if (stop === 'throw') throw new Error('consumer failed');
          return;
        }
      };
      if (stop === 'throw') await expect(consume()).rejects.toThrow('consumer failed');
      else await consume();
      expect((await stream.result).finishReason).toBe('aborted');
      expect(model.requests).toHaveLength(1);
    }
  });

  it("follows the caller's signal aborted mid-run, and lets go of it when the run ends", async () => {
    const controller = new AbortController();
    const stream = streamAgent({
      model: createScriptedModel({ script: script() }),
      tools: weatherTools(),
      task: TASK,
      signal: controller.signal,
    });
    for await (const event of stream) {
      if (event.type === 'inference-finished') controller.abort(new Error('user cancelled'));
    }
    expect((await stream.result).finishReason).toBe('aborted');

    // A run that ends normally leaves no listener on a long-lived signal.
    const longLived = new AbortController();
    const added = vi.spyOn(longLived.signal, 'addEventListener');
    const removed = vi.spyOn(longLived.signal, 'removeEventListener');
    const complete = streamAgent({
      model: createScriptedModel({ script: script() }),
      tools: weatherTools(),
      task: TASK,
      signal: longLived.signal,
    });
    expect((await complete.result).text).toBe(EXPECTED_ANSWER);
    const listenersOf = (spy: typeof added | typeof removed) => spy.mock.calls.map((call) => call[1]);
    expect(listenersOf(added).length).toBeGreaterThan(0);
    for (const listener of listenersOf(added)) expect(listenersOf(removed)).toContain(listener);
  });
});
