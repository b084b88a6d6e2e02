import type { Message, ModelRequest, ToolSpec } from '@org/core';
import { describe, expect, it } from 'vitest';
import {
  createScriptedModel,
  createTaskScripts,
  InvalidScriptError,
  ScriptMismatchError,
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

describe('createTaskScripts: code mode, fan-outs and aggregates', () => {
  const codeTool: ToolSpec = {
    name: 'run_code',
    description:
      'Runs a program.\n// Searches.\ndeclare function search(args: { query: string }): Promise<unknown>;\n' +
      'declare function sum(args: { values: number[] }): Promise<unknown>;\n' +
      'declare function compare(args: { a: number; b: number }): Promise<unknown>;',
    inputSchema: { type: 'object' },
  };

  it('code: one terse program from the declared functions, a level of independent calls in one Promise.all', async () => {
    const scripts = createTaskScripts({ calls, answer });
    expect(scripts.roundTrips.code).toBe(2);
    const model = createScriptedModel({ script: scripts.code });
    const first = await model.generate({ messages: [task], tools: [...tools, codeTool] });
    expect(first.toolCalls[0]?.toolName).toBe('run_code');
    const { code } = JSON.parse(first.toolCalls[0]?.arguments ?? '') as { code: string };
    // Each literal call written out (code mode starts it as soon as its `)` streams in); the level read only as
    // runs of one list bound as one array; the last call awaited where its value is returned.
    expect(code.split('\n')).toEqual([
      "const s = await Promise.all([search({ query: 'a1' }), search({ query: 'a2' }), search({ query: 'a3' }), search({ query: 'b1' }), search({ query: 'b2' }), search({ query: 'b3' })]);",
      'const [sumA, sumB] = await Promise.all([sum({ values: s.slice(0, 3).map((x) => x.score) }), sum({ values: s.slice(3).map((x) => x.score) })]);',
      'return { winner: await compare({ a: sumA, b: sumB }) };',
    ]);
    // Output tokens are the program's, counted like any tool call.
    expect(first.usage.outputTokens).toBeGreaterThan(50);
    const history: Message[] = [
      task,
      { role: 'assistant', content: '', toolCalls: first.toolCalls },
      {
        role: 'tool',
        toolCallId: first.toolCalls[0]?.id ?? '',
        toolName: 'run_code',
        content: JSON.stringify({ status: 'success', summary: '9 calls', value: { winner: 'B' } }),
      },
    ];
    expect((await model.generate({ messages: history, tools: [...tools, codeTool] })).text).toBe('winner: B');
  });

  it('code: after a failed program, the failed call under its id (matched by tool and arguments)', async () => {
    const model = createScriptedModel({ script: createTaskScripts({ calls, answer }).code });
    const first = await model.generate({ messages: [task], tools: [codeTool] });
    const result = {
      status: 'error',
      failedCalls: { '#2 search': { status: 'error', message: 'down', args: { query: 'a2' } } },
      tookEffect: { '#1 search': { score: 1 } },
    };
    const history: Message[] = [
      task,
      { role: 'assistant', content: '', toolCalls: first.toolCalls },
      {
        role: 'tool',
        toolCallId: first.toolCalls[0]?.id ?? '',
        toolName: 'run_code',
        content: JSON.stringify(result),
      },
    ];
    expect((await model.generate({ messages: history, tools: [codeTool] })).text).toBe('failed: a2');
  });

  it('code: a request without the code tool, or a tool it does not declare, is a ScriptMismatchError', async () => {
    const scripts = createTaskScripts({ calls, answer });
    await expect(
      createScriptedModel({ script: scripts.code }).generate({ messages: [task], tools }),
    ).rejects.toThrow(ScriptMismatchError);
    const partial = { ...codeTool, description: 'declare function search(args: {}): Promise<unknown>;' };
    await expect(
      createScriptedModel({ script: scripts.code }).generate({ messages: [task], tools: [partial] }),
    ).rejects.toThrow(/declares no function for it/);
  });

  // List the orders, fetch each, total the unpaid ones: a list, then each item, then an aggregate.
  const orders: Record<string, { total: number; paid: boolean }> = {
    o1: { total: 10, paid: true },
    o2: { total: 25, paid: false },
    o3: { total: 7, paid: false },
  };
  const fanOut = {
    calls: [
      { id: 'list', toolName: 'list_orders', arguments: {} },
      { id: 'order', toolName: 'get_order', forEach: '$ref:list.ids', arguments: { id: '$item' } },
    ],
    aggregates: [
      { id: 'unpaid', of: '$ref:order', where: { paid: false }, reduce: { sum: 'total' } } as const,
    ],
    answer: ({ outputs }: TaskOutputs) => `unpaid: ${String(outputs.unpaid)}`,
  };
  const shopTools = [tool('list_orders'), tool('get_order'), tool('execute_tool_plan')];
  const reply = (id: string, name: string, content: unknown): Message => ({
    role: 'tool',
    toolCallId: id,
    toolName: name,
    content: JSON.stringify(content),
  });

  it('fan-out: analytic counts, and native makes each item call once the list is observed', async () => {
    const scripts = createTaskScripts(fanOut);
    expect(scripts).toMatchObject({ depth: 2, roundTrips: { native: 3, plan: 3, code: 2 } });
    const model = createScriptedModel({ script: scripts.native });
    const history: Message[] = [task];
    const first = await model.generate({ messages: history, tools: shopTools });
    expect(first.toolCalls.map((call) => call.toolName)).toEqual(['list_orders']);
    history.push(
      { role: 'assistant', content: '', toolCalls: first.toolCalls },
      reply('list', 'list_orders', { ids: ['o1', 'o2', 'o3'] }),
    );
    const second = await model.generate({ messages: history, tools: shopTools });
    expect(second.toolCalls.map((call) => [call.id, JSON.parse(call.arguments)])).toEqual([
      ['order_1', { id: 'o1' }],
      ['order_2', { id: 'o2' }],
      ['order_3', { id: 'o3' }],
    ]);
    history.push({ role: 'assistant', content: '', toolCalls: second.toolCalls });
    for (const call of second.toolCalls) {
      const id = JSON.parse(call.arguments).id as string;
      history.push(reply(call.id, 'get_order', { id, ...orders[id] }));
    }
    expect((await model.generate({ messages: history, tools: shopTools })).text).toBe('unpaid: 32');
  });

  it('fan-out: plan mode plans the list, then one step per item, then answers', async () => {
    const model = createScriptedModel({ script: createTaskScripts(fanOut).plan });
    const history: Message[] = [task];
    const first = await model.generate({ messages: history, tools: shopTools });
    expect(JSON.parse(first.toolCalls[0]?.arguments ?? '')).toEqual({ steps: { list: { list_orders: {} } } });
    history.push(
      { role: 'assistant', content: '', toolCalls: first.toolCalls },
      reply(first.toolCalls[0]?.id ?? '', 'execute_tool_plan', {
        status: 'success',
        results: { list: { ids: ['o2', 'o3'] } },
      }),
    );
    const second = await model.generate({ messages: history, tools: shopTools });
    expect(JSON.parse(second.toolCalls[0]?.arguments ?? '')).toEqual({
      steps: { order_1: { get_order: { id: 'o2' } }, order_2: { get_order: { id: 'o3' } } },
    });
    history.push(
      { role: 'assistant', content: '', toolCalls: second.toolCalls },
      reply(second.toolCalls[0]?.id ?? '', 'execute_tool_plan', {
        status: 'success',
        results: { order_1: { id: 'o2', ...orders.o2 }, order_2: { id: 'o3', ...orders.o3 } },
      }),
    );
    expect((await model.generate({ messages: history, tools: shopTools })).text).toBe('unpaid: 32');
  });

  it('fan-out: ReAct makes one call per item, then answers with the aggregate', async () => {
    const model = createScriptedModel({
      script: createTaskScripts(fanOut).react,
      capabilities: { toolCalls: false },
    });
    const history: Message[] = [task];
    const outputs = [{ ids: ['o1', 'o2'] }, { id: 'o1', ...orders.o1 }, { id: 'o2', ...orders.o2 }];
    for (const output of outputs) {
      const decision = JSON.parse((await model.generate({ messages: history })).text);
      expect(decision.type).toBe('call_tool');
      history.push(
        { role: 'assistant', content: JSON.stringify(decision) },
        { role: 'user', content: `Observation: ${JSON.stringify(output)}` },
      );
    }
    expect(JSON.parse((await model.generate({ messages: history })).text).answer).toBe('unpaid: 25');
  });

  it('fan-out: code mode loops over the list, aggregates in the program and returns the aggregate', async () => {
    const codeShop: ToolSpec = {
      name: 'run_code',
      description:
        'declare function list_orders(args?: {}): Promise<unknown>;\ndeclare function get_order(args: { id: string }): Promise<unknown>;',
      inputSchema: { type: 'object' },
    };
    const model = createScriptedModel({ script: createTaskScripts(fanOut).code });
    const first = await model.generate({ messages: [task], tools: [codeShop] });
    expect(JSON.parse(first.toolCalls[0]?.arguments ?? '').code.split('\n')).toEqual([
      // The list, read only to fan out over it, is fetched where it is used (still a literal call, started early).
      'const order = await Promise.all((await list_orders({})).ids.map((id) => get_order({ id })));',
      'return { unpaid: order.filter((x) => x.paid === false).reduce((s, x) => s + x.total, 0) };',
    ]);
  });

  const programOf = async (options: Parameters<typeof createTaskScripts>[0], names: string[]) => {
    const declared: ToolSpec = {
      name: 'run_code',
      description: names.map((name) => `declare function ${name}(args: {}): Promise<unknown>;`).join('\n'),
      inputSchema: { type: 'object' },
    };
    const model = createScriptedModel({ script: createTaskScripts(options).code });
    const first = await model.generate({ messages: [task], tools: [declared] });
    return {
      model,
      first,
      declared,
      lines: JSON.parse(first.toolCalls[0]?.arguments ?? '').code.split('\n'),
    };
  };

  it('code: a linear chain is awaited statement by statement, the last call where it is returned', async () => {
    const hops = ['start', '$ref:h1.next', '$ref:h2.next', '$ref:h3.next'].map((key, index) => ({
      id: `h${index + 1}`,
      toolName: 'hop',
      arguments: { key },
    }));
    const { lines } = await programOf({ calls: hops, answer }, ['hop']);
    expect(lines).toEqual([
      "const h1 = await hop({ key: 'start' });",
      'const h2 = await hop({ key: h1.next });',
      'const h3 = await hop({ key: h2.next });',
      'return { h4: await hop({ key: h3.next }) };',
    ]);
  });

  it('code: independent chains run side by side, a failed program read in the order it made its calls', async () => {
    const skew = [
      { id: 'A1', toolName: 'search', arguments: { query: 'A1' } },
      { id: 'B1', toolName: 'search', arguments: { query: 'B1' } },
      { id: 'A2', toolName: 'search', arguments: { query: 'A2', after: '$ref:A1.score' } },
      { id: 'B2', toolName: 'search', arguments: { query: 'B2', after: '$ref:B1.score' } },
    ];
    const { model, first, declared, lines } = await programOf({ calls: skew, answer }, ['search']);
    // A slow A1 does not hold up B2: each chain is its own `.then`, its first call literal (started while streaming).
    expect(lines).toEqual([
      "const [A2, B2] = await Promise.all([search({ query: 'A1' }).then((r) => search({ query: 'A2', after: r.score })), search({ query: 'B1' }).then((r) => search({ query: 'B2', after: r.score }))]);",
      'return { A2, B2 };',
    ]);
    const failed = {
      status: 'error',
      failedCalls: { '#3 search': { status: 'error', message: 'down', args: { query: 'A2', after: 1 } } },
      tookEffect: { '#1 search': { score: 1 }, '#2 search': { score: 2 } },
    };
    const history: Message[] = [
      task,
      { role: 'assistant', content: '', toolCalls: first.toolCalls },
      {
        role: 'tool',
        toolCallId: first.toolCalls[0]?.id ?? '',
        toolName: 'run_code',
        content: JSON.stringify(failed),
      },
    ];
    let seen: TaskOutputs | undefined;
    const reading = createScriptedModel({
      script: createTaskScripts({
        calls: skew,
        answer: (observed) => {
          seen = observed;
          return 'read';
        },
      }).code,
    });
    await reading.generate({ messages: history, tools: [declared] });
    // #1 and #2 are the chains' first calls, in the program's order: A1 then B1.
    expect(seen?.outputs).toEqual({ A1: { score: 1 }, B1: { score: 2 } });
    expect(Object.keys(seen?.errors ?? {})).toEqual(['#3 search']);
    expect(model.calls).toHaveLength(1);
  });

  it('code: fan-outs and aggregates of one shape share a function, picking only the fields the answer reads', async () => {
    const research = {
      calls: [
        ...['tides', 'glaciers'].map((topic, index) => ({
          id: `s${index + 1}`,
          toolName: 'search_topic',
          arguments: { topic },
        })),
        ...[1, 2].map((index) => ({
          id: `p${index}`,
          toolName: 'open_page',
          forEach: `$ref:s${index}.top`,
          arguments: { id: '$item' },
        })),
      ],
      aggregates: [1, 2].map((index) => ({
        id: `n${index}`,
        of: `$ref:p${index}`,
        reduce: { max: 'published' },
        pick: ['id'],
      })),
      outputSteps: ['n1', 'n2'],
      answer: ({ outputs }: TaskOutputs) => JSON.stringify([outputs.n1, outputs.n2]),
    };
    const { model, first, declared, lines } = await programOf(research, ['search_topic', 'open_page']);
    expect(lines).toEqual([
      'const open_pages = (r) => Promise.all(r.top.map((id) => open_page({ id })));',
      "const [p1, p2] = await Promise.all([search_topic({ topic: 'tides' }).then(open_pages), search_topic({ topic: 'glaciers' }).then(open_pages)]);",
      'const maxPublished = (l) => l.map(({ id, published }) => ({ id, published })).reduce((b, x) => (b === null || x.published > b.published ? x : b), null);',
      'return { n1: maxPublished(p1), n2: maxPublished(p2) };',
    ]);
    // Native mode reads the same picked records: the answer is the same in every mode.
    const native = createScriptedModel({ script: createTaskScripts(research).native });
    const pages: Record<string, { published: number; abstract: string }> = {
      a: { published: 3, abstract: 'long' },
      b: { published: 9, abstract: 'long' },
      c: { published: 5, abstract: 'long' },
    };
    const history: Message[] = [task];
    const tools = [tool('search_topic'), tool('open_page')];
    for (let turn = 0; turn < 3; turn++) {
      const response = await native.generate({ messages: history, tools });
      if (response.toolCalls.length === 0) {
        expect(response.text).toBe(
          JSON.stringify([
            { id: 'b', published: 9 },
            { id: 'c', published: 5 },
          ]),
        );
        break;
      }
      history.push({ role: 'assistant', content: '', toolCalls: response.toolCalls });
      for (const call of response.toolCalls) {
        const args = JSON.parse(call.arguments);
        const output =
          call.toolName === 'search_topic'
            ? { top: args.topic === 'tides' ? ['a', 'b'] : ['c'] }
            : { id: args.id, ...pages[args.id] };
        history.push(reply(call.id, call.toolName, output));
      }
    }
    expect(first.toolCalls).toHaveLength(1);
    expect(model.calls).toHaveLength(1);
    expect(declared.name).toBe('run_code');
  });

  it('rejects an aggregate whose pick is not a list of field names', () => {
    expect(() =>
      createTaskScripts({
        calls: fanOut.calls,
        aggregates: [{ id: 'x', of: '$ref:order', reduce: 'items', pick: [] }],
        answer,
      }),
    ).toThrow(/pick/);
  });

  it('rejects a fan-out or aggregate that is not one reference to an earlier call', () => {
    expect(() =>
      createTaskScripts({ calls: [{ id: 'a', toolName: 't', forEach: 'list', arguments: {} }], answer }),
    ).toThrow(InvalidScriptError);
    expect(() =>
      createTaskScripts({
        calls: fanOut.calls,
        aggregates: [{ id: 'x', of: '$ref:nope', reduce: 'count' }],
        answer,
      }),
    ).toThrow(/not an earlier call/);
  });
});
