// Code mode end to end, through the real `openai` SDK against a local server that streams its answers slowly (Chat
// Completions server-sent events): the model writes one program in a `run_code` call, and a call of an eager tool
// with literal arguments starts while the program is still streaming, before the stream of the answer ends. The
// program then takes that call's result instead of making it again.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CODE_MODE_TOOL_NAME, type CodeResult, closeCodeSandboxes, createCodeModeTool } from '@org/code-mode';
import { runAgent } from '@org/planner';
import { createOpenAI } from '@org/provider-openai';
import { defineTool, ToolRegistry } from '@org/tools';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';

/** One streamed answer: its chunks (each a `choices[0].delta`), and the finish reason. */
interface StreamedAnswer {
  readonly deltas: readonly Record<string, unknown>[];
  readonly finishReason: 'tool_calls' | 'stop';
}

/** A Chat Completions server streaming each queued answer one chunk every `gapMs`; it records when each ended. */
async function startSlowServer(answers: StreamedAnswer[], gapMs: number) {
  const ended: number[] = [];
  const requests: Record<string, unknown>[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    request.on('end', async () => {
      requests.push(JSON.parse(body) as Record<string, unknown>);
      const answer = answers.shift();
      if (answer === undefined) {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: 'nothing queued', type: 'server_error' } }));
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const chunk = (choice: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
        `data: ${JSON.stringify({ id: 'chatcmpl-e2e', object: 'chat.completion.chunk', created: 1, model: 'gpt-e2e', choices: [choice], ...extra })}\n\n`;
      for (const delta of answer.deltas) {
        response.write(chunk({ index: 0, delta, finish_reason: null }));
        await new Promise((resolve) => setTimeout(resolve, gapMs));
      }
      response.write(chunk({ index: 0, delta: {}, finish_reason: answer.finishReason }));
      response.write(
        `data: ${JSON.stringify({ id: 'chatcmpl-e2e', object: 'chat.completion.chunk', created: 1, model: 'gpt-e2e', choices: [], usage: { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 } })}\n\n`,
      );
      response.write('data: [DONE]\n\n');
      ended.push(Date.now());
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    ended,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The deltas that write one tool call: its id and name first, then its arguments in pieces of `size` characters. */
function callDeltas(index: number, id: string, name: string, args: string, size: number) {
  const deltas: Record<string, unknown>[] = [
    { tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }] },
  ];
  for (let at = 0; at < args.length; at += size) {
    deltas.push({ tool_calls: [{ index, function: { arguments: args.slice(at, at + size) } }] });
  }
  return deltas;
}

const textDeltas = (text: string) => text.split(/(?<= )/).map((content) => ({ content }));

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
    const model = createOpenAI({ apiKey: 'sk-e2e-test-key', baseURL: server.baseURL, maxRetries: 0 })(
      'gpt-e2e',
      {
        api: 'chat',
      },
    );
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
    // The program took that result (one list_orders call in all); get_order's arguments were not literal, so each
    // ran when the program made it.
    expect(started.filter((start) => start.id.startsWith('list:'))).toHaveLength(1);
    const [code] = results;
    expect(code?.calls.map((call) => [call.toolName, call.early === true])).toEqual([
      ['list_orders', true],
      ['get_order', false],
      ['get_order', false],
      ['get_order', false],
    ]);
    expect(code?.unusedEarlyCalls).toEqual([]);
  });
});
