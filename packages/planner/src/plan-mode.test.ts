// Issue 19, "What a new user hits", through runAgent with the scripted model and the plan tool: names the model was
// shown, a run-level deadline, argument text repairs, and a large result that keeps its failures.
import { createToolPlanTool } from '@org/plan-executor';
import { createScriptedModel } from '@org/provider-scripted';
import { defineTool, ToolRegistry } from '@org/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runAgent } from './index.js';

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

function shopTools(charges: string[]): ToolRegistry {
  return new ToolRegistry([
    defineTool({
      name: 'orders.get',
      description: 'An order by id.',
      input: z.object({ id: z.string() }),
      output: z.object({ id: z.string(), total: z.number() }),
      execute: ({ id }) => ({ id, total: 42 }),
    }),
    defineTool({
      name: 'payments.charge',
      description: 'Charges an amount.',
      input: z.object({ amount: z.number() }),
      execute: ({ amount }) => {
        charges.push(String(amount));
        return { charged: amount };
      },
    }),
    defineTool({
      name: 'slow',
      description: 'Takes its time.',
      input: z.object({ ms: z.number(), label: z.string() }),
      execute: async ({ ms, label }, context) => {
        await sleep(ms, context.signal);
        return { label };
      },
    }),
    defineTool({
      name: 'big',
      description: 'A large output.',
      input: z.object({ label: z.string() }),
      execute: ({ label }) => ({ label, text: label.repeat(20_000) }),
    }),
    defineTool({
      name: 'fail',
      description: 'Always fails.',
      input: z.object({ message: z.string() }),
      execute: ({ message }): never => {
        throw new Error(message);
      },
    }),
  ]);
}

function planAgent(charges: string[] = []): ToolRegistry {
  const tools = shopTools(charges);
  return ToolRegistry.compose(tools, new ToolRegistry([createToolPlanTool({ tools })]));
}

const plan = (steps: unknown[]) => ({ toolName: 'execute_tool_plan', arguments: { steps } });

describe('plan mode: the names the model was shown', () => {
  it('runs a plan whose steps use the provider names (orders_get), in one round trip', async () => {
    const model = createScriptedModel({
      script: [
        {
          toolCalls: [
            plan([
              { id: 'o', tool: 'orders_get', arguments: { id: 'A1' } },
              { id: 'p', tool: 'payments_charge', arguments: { amount: '$ref:o.total' } },
            ]),
          ],
        },
        { text: 'done' },
      ],
    });
    const charges: string[] = [];
    const result = await runAgent({ model, tools: planAgent(charges), task: 'Pay order A1.' });
    const sent = model.requests[0]?.tools ?? [];
    expect(sent.map((tool) => tool.name)).toEqual([
      'orders_get',
      'payments_charge',
      'slow',
      'big',
      'fail',
      'execute_tool_plan',
    ]);
    // The plan tool's description names tools as the model sees them, with the output fields it can refer to.
    expect(sent.at(-1)?.description).toContain('Output fields: orders_get{id, total}.');
    const output = JSON.parse(String(result.observations[0]?.output));
    expect(output).toMatchObject({
      status: 'success',
      results: { o: { id: 'A1', total: 42 }, p: { charged: 42 } },
    });
    expect(charges).toEqual(['42']);
    expect(model.requests).toHaveLength(2);
  });
});

describe('plan mode: a run-level deadline', () => {
  it('returns the finished steps when toolTimeoutMs passes, so the model never repeats a payment', async () => {
    const model = createScriptedModel({
      script: [
        {
          toolCalls: [
            plan([
              { id: 'pay', tool: 'payments_charge', arguments: { amount: 10 } },
              { id: 'a', tool: 'slow', arguments: { ms: 300, label: 'after $ref:pay.charged' } },
              { id: 'b', tool: 'slow', arguments: { ms: 300, label: '$ref:a.label' } },
            ]),
          ],
        },
        { text: 'done' },
      ],
    });
    const charges: string[] = [];
    const result = await runAgent({
      model,
      tools: planAgent(charges),
      task: 'Pay, then do two slow things.',
      toolTimeoutMs: 500,
    });
    const observation = result.observations[0];
    expect(observation?.status).toBe('success');
    const text = String(observation?.output);
    expect(text).not.toContain('narrower arguments');
    const output = JSON.parse(text);
    expect(output).toMatchObject({
      status: 'partial',
      results: { pay: { charged: 10 }, a: { label: 'after 10' } },
      errors: { b: { status: 'timeout', code: 'plan_timeout' } },
    });
    expect(output.timedOut).toContain('do not repeat them');
    expect(charges).toEqual(['10']);
    // The model is told on its next turn, in the tool result.
    const toolMessage = model.requests[1]?.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toContain('"pay":{"charged":10}');
  });
});

describe('plan mode: argument text', () => {
  it('repairs a step argument string as a direct call would (trailing comma, code fence)', async () => {
    const model = createScriptedModel({
      script: [
        {
          toolCalls: [
            plan([
              { id: 'o', tool: 'orders_get', arguments: '{"id": "A1",}' },
              { id: 'q', tool: 'orders_get', arguments: '```json\n{"id": "A2"}\n```' },
            ]),
          ],
        },
        { text: 'done' },
      ],
    });
    const result = await runAgent({ model, tools: planAgent(), task: 'Get two orders.' });
    expect(JSON.parse(String(result.observations[0]?.output))).toMatchObject({
      status: 'success',
      results: { o: { id: 'A1' }, q: { id: 'A2' } },
    });
  });

  it('hints to quote an unquoted $ref, and reports every problem of the plan at once', async () => {
    const model = createScriptedModel({
      script: [
        {
          toolCalls: [
            plan([
              { id: 'o', tool: 'orders_get', arguments: '{"id": $ref:s1.id}' },
              { id: 'p', tool: 'orders.gett', arguments: { id: '$ref:missing' } },
            ]),
          ],
        },
        { text: 'done' },
      ],
    });
    const result = await runAgent({ model, tools: planAgent(), task: 'Get an order.' });
    const message = result.observations[0]?.error?.message ?? '';
    expect(message).toContain('The plan is invalid (3 problems)');
    expect(message).toContain('A $ref is a JSON string: write it in double quotes');
    expect(message).toContain("unknown tool 'orders.gett'; did you mean 'orders_get'?");
    expect(message).toContain("unknown step 'missing'");
  });
});

describe('plan mode: a large result', () => {
  it('keeps which step failed and why when the outputs fill the budget', async () => {
    const model = createScriptedModel({
      script: [
        {
          toolCalls: [
            plan([
              { id: 'x', tool: 'big', arguments: { label: 'x' } },
              { id: 'y', tool: 'big', arguments: { label: 'y' } },
              { id: 'z', tool: 'big', arguments: { label: 'z' } },
              { id: 'f', tool: 'fail', arguments: { message: 'card declined' } },
            ]),
          ],
        },
        { text: 'done' },
      ],
    });
    const result = await runAgent({ model, tools: planAgent(), task: 'Fetch big things.' });
    const text = String(result.observations[0]?.output);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(50_000);
    const output = JSON.parse(text);
    expect(output.summary).toBe('3 of 4 steps succeeded, 1 failed.');
    expect(output.errors.f.message).toContain('card declined');
  });
});
