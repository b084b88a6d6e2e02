import type { RunEvent } from '@org/core';
import { createToolPlanTool } from '@org/plan-executor';
import { createReActPlanner, runAgent } from '@org/planner';
import { countToolSpecTokens, createScriptedModel } from '@org/provider-scripted';
import { defineTool, executeAction, type ToolExecutionContext, ToolRegistry } from '@org/tools';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { add, getOrder, listOrders, shopTools } from './__fixtures__/shop-tools.js';
import {
  CODE_MODE_RULES,
  CODE_MODE_TOOL_NAME,
  CodeModeOptionsError,
  closeCodeSandboxes,
  createCodeModeTool,
  declareTools,
} from './index.js';

afterAll(() => closeCodeSandboxes());

describe('declareTools', () => {
  it('declares each tool as a typed async function, named as providers see it', () => {
    const namespaced = defineTool({
      name: 'shop.find-item',
      description: 'Finds items.\nBy   name.',
      input: z.object({ query: z.string(), limit: z.number().int().optional(), kind: z.enum(['a', 'b']) }),
      output: z.object({ items: z.array(z.object({ name: z.string(), price: z.number() })) }),
      execute: () => ({ items: [] }),
    });
    const { functions, declarations } = declareTools(new ToolRegistry([namespaced, ...shopTools]));
    expect(functions[0]).toEqual({ identifier: 'shop_find_item', toolName: 'shop.find-item' });
    expect(declarations.split('\n').slice(0, 2)).toEqual([
      '// Finds items. By name.',
      "declare function shop_find_item(args: { query: string; limit?: number; kind: 'a' | 'b' }): Promise<{ items: Array<{ name: string; price: number }> }>;",
    ]);
    expect(declarations).toContain('declare function add(args: { a: number; b: number }): Promise<unknown>;');
    expect(declarations).toContain(
      'declare function list_orders(args?: {}): Promise<Array<{ id: string }>>;',
    );
  });
});

describe('createCodeModeTool', () => {
  it('describes itself with the rules and the declarations, and checks its options at once', () => {
    const tool = createCodeModeTool({ tools: shopTools });
    expect(tool.name).toBe(CODE_MODE_TOOL_NAME);
    expect(tool.description.startsWith(CODE_MODE_RULES)).toBe(true);
    expect(tool.description).toContain('declare function get_order(args: { id: string })');
    expect(() => createCodeModeTool({ tools: shopTools, limits: { maxToolCalls: -1 } })).toThrow(
      CodeModeOptionsError,
    );
  });

  it('costs no more tokens than the plan tool beside the native tools, and less than plan mode alone', () => {
    // Three small tools, two with output schemas; counted with o200k_base over what a provider receives.
    const tools = new ToolRegistry([listOrders, getOrder, add]);
    const tokens = (tool: { name: string; description: string; inputSchema: unknown }): number =>
      countToolSpecTokens({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema as Record<string, unknown>,
      });
    const plan = tokens(createToolPlanTool({ tools }));
    const beside = createCodeModeTool({ tools, besideNativeTools: true });
    const alone = createCodeModeTool({ tools });
    const nativeSpecs = tools.specs().reduce((sum, spec) => sum + countToolSpecTokens(spec), 0);
    expect({ plan, beside: tokens(beside), alone: tokens(alone), nativeSpecs }).toEqual({
      plan: 150,
      beside: 147,
      alone: 159,
      nativeSpecs: 97,
    });
    // Beside the native tools (where the plan tool always is), the code tool is the smaller; offered alone it carries
    // the descriptions itself and still costs less than the plan tool with the native specs it relies on.
    expect(tokens(beside)).toBeLessThanOrEqual(plan);
    expect(tokens(alone)).toBeLessThan(plan + nativeSpecs);
    // Nothing the model needs is lost: every function is declared with its types, and the rules name the tools.
    expect(beside.description).toContain('Each function is the tool of that name.');
    expect(beside.description).toContain(
      'declare function get_order(args: { id: string }): Promise<{ id: string; total: number; paid: boolean }>;',
    );
    expect(beside.description).not.toContain('// One order by id.');
    expect(alone.description).toContain('// One order by id.');
  });

  it('runs through executeAction: each call nested under the code call, with its events as the code call progress', async () => {
    const tools = new ToolRegistry([createCodeModeTool({ tools: shopTools })]);
    const events: RunEvent[] = [];
    const observation = await executeAction(
      tools,
      {
        id: 'call_code',
        toolName: CODE_MODE_TOOL_NAME,
        args: { code: 'const order = await get_order({ id: "o2" });\nreturn order.total;' },
      },
      { onEvent: (event) => events.push(event) },
    );
    expect(observation.status).toBe('success');
    expect(JSON.parse(String(observation.output))).toMatchObject({ status: 'success', value: 25.5 });
    const nested = events
      .filter((event) => event.type === 'tool-call-progress')
      .map((event) => (event.type === 'tool-call-progress' ? (event.progress as RunEvent) : undefined));
    expect(
      events
        .filter((event) => event.type === 'tool-call-progress')
        .every((event) => event.type === 'tool-call-progress' && event.actionId === 'call_code'),
    ).toBe(true);
    expect(nested.map((event) => event?.type)).toEqual(['tool-call-started', 'tool-call-finished']);
    expect(nested[0]?.type === 'tool-call-started' && nested[0].action.id).toBe('call_code/1');
  });

  it("ends the program before its call's deadline, counted from the call's timer, and tells what took effect", async () => {
    let charged = 0;
    const pay = defineTool({
      name: 'pay',
      description: 'Charges the card.',
      input: z.object({}),
      execute: () => ({ charged: ++charged }),
    });
    const slow = defineTool({
      name: 'slow',
      description: 'Takes its time.',
      input: z.object({}),
      execute: (_args, context) =>
        new Promise((resolve) => {
          const timer = setTimeout(() => resolve('late'), 5000);
          context.signal.addEventListener('abort', () => clearTimeout(timer));
        }),
    });
    const codeTool = createCodeModeTool({ tools: [pay, slow] });
    const code = 'const paid = await pay({});\nawait slow({});\nreturn paid;';
    // Through executeAction: the program's end comes first, so the model reads what took effect, not a bare timeout.
    const observation = await executeAction(
      new ToolRegistry([codeTool]),
      { id: 'call_code', toolName: CODE_MODE_TOOL_NAME, args: { code } },
      { timeoutMs: 1000 },
    );
    expect(observation.status).toBe('success');
    const formatted = JSON.parse(String(observation.output));
    expect(formatted).toMatchObject({ status: 'error', error: { code: 'code_limit_exceeded' } });
    expect(String(observation.output)).toContain('wallTimeMs');
    expect(String(observation.output)).toContain('"charged":1');
    // As if the process had paused 700 ms between the call's timer starting and the program starting: the program
    // ends within the 300 ms left (less its lead), not a whole wall time later.
    const started = performance.now();
    const output = await codeTool.execute({ code }, {
      signal: new AbortController().signal,
      toolCallId: 'call_late',
      toolName: CODE_MODE_TOOL_NAME,
      reportProgress: () => {},
      injected: {},
      timeoutMs: 1000,
      deadlineAt: performance.now() + 300,
    } as unknown as ToolExecutionContext);
    expect(performance.now() - started).toBeLessThan(900);
    expect(JSON.parse(String(output))).toMatchObject({
      status: 'error',
      error: { code: 'code_limit_exceeded' },
    });
    expect(charged).toBe(2);
  });

  it("applies a schema's transform once to a call from the program", async () => {
    const shout = defineTool({
      name: 'shout',
      description: 'Returns its text.',
      input: z.object({ text: z.string().transform((text) => `${text}!`) }),
      execute: ({ text }) => text,
    });
    const tools = new ToolRegistry([createCodeModeTool({ tools: [shout] })]);
    const observation = await executeAction(tools, {
      id: 'call_code',
      toolName: CODE_MODE_TOOL_NAME,
      args: { code: "return await shout({ text: 'hi' });" },
    });
    expect(JSON.parse(String(observation.output))).toMatchObject({ status: 'success', value: 'hi!' });
  });

  it("isolates a throwing onEvent of its own: the program completes and the code call's progress is still told", async () => {
    const onEvent = (): void => {
      throw new Error('a listener bug');
    };
    const tools = new ToolRegistry([createCodeModeTool({ tools: shopTools, onEvent })]);
    const events: RunEvent[] = [];
    const observation = await executeAction(
      tools,
      {
        id: 'call_code',
        toolName: CODE_MODE_TOOL_NAME,
        args: { code: 'return (await get_order({ id: "o2" })).total;' },
      },
      { onEvent: (event) => events.push(event) },
    );
    expect(JSON.parse(String(observation.output))).toMatchObject({ status: 'success', value: 25.5 });
    expect(events.filter((event) => event.type === 'tool-call-progress')).toHaveLength(2);
  });

  it('sits beside a plan tool in one agent run: the model plans, then writes a program, then answers', async () => {
    const tools = new ToolRegistry(shopTools);
    const model = createScriptedModel({
      script: [
        {
          toolCalls: [
            { toolName: 'execute_tool_plan', arguments: { steps: { first: { get_order: { id: 'o1' } } } } },
          ],
        },
        {
          toolCalls: [
            {
              toolName: CODE_MODE_TOOL_NAME,
              arguments: {
                code:
                  'const ids = await list_orders({});\n' +
                  'const orders = await Promise.all(ids.map((o) => get_order({ id: o.id })));\n' +
                  'return orders.filter((o) => !o.paid).reduce((sum, o) => sum + o.total, 0);',
              },
            },
          ],
        },
        { text: 'The unpaid orders total 42.5.' },
      ],
    });
    const events: RunEvent[] = [];
    const result = await runAgent({
      model,
      tools: [...tools.list(), createToolPlanTool({ tools }), createCodeModeTool({ tools })],
      task: 'What do the unpaid orders total?',
      onEvent: (event) => events.push(event),
    });
    expect(result.text).toBe('The unpaid orders total 42.5.');
    const [plan, code] = result.observations;
    expect(plan?.status).toBe('success');
    expect(code?.status).toBe('success');
    expect(JSON.parse(String(code?.output))).toMatchObject({ status: 'success', value: 42.5 });
    // The model saw both tools, each with its own description.
    const offered = model.requests[0]?.tools?.map((tool) => tool.name) ?? [];
    expect(offered).toEqual(expect.arrayContaining(['execute_tool_plan', CODE_MODE_TOOL_NAME]));
    // Every nested call of the program was paired, under the code call.
    const codeCallId = code?.actionId ?? '';
    const nested = events.flatMap((event) =>
      event.type === 'tool-call-progress' && event.actionId === codeCallId
        ? [event.progress as RunEvent]
        : [],
    );
    expect(nested.filter((event) => event.type === 'tool-call-started')).toHaveLength(4);
    expect(nested.filter((event) => event.type === 'tool-call-finished')).toHaveLength(4);
  });

  it('works with the ReAct planner too: the program is the action input', async () => {
    const tools = new ToolRegistry(shopTools);
    const code = "const order = await get_order({ id: 'o3' });\nreturn order.total * 2;";
    const model = createScriptedModel({
      script: [
        {
          text: `Thought: one program.\nAction: ${CODE_MODE_TOOL_NAME}\nAction Input: ${JSON.stringify({ code })}`,
        },
        { text: 'Final Answer: 34' },
      ],
    });
    const result = await runAgent({
      model,
      tools: [...tools.list(), createCodeModeTool({ tools })],
      planner: createReActPlanner(),
      task: 'Twice the total of order o3?',
    });
    expect(result.text).toBe('34');
    expect(JSON.parse(String(result.observations[0]?.output))).toMatchObject({
      status: 'success',
      value: 34,
    });
  });
});
