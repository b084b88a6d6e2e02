import { assertToolCallPairing, type Message } from '@org/core';
import { createScriptedModel } from '@org/provider-scripted';
import { describe, expect, it } from 'vitest';
import { reactCall, TASK, weatherTools } from './__fixtures__/weather-task.js';
import {
  createReActPlanner,
  currentRunToolTraces,
  InvalidAgentOptionsError,
  InvalidCompiledMessagesError,
  recentToolTraces,
  runAgent,
} from './index.js';

const weatherCall = (city: string, id: string) => ({ id, toolName: 'get_weather', arguments: { city } });

/** What each model call saw, without the system prompt: role and (for tool results) the call answered. */
function shapes(messages: readonly Message[]): string[] {
  return messages
    .filter((message) => message.role !== 'system')
    .map((message) =>
      message.role === 'tool'
        ? `tool:${message.toolCallId}`
        : message.role === 'assistant' && message.toolCalls !== undefined
          ? `assistant:${message.toolCalls.map((call) => call.id).join(',')}`
          : message.role,
    );
}

describe('runAgent: compileMessages', () => {
  it('recentToolTraces drops tool traces older than N steps from what the model sees, never from the stored history', async () => {
    const model = createScriptedModel({
      script: [
        { toolCalls: [weatherCall('Paris', 'a')] },
        { toolCalls: [weatherCall('Rome', 'b'), weatherCall('Oslo', 'c')] },
        { toolCalls: [weatherCall('Paris', 'd')] },
        { text: 'done' },
      ],
    });
    const result = await runAgent({
      model,
      tools: weatherTools(),
      task: TASK,
      compileMessages: recentToolTraces({ steps: 1 }),
    });
    expect(result.finishReason).toBe('final-answer');
    expect(model.requests.map((request) => shapes(request.messages))).toEqual([
      ['user'],
      ['user', 'assistant:a', 'tool:a'],
      ['user', 'assistant:b,c', 'tool:b', 'tool:c'],
      ['user', 'assistant:d', 'tool:d'],
    ]);
    for (const request of model.requests) assertToolCallPairing(request.messages);
    expect(shapes(result.messages)).toEqual([
      'user',
      'assistant:a',
      'tool:a',
      'assistant:b,c',
      'tool:b',
      'tool:c',
      'assistant:d',
      'tool:d',
      'assistant',
    ]);
  });

  it("recentToolTraces drops a ReAct step's decision together with its observation", async () => {
    const model = createScriptedModel({
      script: [
        reactCall('get_weather', { city: 'Paris' }),
        reactCall('get_weather', { city: 'Rome' }),
        { text: JSON.stringify({ thought: 'Known.', type: 'final_answer', answer: 'Rome.' }) },
      ],
    });
    const result = await runAgent({
      model,
      tools: weatherTools(),
      planner: createReActPlanner(),
      task: TASK,
      compileMessages: recentToolTraces({ steps: 1 }),
    });
    expect(result).toMatchObject({ finishReason: 'final-answer', text: 'Rome.' });
    const last = model.requests.at(-1)?.messages.filter((message) => message.role !== 'system') ?? [];
    expect(last.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(last[1]?.content).toContain('Rome');
    expect(result.messages).toHaveLength(6);
  });

  it("currentRunToolTraces hides earlier runs' tool traces, keeps their text, and keeps this run's traces", async () => {
    const earlier: Message[] = [
      { role: 'user', content: 'Weather in Oslo?' },
      {
        role: 'assistant',
        content: 'Let me look.',
        toolCalls: [{ id: 'old', toolName: 'get_weather', arguments: '{"city":"Oslo"}' }],
      },
      {
        role: 'tool',
        toolCallId: 'old',
        toolName: 'get_weather',
        content: '{"city":"Oslo","temperatureC":4}',
      },
      { role: 'assistant', content: 'Oslo is 4°C.' },
    ];
    const model = createScriptedModel({
      script: [{ toolCalls: [weatherCall('Paris', 'new')] }, { text: 'Paris is 18°C.' }],
    });
    const result = await runAgent({
      model,
      tools: weatherTools(),
      messages: earlier,
      task: 'And Paris?',
      compileMessages: currentRunToolTraces(),
    });
    expect(result.finishReason).toBe('final-answer');
    expect(model.requests.map((request) => shapes(request.messages))).toEqual([
      ['user', 'assistant', 'assistant', 'user'],
      ['user', 'assistant', 'assistant', 'user', 'assistant:new', 'tool:new'],
    ]);
    expect(model.requests[0]?.messages.filter((message) => message.role === 'assistant')[0]?.content).toBe(
      'Let me look.',
    );
    expect(result.messages.slice(0, 4)).toEqual(earlier);
  });

  it('ends the run with InvalidCompiledMessagesError, before the model call that would see it, when the compiler breaks the pairing', async () => {
    const model = createScriptedModel({
      script: [{ toolCalls: [weatherCall('Paris', 'a')] }, { text: 'unused' }],
    });
    const result = await runAgent({
      model,
      tools: weatherTools(),
      task: TASK,
      // Drops tool results but keeps the calls they answer.
      compileMessages: ({ history }) => history.filter((message) => message.role !== 'tool'),
    });
    expect(result.finishReason).toBe('error');
    expect(InvalidCompiledMessagesError.isInstance(result.error)).toBe(true);
    expect(result.error).toMatchObject({ code: 'invalid_compiled_messages', messageIndex: 1 });
    expect(model.requests).toHaveLength(1);
    assertToolCallPairing(result.messages);

    const systemInside = await runAgent({
      model: createScriptedModel({ script: [{ text: 'unused' }] }),
      tools: weatherTools(),
      task: TASK,
      compileMessages: ({ history }) => [{ role: 'system', content: 'sneaky' }, ...history],
    });
    expect(systemInside.error?.message).toContain('message 0 has role "system"');
    const empty = await runAgent({
      model: createScriptedModel({ script: [{ text: 'unused' }] }),
      tools: weatherTools(),
      task: TASK,
      compileMessages: () => [],
    });
    expect(empty.error?.message).toContain('empty');
  });

  it('checks recentToolTraces options when it is created', () => {
    expect(() => recentToolTraces({ steps: 0 })).toThrow(InvalidAgentOptionsError);
    expect(() => recentToolTraces({ steps: 1.5 })).toThrow(/integer >= 1/);
  });
});
