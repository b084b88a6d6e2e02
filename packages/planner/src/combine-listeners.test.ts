import type { RunEvent, RunEventListener } from '@org/core';
import { createScriptedModel } from '@org/provider-scripted';
import { describe, expect, it } from 'vitest';
import { answerFromLastObservation, TASK, weatherTools } from './__fixtures__/weather-task.js';
import { combineListeners, InvalidAgentOptionsError, runAgent, streamAgent } from './index.js';

const script = () => [
  { toolCalls: [{ toolName: 'get_weather', arguments: { city: 'Paris' } }] },
  answerFromLastObservation,
];

describe('several listeners', () => {
  it('runAgent({ onEvent: [a, b] }) gives both every event in order; a throwing listener costs the others nothing', async () => {
    const first: string[] = [];
    const second: string[] = [];
    const throwing: RunEventListener = () => {
      throw new Error('a broken printer');
    };
    const result = await runAgent({
      model: createScriptedModel({ script: script() }),
      tools: weatherTools(),
      task: TASK,
      onEvent: [(event) => first.push(event.type), throwing, (event) => second.push(event.type)],
    });
    expect(result.finishReason).toBe('final-answer');
    expect(first[0]).toBe('run-started');
    expect(first.at(-1)).toBe('run-finished');
    expect(second).toEqual(first);
  });

  it('streamAgent yields what each of its listeners gets, and combineListeners combines them the same way', async () => {
    const printed: string[] = [];
    const traced: RunEvent[] = [];
    const stream = streamAgent({
      model: createScriptedModel({ script: script() }),
      tools: weatherTools(),
      task: TASK,
      onEvent: combineListeners(
        (event) => printed.push(event.type),
        undefined,
        (event) => traced.push(event),
      ),
    });
    const yielded: RunEvent[] = [];
    for await (const event of stream) yielded.push(event);
    expect(traced).toEqual(yielded);
    expect(printed).toEqual(yielded.map((event) => event.type));
  });

  it('an empty list listens to nothing; a value that is not a listener is refused before any model call', async () => {
    const model = createScriptedModel({ script: script() });
    const quiet = await runAgent({ model, tools: weatherTools(), task: TASK, onEvent: [] });
    expect(quiet.finishReason).toBe('final-answer');
    const refused = runAgent({
      model: createScriptedModel({ script: script() }),
      tools: weatherTools(),
      task: TASK,
      onEvent: ['print' as unknown as RunEventListener],
    });
    await expect(refused).rejects.toSatisfy(
      (error) => InvalidAgentOptionsError.isInstance(error) && error.option === 'onEvent',
    );
  });
});
