// Code mode end to end, through the real `openai` SDK against a local server that streams its answers slowly (Chat
// Completions server-sent events): the model writes one program in a `run_code` call, and a call of an eager tool
// with literal arguments starts while the program is still streaming, before the stream of the answer ends. The
// program then takes that call's result instead of making it again.
import { CODE_MODE_TOOL_NAME, type CodeResult, closeCodeSandboxes, createCodeModeTool } from '@org/code-mode';
import { runAgent } from '@org/planner';
import { defineTool, ToolRegistry } from '@org/tools';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { callDeltas, slowServerModel, startSlowServer, textDeltas } from './support/slow-sse-server.js';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});
afterAll(() => closeCodeSandboxes());

describe('code mode through the openai SDK', () => {
  it('a streamed code call: its first eager call starts before the stream ends, and the program takes its result', async () => {
    const started: { id: string; at: number }[] = [];
    const listOrders = defineTool({
      name: 'list_orders',
      description: 'Ids of the open orders.',
      input: z.object({ status: z.enum(['open', 'closed']) }),
      output: z.array(z.string()),
      eager: true,
      execute: ({ status }) => {
        started.push({ id: `list:${status}`, at: Date.now() });
        return ['o1', 'o2', 'o3'];
      },
    });
    const getOrder = defineTool({
      name: 'get_order',
      description: 'One order.',
      input: z.object({ id: z.string() }),
      output: z.object({ id: z.string(), total: z.number(), paid: z.boolean() }),
      eager: true,
      execute: ({ id }) => {
        started.push({ id, at: Date.now() });
        return { id, total: id === 'o1' ? 10 : 20, paid: id === 'o1' };
      },
    });
    const tools = new ToolRegistry([listOrders, getOrder]);
    const program = [
      "const ids = await list_orders({ status: 'open' });",
      'const orders = await Promise.all(ids.map((id) => get_order({ id })));',
      'const unpaid = orders.filter((order) => !order.paid);',
      'return { count: unpaid.length, total: unpaid.reduce((sum, order) => sum + order.total, 0) };',
    ].join('\n');
    const server = await startSlowServer(
      [
        {
          deltas: [
            { role: 'assistant' },
            ...callDeltas(0, 'call_code', CODE_MODE_TOOL_NAME, JSON.stringify({ code: program }), 12),
          ],
          finishReason: 'tool_calls',
        },
        { deltas: textDeltas('Two unpaid orders, 40 in all.'), finishReason: 'stop' },
      ],
      10,
    );
    close = server.close;
    const model = slowServerModel(server);
    const results: CodeResult[] = [];
    const events: string[] = [];
    const result = await runAgent({
      model,
      tools: [...tools.list(), createCodeModeTool({ tools, onCodeResult: (code) => results.push(code) })],
      task: 'How many orders are unpaid, and for how much?',
      onEvent: (event) => {
        if (event.type === 'tool-call-progress' && event.actionId === 'call_code') {
          const nested = event.progress as { type?: string; action?: { toolName: string } };
          if (nested.type === 'tool-call-started') events.push(`started ${nested.action?.toolName}`);
        }
        if (event.type === 'inference-finished') events.push('answer complete');
      },
    });
    expect(result.text).toBe('Two unpaid orders, 40 in all.');
    expect(result.observations[0]).toMatchObject({ toolName: CODE_MODE_TOOL_NAME, status: 'success' });
    expect(JSON.parse(String(result.observations[0]?.output))).toMatchObject({
      status: 'success',
      value: { count: 2, total: 40 },
    });
    // list_orders had a literal argument: it started while the program streamed, before the answer's stream ended.
    expect(started[0]?.id).toBe('list:open');
    expect(started[0]?.at).toBeLessThan(server.ended[0] as number);
    expect(events.indexOf('started list_orders')).toBeLessThan(events.indexOf('answer complete'));
    // The program took that result (one list_orders call in all). get_order's arguments are not literal: a
    // speculative prefix run (the first two statements, once the second closed) may have started them while the
    // stream went on, or the program made them itself, as the race went; either way each order was fetched once.
    expect(started.filter((start) => start.id.startsWith('list:'))).toHaveLength(1);
    expect(started.filter((start) => !start.id.startsWith('list:')).map((start) => start.id)).toHaveLength(3);
    const [code] = results;
    expect(code?.calls.map((call) => call.toolName)).toEqual([
      'list_orders',
      'get_order',
      'get_order',
      'get_order',
    ]);
    expect(code?.calls[0]?.early).toBe(true);
    expect(code?.unusedEarlyCalls).toEqual([]);
  });
});
