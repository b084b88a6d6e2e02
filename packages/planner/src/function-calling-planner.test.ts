import { assertToolCallPairing, contentText, type RunEvent, type ToolMessage } from '@org/core';
import { countTokens, createScriptedModel } from '@org/provider-scripted';
import { defineTool, ToolRegistry } from '@org/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  answerFromLastObservation,
  EXPECTED_ANSWER,
  PARIS,
  ROME,
  SYSTEM_PROMPT,
  TASK,
  weatherTools,
} from './__fixtures__/weather-task.js';
import { createFunctionCallingPlanner, InvalidAgentOptionsError, isArgumentEcho, runAgent } from './index.js';

function toolMessages(messages: readonly { role: string }[]): ToolMessage[] {
  return messages.filter((message): message is ToolMessage => message.role === 'tool');
}

describe('createFunctionCallingPlanner', () => {
  it('builds each request from the system prompt, the history, the task, the registry specs and the tool choice', async () => {
    const tools = weatherTools();
    const model = createScriptedModel({
      script: [
        { toolCalls: [{ toolName: 'get_weather', arguments: { city: 'Paris' } }] },
        { text: 'Paris: 18°C.' },
      ],
    });
    const result = await runAgent({
      model,
      tools,
      planner: createFunctionCallingPlanner(),
      systemPrompt: SYSTEM_PROMPT,
      task: TASK,
    });
    expect(result).toMatchObject({ finishReason: 'final-answer', text: 'Paris: 18°C.' });
    const [first, second] = model.requests;
    expect(first?.messages).toEqual([
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: TASK },
    ]);
    // The scripted model declares strictSchemas: every tool here can be strict, so each goes out strict.
    expect(first?.tools).toEqual(tools.specs({ target: 'openai-strict' }));
    expect(first?.toolChoice).toEqual({ type: 'auto' });
    expect(second?.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(
      JSON.parse(contentText((second?.messages[3] as ToolMessage | undefined)?.content ?? 'null')),
    ).toEqual(PARIS);
  });

  it('adds the strategic plan block to the system prompt, cut to the configured length with a visible mark', async () => {
    const model = createScriptedModel({ script: [{ text: 'ok' }] });
    const strategicPlan = {
      goal: 'compare',
      cities: Array.from({ length: 50 }, (_, index) => `city-${index}`),
    };
    await runAgent({
      model,
      tools: weatherTools(),
      systemPrompt: SYSTEM_PROMPT,
      strategicPlan,
      maxStrategicPlanCharacters: 120,
      task: TASK,
    });
    const system = contentText(model.requests[0]?.messages[0]?.content ?? '');
    expect(system.startsWith(`${SYSTEM_PROMPT}\n\nStrategic plan (JSON, cut to its first 120 of`)).toBe(true);
    expect(system).toContain(JSON.stringify(strategicPlan, null, 2).slice(0, 120));
    expect(system).toContain('[... plan cut ...]');
    expect(system).not.toContain('city-49');
  });

  it('turns an unparseable call into an error result the model sees next turn, and keeps going', async () => {
    const events: RunEvent[] = [];
    const executions: string[] = [];
    const model = createScriptedModel({
      script: [
        { toolCalls: [{ toolName: 'get_weather', arguments: '{"city": ' }] },
        { toolCalls: [{ toolName: 'get_weather', arguments: '{"city": "Paris"}' }] },
        { text: 'Paris: 18°C.' },
      ],
    });
    const result = await runAgent({
      model,
      tools: weatherTools(executions),
      task: TASK,
      onEvent: (e) => events.push(e),
    });
    expect(result.finishReason).toBe('final-answer');
    expect(executions).toEqual(['get_weather(Paris)']);
    const [broken] = toolMessages(model.requests[1]?.messages ?? []);
    expect(broken).toMatchObject({ toolCallId: 'call_0_0', isError: true });
    expect(broken?.content).toMatch(/malformed_tool_arguments|not a valid JSON object|incomplete/i);
    expect(result.steps[0]?.rejectedToolCalls).toEqual([{ toolCallId: 'call_0_0', reason: 'validation' }]);
    expect(events.filter((event) => event.type === 'validation-failed')).toHaveLength(1);
    expect(result.toolStats.get_weather).toMatchObject({ chosen: 2, invalid: 1, succeeded: 1 });
    assertToolCallPairing(result.messages);
  });

  it('never runs a call with missing or mistyped arguments as {}, and coerces a string for a number', async () => {
    const executions: string[] = [];
    const model = createScriptedModel({
      script: [
        {
          toolCalls: [
            { toolName: 'compare_temperatures', arguments: '{}' },
            {
              toolName: 'compare_temperatures',
              arguments: { first: { city: 'Paris', temperatureC: '18' }, second: ROME },
            },
          ],
        },
        answerFromLastObservation,
      ],
    });
    const result = await runAgent({ model, tools: weatherTools(executions), task: TASK });
    expect(executions).toEqual(['compare_temperatures(Paris, Rome)']);
    expect(result.observations.map((observation) => observation.status)).toEqual(['error', 'success']);
    expect(result.observations[0]?.error?.code).toBe('invalid_tool_arguments');
    expect(result.text).toBe(EXPECTED_ANSWER);
  });

  it('answers a call to an unknown tool with an error listing the available tools', async () => {
    const model = createScriptedModel({
      script: [{ toolCalls: [{ toolName: 'get_wether', arguments: { city: 'Paris' } }] }, { text: 'sorry' }],
    });
    const result = await runAgent({ model, tools: weatherTools(), task: TASK });
    const [unknown] = toolMessages(model.requests[1]?.messages ?? []);
    expect(unknown?.isError).toBe(true);
    expect(unknown?.content).toContain('get_weather');
    expect(unknown?.content).toContain('compare_temperatures');
    expect(result.observations[0]?.error?.code).toBe('unknown_tool');
    expect(result.toolStats.get_wether).toMatchObject({ chosen: 1, invalid: 1 });
  });

  it('runs at most maxParallelToolCalls calls per turn, answers the rest with errors and reports the cut', async () => {
    const events: RunEvent[] = [];
    const executions: string[] = [];
    const model = createScriptedModel({
      script: [
        {
          toolCalls: ['Paris', 'Rome', 'Oslo'].map((city) => ({
            toolName: 'get_weather',
            arguments: { city },
          })),
        },
        { text: 'done' },
      ],
    });
    const result = await runAgent({
      model,
      tools: weatherTools(executions),
      planner: createFunctionCallingPlanner({ maxParallelToolCalls: 2 }),
      task: TASK,
      onEvent: (event) => events.push(event),
    });
    expect(executions).toEqual(['get_weather(Paris)', 'get_weather(Rome)']);
    const results = toolMessages(model.requests[1]?.messages ?? []);
    expect(results.map((message) => message.toolCallId)).toEqual(['call_0_0', 'call_0_1', 'call_0_2']);
    expect(results[2]).toMatchObject({ isError: true });
    expect(results[2]?.content).toContain('maxParallelToolCalls');
    expect(result.steps[0]?.rejectedToolCalls).toEqual([
      { toolCallId: 'call_0_2', reason: 'parallel-limit' },
    ]);
    const cut = events.find(
      (event) => event.type === 'adjustment' && event.adjustment.kind === 'tool-calls-rejected',
    );
    expect(cut).toBeDefined();
    expect(result.toolStats.get_weather).toMatchObject({ chosen: 3, succeeded: 2, skipped: 1 });
    assertToolCallPairing(result.messages);
  });

  it('asks for one call per turn when maxParallelToolCalls is 1', async () => {
    const model = createScriptedModel({ script: [{ text: 'ok' }] });
    await runAgent({
      model,
      tools: weatherTools(),
      planner: createFunctionCallingPlanner({ maxParallelToolCalls: 1 }),
      task: TASK,
    });
    expect(model.requests[0]?.parallelToolCalls).toBe(false);
    expect(() => createFunctionCallingPlanner({ maxParallelToolCalls: 0 })).toThrow(InvalidAgentOptionsError);
  });

  it('drops text that merely echoes the call arguments, and keeps real text', async () => {
    const model = createScriptedModel({
      script: [
        {
          text: '```json\n{"city": "Paris"}\n```',
          toolCalls: [{ toolName: 'get_weather', arguments: '{"city":"Paris"}' }],
        },
        { text: 'Now Rome.', toolCalls: [{ toolName: 'get_weather', arguments: '{"city":"Rome"}' }] },
        { text: 'done' },
      ],
    });
    const result = await runAgent({ model, tools: weatherTools(), task: TASK });
    const assistants = result.messages.filter((message) => message.role === 'assistant');
    expect(assistants.map((message) => message.content)).toEqual(['', 'Now Rome.', 'done']);
    expect(countTokens(model.requests[2]?.messages.map((m) => m.content).join('') ?? '')).toBeGreaterThan(0);
    expect(isArgumentEcho('{"city": "Paris"} {"city": "Rome"}', [])).toBe(false);
    expect(
      isArgumentEcho('[{"city":"Rome"},{"city":"Paris"}]', [
        { id: 'a', toolName: 'get_weather', arguments: '{"city":"Paris"}' },
        { id: 'b', toolName: 'get_weather', arguments: '{"city":"Rome"}' },
      ]),
    ).toBe(true);
    expect(
      isArgumentEcho('Paris', [{ id: 'a', toolName: 'get_weather', arguments: '{"city":"Paris"}' }]),
    ).toBe(false);
  });

  it('refuses a model declared without tool calls, before any call', async () => {
    const model = createScriptedModel({ script: [], capabilities: { toolCalls: false } });
    await expect(
      runAgent({ model, tools: weatherTools(), planner: createFunctionCallingPlanner(), task: TASK }),
    ).rejects.toSatisfy((error) => InvalidAgentOptionsError.isInstance(error));
    expect(model.requests).toHaveLength(0);
  });
});

describe('createFunctionCallingPlanner: strict schemas', () => {
  const strictTools = (): ToolRegistry =>
    new ToolRegistry([
      defineTool({
        name: 'lookup',
        description: 'Looks a city up.',
        input: z.object({ city: z.string(), country: z.string().optional() }),
        execute: ({ city }) => city,
      }),
      defineTool({
        name: 'annotate',
        description: 'Stores free-form metadata.',
        input: { type: 'object', properties: { metadata: { type: 'object' } }, required: ['metadata'] },
        execute: () => 'stored',
      }),
      defineTool({
        name: 'loose',
        description: 'Chose to be non-strict.',
        input: { type: 'object', properties: { anything: { type: 'object' } } },
        strict: false,
        execute: () => 'ok',
      }),
    ]);
  const twoTurns = [
    { toolCalls: [{ toolName: 'lookup', arguments: { city: 'Paris', country: null } }] },
    { text: 'done' },
  ];

  it('sends each tool strict when the model declares strictSchemas and strict mode can express it', async () => {
    const model = createScriptedModel({ script: twoTurns });
    const events: RunEvent[] = [];
    await runAgent({
      model,
      tools: strictTools(),
      planner: createFunctionCallingPlanner(),
      task: 'Paris?',
      onEvent: (event) => events.push(event),
    });
    const sent = model.requests[0]?.tools ?? [];
    expect(sent.map((spec) => [spec.name, spec.strict])).toEqual([
      ['lookup', true],
      ['annotate', false],
      ['loose', false],
    ]);
    expect(sent[0]?.inputSchema).toMatchObject({
      additionalProperties: false,
      required: ['city', 'country'],
    });
    // Reported once per run (not once per step), for the tool strict mode could not express only.
    const adjustments = events.flatMap((event) => (event.type === 'adjustment' ? [event.adjustment] : []));
    expect(adjustments.filter((adjustment) => adjustment.kind === 'schema-adapted')).toEqual([
      {
        kind: 'schema-adapted',
        message: expect.stringContaining("'annotate'"),
        details: {
          reason: 'strict-not-expressible',
          tools: [{ toolName: 'annotate', reason: expect.any(String) }],
        },
      },
    ]);
    expect(model.requests).toHaveLength(2);
  });

  it('sends no strict flag to a model without strictSchemas, and honours an explicit schemaTarget', async () => {
    const plain = createScriptedModel({ script: twoTurns, capabilities: { strictSchemas: false } });
    await runAgent({
      model: plain,
      tools: strictTools(),
      planner: createFunctionCallingPlanner(),
      task: 'Paris?',
    });
    expect(plain.requests[0]?.tools?.map((spec) => spec.strict)).toEqual([undefined, undefined, undefined]);

    const chosen = createScriptedModel({ script: twoTurns });
    const events: RunEvent[] = [];
    await runAgent({
      model: chosen,
      tools: strictTools(),
      planner: createFunctionCallingPlanner({ schemaTarget: 'json-schema' }),
      task: 'Paris?',
      onEvent: (event) => events.push(event),
    });
    expect(chosen.requests[0]?.tools?.map((spec) => spec.strict)).toEqual([undefined, undefined, undefined]);
    expect(
      events.some((event) => event.type === 'adjustment' && event.adjustment.kind === 'schema-adapted'),
    ).toBe(false);
  });
});

describe('createFunctionCallingPlanner: tool-call ids', () => {
  it('replaces empty and reused tool-call ids with unique ones, reporting it, so the history stays valid', async () => {
    const events: RunEvent[] = [];
    const model = createScriptedModel({
      script: [
        { toolCalls: [{ id: 'call_0', toolName: 'get_weather', arguments: { city: 'Paris' } }] },
        {
          toolCalls: [
            { id: 'call_0', toolName: 'get_weather', arguments: { city: 'Rome' } },
            { id: '', toolName: 'get_weather', arguments: { city: 'Oslo' } },
          ],
        },
        { text: 'done' },
      ],
    });
    const result = await runAgent({
      model,
      tools: weatherTools(),
      task: TASK,
      onEvent: (event) => events.push(event),
    });
    expect(result.finishReason).toBe('final-answer');
    const ids = result.messages.flatMap((message) =>
      message.role === 'assistant' ? (message.toolCalls ?? []).map((call) => call.id) : [],
    );
    expect(new Set(ids).size).toBe(3);
    expect(ids[0]).toBe('call_0');
    assertToolCallPairing(result.messages);
    const rewrite = events.find(
      (event) => event.type === 'adjustment' && event.adjustment.kind === 'history-rewritten',
    );
    expect(rewrite).toBeDefined();
  });
});
