import type { Message, ModelRequest, ToolSpec } from '@org/core';
import { describe, expect, it } from 'vitest';
import {
  createScriptedModel,
  createTaskScripts,
  InvalidScriptError,
  type TaskCall,
  type TaskOutputs,
} from './index.js';

const tool = (name: string): ToolSpec => ({ name, description: name, inputSchema: { type: 'object' } });
const tools = [tool('search'), tool('sum'), tool('compare'), tool('execute_tool_plan')];
const task: Message = { role: 'user', content: 'Which group scores more?' };

// Two groups of three searches, each summed, then compared: n = 9, depth 3.
const calls: TaskCall[] = [
  ...['a1', 'a2', 'a3', 'b1', 'b2', 'b3'].map((id) => ({ id, toolName: 'search', arguments: { query: id } })),
  { id: 'sumA', toolName: 'sum', arguments: { values: ['$ref:a1.score', '$ref:a2.score', '$ref:a3.score'] } },
  { id: 'sumB', toolName: 'sum', arguments: { values: ['$ref:b1.score', '$ref:b2.score', '$ref:b3.score'] } },
  { id: 'winner', toolName: 'compare', arguments: { a: '$ref:sumA', b: '$ref:sumB' } },
];
const answer = ({ outputs, errors }: { outputs: Record<string, unknown>; errors: Record<string, string> }) =>
  Object.keys(errors).length > 0
    ? `failed: ${Object.keys(errors).join(',')}`
    : `winner: ${String(outputs.winner)}`;

describe('createTaskScripts', () => {
  it('computes the depth and the analytic round trips of each mode', () => {
    const scripts = createTaskScripts({ calls, answer });
    expect(scripts).toMatchObject({ callCount: 9, depth: 3, roundTrips: { react: 10, native: 4, plan: 2 } });
  });

  it('native: runs each level in parallel, copying observed values (and field paths) into later arguments', async () => {
    const model = createScriptedModel({ script: createTaskScripts({ calls, answer }).native });
    const history: Message[] = [task];
    const first = await model.generate({ messages: history, tools });
    expect(first.toolCalls.map((call) => call.id)).toEqual(['a1', 'a2', 'a3', 'b1', 'b2', 'b3']);
    history.push({ role: 'assistant', content: '', toolCalls: first.toolCalls });
    for (const call of first.toolCalls) {
      const score = call.id.startsWith('a') ? 1 : 2;
      history.push({
        role: 'tool',
        toolCallId: call.id,
        toolName: 'search',
        content: JSON.stringify({ score }),
      });
    }
    const second = await model.generate({ messages: history, tools });
    expect(second.toolCalls.map((call) => [call.id, JSON.parse(call.arguments)])).toEqual([
      ['sumA', { values: [1, 1, 1] }],
      ['sumB', { values: [2, 2, 2] }],
    ]);
    history.push({ role: 'assistant', content: '', toolCalls: second.toolCalls });
    history.push({ role: 'tool', toolCallId: 'sumA', toolName: 'sum', content: '3' });
    history.push({
      role: 'tool',
      toolCallId: 'sumB',
      toolName: 'sum',
      content: 'Error (timeout): too slow',
      isError: true,
    });
    // 'winner' references the failed 'sumB': it is not called, the answer comes at once.
    const third = await model.generate({ messages: history, tools });
    expect(third.toolCalls).toEqual([]);
    expect(third.text).toBe('failed: sumB');
  });

  describe('references inside text and missing fields resolve as in @org/plan-executor', () => {
    // Expected values are what executePlan passes to the tools for the same arguments and outputs.
    const referencing: TaskCall[] = [
      { id: 'rome', toolName: 'search', arguments: { city: 'Rome' } },
      {
        id: 'report',
        toolName: 'compare',
        arguments: {
          whole: '$ref:rome.temperatureC',
          object: '$ref:rome',
          text: 'Rome $ref:rome.temperatureC °C',
          sentence: 'Weather: $ref:rome.sky.',
          objectInText: 'raw $ref:rome.tags',
          two: '$ref:rome.temperatureC/$ref:rome.sky',
          missing: '$ref:rome.humidity',
          missingInText: 'humidity $ref:rome.humidity%',
          deep: '$ref:rome.tags.1',
          nested: { list: ['at $ref:rome.sky', '$ref:rome.temperatureC'] },
          noId: 'costs $ref: 5',
        },
      },
    ];
    const output = { temperatureC: 21, sky: 'clear', tags: ['warm', 'dry'], nothing: null };
    const expected = {
      whole: 21,
      object: output,
      text: 'Rome 21 °C',
      sentence: 'Weather: clear.',
      objectInText: 'raw ["warm","dry"]',
      two: '21/clear',
      missing: null,
      missingInText: 'humidity null%',
      deep: 'dry',
      nested: { list: ['at clear', 21] },
      noId: 'costs $ref: 5',
    };

    it('native', async () => {
      const model = createScriptedModel({
        script: createTaskScripts({ calls: referencing, answer: () => 'done' }).native,
      });
      const history: Message[] = [task];
      const first = await model.generate({ messages: history, tools });
      history.push(
        { role: 'assistant', content: '', toolCalls: first.toolCalls },
        { role: 'tool', toolCallId: 'rome', toolName: 'search', content: JSON.stringify(output) },
      );
      const second = await model.generate({ messages: history, tools });
      expect(second.toolCalls.map((call) => call.id)).toEqual(['report']);
      expect(JSON.parse(second.toolCalls[0]?.arguments ?? '')).toEqual(expected);
    });

    it('react', async () => {
      const model = createScriptedModel({
        capabilities: { toolCalls: false },
        script: createTaskScripts({ calls: referencing, answer: () => 'done' }).react,
      });
      const history: Message[] = [task];
      const first = JSON.parse((await model.generate({ messages: history })).text);
      history.push(
        { role: 'assistant', content: JSON.stringify(first) },
        { role: 'user', content: `Observation: ${JSON.stringify(output)}` },
      );
      const second = JSON.parse((await model.generate({ messages: history })).text);
      expect(second).toMatchObject({ type: 'call_tool', tool: 'compare', args: expected });
    });

    it('a reference inside text makes the call depend on the referenced one', () => {
      const scripts = createTaskScripts({
        calls: [
          { id: 'a', toolName: 'search', arguments: {} },
          { id: 'b', toolName: 'search', arguments: { q: 'after $ref:a.x' } },
        ],
        answer: () => '',
      });
      expect(scripts.depth).toBe(2);
      expect(() =>
        createTaskScripts({
          calls: [{ id: 'b', toolName: 'search', arguments: { q: 'after $ref:a.x' } }],
          answer: () => '',
        }),
      ).toThrow(expect.objectContaining({ path: 'calls[0].arguments' }));
    });
  });

  describe('a failed dependency skips its dependents in every mode, with the plan executor reason', () => {
    // s1 fails; s2 needs s1; s3 needs s2 (skipped transitively, naming s1); s4 is independent.
    const chain: TaskCall[] = [
      { id: 's1', toolName: 'search', arguments: { query: 'one' } },
      { id: 's4', toolName: 'search', arguments: { query: 'four' } },
      { id: 's2', toolName: 'sum', arguments: { values: ['$ref:s1.score'] } },
      { id: 's3', toolName: 'compare', arguments: { a: 'score $ref:s2', b: '$ref:s4' } },
    ];
    const skipped = {
      s2: "Skipped because dependency 's1' failed",
      s3: "Skipped because dependency 's1' failed",
    };
    const seen: unknown[] = [];
    const report = (observed: TaskOutputs): string => {
      seen.push(observed);
      return 'reported';
    };
    const expectedObserved = {
      outputs: { s4: { score: 4 } },
      errors: { s1: 'Error (tool_failed): no index' },
      skipped,
    };

    it('native: the dependent calls are not made', async () => {
      seen.length = 0;
      const model = createScriptedModel({
        script: createTaskScripts({ calls: chain, answer: report }).native,
      });
      const history: Message[] = [task];
      const first = await model.generate({ messages: history, tools });
      expect(first.toolCalls.map((call) => call.id)).toEqual(['s1', 's4']);
      history.push(
        { role: 'assistant', content: '', toolCalls: first.toolCalls },
        {
          role: 'tool',
          toolCallId: 's1',
          toolName: 'search',
          content: 'Error (tool_failed): no index',
          isError: true,
        },
        { role: 'tool', toolCallId: 's4', toolName: 'search', content: '{"score":4}' },
      );
      const second = await model.generate({ messages: history, tools });
      expect(second.toolCalls).toEqual([]);
      expect(second.text).toBe('reported');
      expect(seen).toEqual([expectedObserved]);
    });

    it('react: the dependent calls are not made', async () => {
      seen.length = 0;
      const model = createScriptedModel({
        capabilities: { toolCalls: false },
        script: createTaskScripts({ calls: chain, answer: report }).react,
      });
      const history: Message[] = [task];
      const decisions: string[] = [];
      for (const observation of ['Error (tool_failed): no index', '{"score":4}']) {
        const decision = JSON.parse((await model.generate({ messages: history })).text);
        decisions.push(decision.tool);
        history.push(
          { role: 'assistant', content: JSON.stringify(decision) },
          { role: 'user', content: `Observation: ${observation}` },
        );
      }
      expect(decisions).toEqual(['search', 'search']);
      const final = JSON.parse((await model.generate({ messages: history })).text);
      expect(final).toMatchObject({ type: 'final_answer', answer: 'reported' });
      expect(seen).toEqual([expectedObserved]);
    });

    it('plan: the skipped steps of the plan result are reported as skipped', async () => {
      seen.length = 0;
      const model = createScriptedModel({ script: createTaskScripts({ calls: chain, answer: report }).plan });
      const history: Message[] = [task];
      const first = await model.generate({ messages: history, tools });
      history.push(
        { role: 'assistant', content: '', toolCalls: first.toolCalls },
        {
          role: 'tool',
          toolCallId: first.toolCalls[0]?.id ?? '',
          toolName: 'execute_tool_plan',
          // As formatPlanResult writes it.
          content: JSON.stringify({
            status: 'partial',
            summary: '1 of 4 steps succeeded, 1 failed, 2 skipped.',
            results: { s4: { score: 4 } },
            errors: { s1: 'Error (tool_failed): no index' },
            skipped,
          }),
        },
      );
      expect((await model.generate({ messages: history, tools })).text).toBe('reported');
      expect(seen).toEqual([expectedObserved]);
    });
  });

  it('react: one JSON decision per turn, reading Observation messages, then the final answer', async () => {
    const small: TaskCall[] = [
      { id: 'x', toolName: 'search', arguments: { query: 'x' } },
      { id: 'y', toolName: 'compare', arguments: { a: '$ref:x', b: 'fixed' } },
    ];
    const model = createScriptedModel({
      capabilities: { toolCalls: false },
      script: createTaskScripts({ calls: small, answer: ({ outputs }) => `y said ${String(outputs.y)}` })
        .react,
    });
    const history: Message[] = [task];
    const first = JSON.parse((await model.generate({ messages: history })).text);
    expect(first).toEqual({
      thought: 'I call search.',
      type: 'call_tool',
      tool: 'search',
      args: { query: 'x' },
    });
    history.push(
      { role: 'assistant', content: JSON.stringify(first) },
      { role: 'user', content: 'Observation: {"hits":2}' },
    );
    const second = JSON.parse((await model.generate({ messages: history })).text);
    expect(second).toMatchObject({
      type: 'call_tool',
      tool: 'compare',
      args: { a: { hits: 2 }, b: 'fixed' },
    });
    history.push(
      { role: 'assistant', content: JSON.stringify(second) },
      { role: 'user', content: 'Observation: same' },
    );
    expect(JSON.parse((await model.generate({ messages: history })).text)).toMatchObject({
      type: 'final_answer',
      answer: 'y said same',
    });
  });

  it('plan: one plan in the terse form (steps by id, $id references, default outputs), then the answer from its results', async () => {
    const model = createScriptedModel({ script: createTaskScripts({ calls, answer }).plan });
    const history: Message[] = [task];
    const first = await model.generate({ messages: history, tools });
    expect(first.toolCalls).toHaveLength(1);
    const plan = JSON.parse(first.toolCalls[0]?.arguments ?? '');
    expect(first.toolCalls[0]?.toolName).toBe('execute_tool_plan');
    // The leaves are the default outputs: not written.
    expect(plan.output_steps).toBeUndefined();
    expect(Object.keys(plan.steps)).toEqual(calls.map((call) => call.id));
    expect(plan.steps.sumA).toEqual({ sum: { values: ['$a1.score', '$a2.score', '$a3.score'] } });
    expect(plan.steps.winner).toEqual({ compare: { a: '$sumA', b: '$sumB' } });
    history.push(
      { role: 'assistant', content: '', toolCalls: first.toolCalls },
      {
        role: 'tool',
        toolCallId: first.toolCalls[0]?.id ?? '',
        toolName: 'execute_tool_plan',
        content: JSON.stringify({
          status: 'success',
          summary: '9 of 9 steps succeeded.',
          results: { winner: 'B' },
        }),
      },
    );
    expect((await model.generate({ messages: history, tools } as ModelRequest)).text).toBe('winner: B');
  });

  it('rejects malformed tasks with InvalidScriptError pointing at the field', () => {
    const bad: Array<[TaskCall[], string]> = [
      [[], 'calls'],
      [
        [
          { id: 'a', toolName: 'x', arguments: { v: '$ref:b' } },
          { id: 'b', toolName: 'x', arguments: {} },
        ],
        'calls[0].arguments',
      ],
      [
        [
          { id: 'a', toolName: 'x', arguments: {} },
          { id: 'a', toolName: 'x', arguments: {} },
        ],
        'calls[1].id',
      ],
      [[{ id: 'a.b', toolName: 'x', arguments: {} }], 'calls[0].id'],
      [[{ id: 'a', toolName: '', arguments: {} }], 'calls[0].toolName'],
    ];
    for (const [badCalls, path] of bad) {
      expect(() => createTaskScripts({ calls: badCalls, answer })).toThrow(expect.objectContaining({ path }));
    }
    expect(() => createTaskScripts({ calls, answer, outputSteps: ['nope'] })).toThrow(InvalidScriptError);
  });
});
