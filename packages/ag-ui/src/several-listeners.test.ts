import type { RunEvent, RunEventListener } from '@org/core';
import { createScriptedModel } from '@org/provider-scripted';
import { defineTool } from '@org/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseSseEvents } from './__fixtures__/event-order.js';
import { createAgUiHandler } from './ag-ui-handler.js';
import { InvalidAgUiOptionError } from './errors.js';

const getWeather = defineTool({
  name: 'get_weather',
  description: 'Current temperature of a city.',
  input: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, temperatureC: 18 }),
});

const post = (): Request =>
  new Request('http://localhost/api/agent', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({
      threadId: 'thread-1',
      runId: 'run-1',
      messages: [{ id: 'user-1', role: 'user', content: 'Weather in Paris?' }],
    }),
  });

describe('createAgUiHandler onEvent: one listener or several', () => {
  it('gives each listener every event; a throwing one costs neither the others nor the client anything', async () => {
    const first: RunEvent[] = [];
    const second: RunEvent[] = [];
    const handler = createAgUiHandler({
      model: createScriptedModel({
        script: [
          { toolCalls: [{ id: 'c', toolName: 'get_weather', arguments: { city: 'Paris' } }] },
          { text: 'Mild.' },
        ],
      }),
      tools: [getWeather],
      onEvent: [
        (event) => first.push(event),
        () => {
          throw new Error('a broken printer');
        },
        (event) => second.push(event),
      ],
    });
    const events = parseSseEvents(await (await handler(post())).text());
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
    expect(first[0]?.type).toBe('run-started');
    expect(first.at(-1)?.type).toBe('run-finished');
    expect(second).toEqual(first);
  });

  it('refuses a value that is not a listener with InvalidAgUiOptionError naming onEvent, when the handler is made', () => {
    for (const onEvent of ['print', [() => {}, 0]] as unknown as RunEventListener[]) {
      expect(() =>
        createAgUiHandler({ model: createScriptedModel({ script: [] }), tools: [getWeather], onEvent }),
      ).toThrow(expect.objectContaining({ option: 'onEvent' }));
      expect(() =>
        createAgUiHandler({ model: createScriptedModel({ script: [] }), tools: [getWeather], onEvent }),
      ).toThrow(InvalidAgUiOptionError);
    }
  });
});
