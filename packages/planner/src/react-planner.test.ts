import { contentText, type RunEvent, ToolChoice } from '@org/core';
import { createScriptedModel } from '@org/provider-scripted';
import { describe, expect, it } from 'vitest';
import {
  EXPECTED_ANSWER,
  PARIS,
  ROME,
  reactAnswerFromLastObservation,
  reactCall,
  SYSTEM_PROMPT,
  TASK,
  weatherTools,
} from './__fixtures__/weather-task.js';
import {
  createReActPlanner,
  DecisionExtractionError,
  InvalidAgentOptionsError,
  renderReActInstructions,
  runAgent,
} from './index.js';

const reactModel = (script: Parameters<typeof createScriptedModel>[0]['script']) =>
  createScriptedModel({ script, capabilities: { toolCalls: false } });

describe('createReActPlanner', () => {
  it('prompts with the tools and the decision format, sends no tools, and records Thought/Action/Observation', async () => {
    const tools = weatherTools();
    const model = reactModel([
      { text: 'Thought: I need Paris.\nAction: get_weather\nAction Input: {"city": "Paris"}' },
      { text: 'Thought: I know.\nFinal Answer: Paris is at 18°C.' },
    ]);
    const result = await runAgent({
      model,
      tools,
      planner: createReActPlanner(),
      systemPrompt: SYSTEM_PROMPT,
      task: TASK,
    });
    expect(result).toMatchObject({ finishReason: 'final-answer', text: 'Paris is at 18°C.' });
    const [first, second] = model.requests;
    expect(first?.tools).toBeUndefined();
    expect(first?.messages[0]).toEqual({
      role: 'system',
      content: `${SYSTEM_PROMPT}\n\n${renderReActInstructions(tools.specs(), ToolChoice.auto())}`,
    });
    const system = first?.messages[0]?.content ?? '';
    expect(system).toContain('- get_weather: Current temperature of a city');
    expect(system).toContain('"type": "call_tool"');
    // The model answered in the text form; the history shows the decision in the format the prompt asks for.
    expect(second?.messages.slice(2)).toEqual([
      {
        role: 'assistant',
        content:
          '{"thought":"I need Paris.","type":"call_tool","tool":"get_weather","args":{"city":"Paris"}}',
      },
      { role: 'user', content: expect.stringMatching(/^Observation: /) },
    ]);
    expect(JSON.parse(contentText(second?.messages[3]?.content ?? '').replace('Observation: ', ''))).toEqual(
      PARIS,
    );
  });

  it('asks for the text form when configured, and can keep the model’s own text in the history', async () => {
    const tools = weatherTools();
    const model = reactModel([
      reactCall('get_weather', { city: 'Paris' }, 'Paris first.'),
      { text: 'Thought: done\nFinal Answer: 18°C.' },
      reactCall('get_weather', { city: 'Rome' }),
      { text: 'Final Answer: 24°C.' },
    ]);
    const text = await runAgent({
      model,
      tools,
      planner: createReActPlanner({ decisionFormat: 'text' }),
      task: TASK,
    });
    expect(model.requests[0]?.messages[0]?.content).toBe(
      renderReActInstructions(tools.specs(), ToolChoice.auto(), 'text'),
    );
    expect(model.requests[0]?.messages[0]?.content).toContain(
      'Action Input: <the arguments as one JSON object>',
    );
    expect(text.messages[1]).toEqual({
      role: 'assistant',
      content: 'Thought: Paris first.\nAction: get_weather\nAction Input: {"city":"Paris"}',
    });
    const verbatim = await runAgent({
      model,
      tools,
      planner: createReActPlanner({ historyFormat: 'verbatim' }),
      task: TASK,
    });
    expect(verbatim.messages[1]?.content).toBe(
      JSON.stringify({
        thought: 'I call get_weather.',
        type: 'call_tool',
        tool: 'get_weather',
        args: { city: 'Rome' },
      }),
    );
    expect(verbatim.text).toBe('24°C.');
  });

  it('retries an unreadable answer with the parse error shown to the model, emitting an event per failure', async () => {
    const events: RunEvent[] = [];
    const model = reactModel([
      { text: 'Let me think about the weather...' },
      { text: '{"type": "call_tool", "args": {"city": "Paris"}}' },
      reactCall('get_weather', { city: 'Rome' }),
      { text: '{"type": "final_answer", "answer": "Rome: 24°C."}' },
    ]);
    const result = await runAgent({
      model,
      tools: weatherTools(),
      planner: createReActPlanner({ maxRetries: 2 }),
      task: TASK,
      onEvent: (event) => events.push(event),
    });
    expect(result).toMatchObject({ finishReason: 'final-answer', text: 'Rome: 24°C.', roundTrips: 4 });
    const failures = events.filter((event) => event.type === 'decision-extraction-failed');
    expect(failures.map((event) => event.attempt)).toEqual([1, 2]);
    const retry = model.requests[1]?.messages ?? [];
    expect(retry.at(-2)).toEqual({ role: 'assistant', content: 'Let me think about the weather...' });
    expect(retry.at(-1)?.content).toMatch(/^Your answer could not be used: No decision was found/);
    expect(model.requests[2]?.messages.at(-1)?.content).toMatch(/needs "tool"/);
    // The failed attempts stay out of the history.
    expect(result.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(result.steps[0]?.inferences.map((inference) => inference.purpose)).toEqual([
      'decision',
      'retry',
      'retry',
    ]);
  });

  it('ends the run with DecisionExtractionError once the retries are spent', async () => {
    const model = reactModel([{ text: 'hmm' }, { text: 'still thinking' }]);
    const result = await runAgent({
      model,
      tools: weatherTools(),
      planner: createReActPlanner({ maxRetries: 1 }),
      task: TASK,
    });
    expect(result.finishReason).toBe('error');
    expect(DecisionExtractionError.isInstance(result.error)).toBe(true);
    expect(result.error).toMatchObject({ attempts: 2, text: 'still thinking' });
    expect(result.roundTrips).toBe(2);
    expect(() => createReActPlanner({ maxRetries: -1 })).toThrow(InvalidAgentOptionsError);
  });

  it('treats an unknown tool or invalid arguments as a validation failure the model observes', async () => {
    const events: RunEvent[] = [];
    const executions: string[] = [];
    const model = reactModel([
      reactCall('get_wether', { city: 'Paris' }),
      reactCall('compare_temperatures', { first: PARIS }),
      reactCall('compare_temperatures', { first: PARIS, second: ROME }),
      reactAnswerFromLastObservation,
    ]);
    const result = await runAgent({
      model,
      tools: weatherTools(executions),
      planner: createReActPlanner(),
      task: TASK,
      onEvent: (event) => events.push(event),
    });
    expect(result.text).toBe(EXPECTED_ANSWER);
    expect(executions).toEqual(['compare_temperatures(Paris, Rome)']);
    expect(model.requests[1]?.messages.at(-1)?.content).toMatch(/^Observation: .*get_weather/s);
    expect(model.requests[2]?.messages.at(-1)?.content).toMatch(/second/);
    expect(
      events.filter((event) => event.type === 'validation-failed').map((event) => event.toolName),
    ).toEqual(['get_wether', 'compare_temperatures']);
    expect(result.observations.map((observation) => observation.error?.code)).toEqual([
      'unknown_tool',
      'invalid_tool_arguments',
      undefined,
    ]);
  });

  it('can take the final answer from a separate inference', async () => {
    const model = reactModel([
      { text: '{"type": "final_answer", "answer": "terse"}' },
      { text: 'Rome is warmer today, at 24°C.' },
    ]);
    const result = await runAgent({
      model,
      tools: weatherTools(),
      planner: createReActPlanner({ finalAnswer: 'separate-inference' }),
      task: TASK,
    });
    expect(result.text).toBe('Rome is warmer today, at 24°C.');
    expect(result.roundTrips).toBe(2);
    expect(model.requests[1]?.messages.at(-1)?.content).toMatch(/final answer for the user/);
    expect(result.messages.at(-1)).toEqual({ role: 'assistant', content: 'Rome is warmer today, at 24°C.' });
  });

  it('emulates tool choice in the prompt and retries a decision that breaks it', async () => {
    const events: RunEvent[] = [];
    const model = reactModel([
      reactCall('get_weather', { city: 'Paris' }),
      { text: '{"type": "final_answer", "answer": "From memory: Rome."}' },
    ]);
    const result = await runAgent({
      model,
      tools: weatherTools(),
      planner: createReActPlanner(),
      task: TASK,
      toolChoice: 'none',
      onEvent: (event) => events.push(event),
    });
    expect(result.text).toBe('From memory: Rome.');
    expect(model.requests[0]?.messages[0]?.content).toContain('Do not call a tool now');
    expect(events.find((event) => event.type === 'decision-extraction-failed')).toMatchObject({
      message: expect.stringContaining('Tools may not be called now'),
    });
    expect(
      events.some((event) => event.type === 'adjustment' && event.adjustment.kind === 'tool-choice-emulated'),
    ).toBe(true);
  });

  it('puts the decision and the final answer, redacted of secrets, on inference-finished events', async () => {
    const events: RunEvent[] = [];
    const decision = reactCall('get_weather', { city: 'Paris' });
    const model = reactModel([
      decision,
      {
        text: '{"type": "final_answer", "answer": "Paris is at 18°C. The key was sk-live1234567890abcdef."}',
      },
    ]);
    const result = await runAgent({
      model,
      tools: weatherTools(),
      planner: createReActPlanner(),
      task: TASK,
      onEvent: (event) => events.push(event),
    });
    expect(result.finishReason).toBe('final-answer');
    const texts = events.flatMap((event) => (event.type === 'inference-finished' ? [event.text] : []));
    expect(texts).toEqual([
      decision.text,
      '{"type": "final_answer", "answer": "Paris is at 18°C. The key was [REDACTED]."}',
    ]);
    expect(JSON.stringify(events)).not.toContain('sk-live1234567890abcdef');
  });
});
