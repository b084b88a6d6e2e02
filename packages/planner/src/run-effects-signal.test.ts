import { AbortedError } from '@org/core';
import { createScriptedModel } from '@org/provider-scripted';
import { describe, expect, it } from 'vitest';
import { TASK, weatherTools } from './__fixtures__/weather-task.js';
import { inProcessRunEffects, type RunEffects, runAgent } from './index.js';

const script = () => [
  { toolCalls: [{ id: 'p', toolName: 'get_weather', arguments: { city: 'Paris' } }] },
  { text: 'Paris is sunny.' },
];

describe('RunEffects.callModel: a signal of the effects for the model call', () => {
  it("joins the effects' signal to the run's: the request aborts when either does", async () => {
    const model = createScriptedModel({ script: script() });
    const run = new AbortController();
    const attempts: AbortController[] = [];
    const effects: RunEffects = {
      ...inProcessRunEffects(),
      callModel: (_info, call) => {
        const attempt = new AbortController();
        attempts.push(attempt);
        return call(attempt.signal);
      },
    };
    const result = await runAgent({ model, tools: weatherTools(), task: TASK, effects, signal: run.signal });
    expect(result.finishReason).toBe('final-answer');
    const [first, second] = model.requests.map((request) => request.signal);
    expect(first?.aborted).toBe(false);
    // The effects abort their own signal (a durable runtime's attempt, cut): that call's request is aborted with it.
    attempts[0]?.abort(new Error('attempt cut'));
    expect(first?.aborted).toBe(true);
    expect(first?.reason).toEqual(new Error('attempt cut'));
    expect(second?.aborted).toBe(false);
    // The run's own signal still reaches every request.
    run.abort(new Error('run cancelled'));
    expect(second?.aborted).toBe(true);
    expect(second?.reason).toEqual(new Error('run cancelled'));
  });

  it('a model call whose effects signal is already aborted is not made: the run ends on the abort', async () => {
    const model = createScriptedModel({ script: script() });
    const effects: RunEffects = {
      ...inProcessRunEffects(),
      callModel: (_info, call) => call(AbortSignal.abort(new Error('attempt cut'))),
    };
    const result = await runAgent({ model, tools: weatherTools(), task: TASK, effects });
    expect(result.finishReason).not.toBe('final-answer');
    expect(AbortedError.isInstance(result.error)).toBe(true);
    expect(model.requests[0]?.signal?.aborted).toBe(true);
  });

  it('without a signal of its own, the request carries the run signal as given', async () => {
    const model = createScriptedModel({ script: script() });
    const run = new AbortController();
    const effects: RunEffects = { ...inProcessRunEffects(), callModel: (_info, call) => call() };
    await runAgent({ model, tools: weatherTools(), task: TASK, effects, signal: run.signal });
    expect(model.requests.map((request) => request.signal)).toEqual([run.signal, run.signal]);
  });
});
