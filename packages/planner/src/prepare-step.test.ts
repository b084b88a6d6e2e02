import { createScriptedModel } from '@org/provider-scripted';
import { describe, expect, it } from 'vitest';
import { PARIS, ROME, TASK, weatherTools } from './__fixtures__/weather-task.js';
import { InvalidAgentOptionsError, type PrepareStepContext, runAgent } from './index.js';

const weather = (city: string, id: string) => ({ id, toolName: 'get_weather', arguments: { city } });

describe('runAgent: prepareStep', () => {
  it('changes the active tools, the tool choice and the model per step, seeing what the policy chose', async () => {
    const first = createScriptedModel({ script: [{ toolCalls: [weather('Paris', 'p')] }] });
    const second = createScriptedModel({
      modelId: 'second',
      script: [
        {
          toolCalls: [
            { id: 'c', toolName: 'compare_temperatures', arguments: { first: PARIS, second: ROME } },
          ],
        },
        { text: 'Rome is warmer.' },
      ],
    });
    const seen: Pick<PrepareStepContext, 'step' | 'calledTools'>[] = [];
    const result = await runAgent({
      model: first,
      tools: weatherTools(),
      task: TASK,
      toolChoice: 'auto',
      prepareStep: ({ step, calledTools, toolChoice }) => {
        seen.push({ step, calledTools: [...calledTools] });
        expect(toolChoice).toEqual({ type: 'auto' });
        if (step === 0) return { activeTools: ['get_weather'], toolChoice: 'required' };
        return { model: second };
      },
    });
    expect(result).toMatchObject({ finishReason: 'final-answer', text: 'Rome is warmer.' });
    expect(first.requests[0]?.tools?.map((tool) => tool.name)).toEqual(['get_weather']);
    expect(first.requests[0]?.toolChoice).toEqual({ type: 'required' });
    expect(second.requests).toHaveLength(2);
    expect(second.requests[0]?.tools?.map((tool) => tool.name)).toEqual([
      'get_weather',
      'compare_temperatures',
    ]);
    expect(seen).toEqual([
      { step: 0, calledTools: [] },
      { step: 1, calledTools: ['get_weather'] },
      { step: 2, calledTools: ['get_weather', 'compare_temperatures'] },
    ]);
    expect(result.steps.map((step) => step.toolChoice.type)).toEqual(['required', 'auto', 'auto']);
  });

  it('refuses a call of a tool that is not active in its step, as an unknown tool', async () => {
    const result = await runAgent({
      model: createScriptedModel({
        script: [
          {
            toolCalls: [
              { id: 'c', toolName: 'compare_temperatures', arguments: { first: PARIS, second: ROME } },
            ],
          },
          { text: 'ok' },
        ],
      }),
      tools: weatherTools(),
      task: TASK,
      prepareStep: () => ({ activeTools: ['get_weather'] }),
    });
    expect(result.observations[0]).toMatchObject({ status: 'error', toolName: 'compare_temperatures' });
  });

  for (const [name, settings, message] of [
    ['an unknown active tool', { activeTools: ['nope'] }, /activeTools names "nope"/],
    [
      'a choice of an inactive tool',
      { activeTools: ['get_weather'], toolChoice: { type: 'tool', toolName: 'compare_temperatures' } },
      /tool choice that cannot apply/,
    ],
    ['something that is not a model', { model: { modelId: 'x' } }, /model this run cannot use/],
    [
      'a model without tool calls for a function-calling run',
      { model: createScriptedModel({ script: [], capabilities: { toolCalls: false } }) },
      /model this run cannot use/,
    ],
  ] as const) {
    it(`ends the run with a typed error, before the model call, on ${name}`, async () => {
      const model = createScriptedModel({ script: [{ text: 'never' }] });
      const result = await runAgent({
        model,
        tools: weatherTools(),
        task: TASK,
        // biome-ignore lint/suspicious/noExplicitAny: hostile settings on purpose
        prepareStep: () => settings as any,
      });
      expect(result.finishReason).toBe('error');
      expect(InvalidAgentOptionsError.isInstance(result.error)).toBe(true);
      expect(result.error?.message).toMatch(message);
      expect(model.requests).toHaveLength(0);
    });
  }
});
