import type { Message, ModelRequest, ToolSpec } from '@org/core';
import { describe, expect, it } from 'vitest';
import { createScriptedModel, createTaskScripts, InvalidScriptError, type TaskCall } from './index.js';

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
    const third = await model.generate({ messages: history, tools });
    expect(JSON.parse(third.toolCalls[0]?.arguments ?? '')).toEqual({ a: 3, b: null });
    history.push({ role: 'assistant', content: '', toolCalls: third.toolCalls });
    history.push({ role: 'tool', toolCallId: 'winner', toolName: 'compare', content: 'B' });
    expect((await model.generate({ messages: history, tools })).text).toBe('failed: sumB');
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

  it('plan: one plan with the references kept and the leaves as output steps, then the answer from its results', async () => {
    const model = createScriptedModel({ script: createTaskScripts({ calls, answer }).plan });
    const history: Message[] = [task];
    const first = await model.generate({ messages: history, tools });
    expect(first.toolCalls).toHaveLength(1);
    const plan = JSON.parse(first.toolCalls[0]?.arguments ?? '');
    expect(first.toolCalls[0]?.toolName).toBe('execute_tool_plan');
    expect(plan.output_steps).toEqual(['winner']);
    expect(plan.steps[6]).toEqual({ id: 'sumA', tool: 'sum', arguments: calls[6]?.arguments });
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
