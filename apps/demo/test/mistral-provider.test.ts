import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ordersTask, WEATHER } from '../src/index.js';
import { type CapturedDemo, type FakeServer, runDemoCaptured, startFakeServer } from './provider-fakes.js';

// A fake of Mistral's chat completions on 127.0.0.1 that answers the weather task as a model with parallel calls
// would, and the orders task in plan mode as a model with `response_format: json_schema` would (the whole plan in
// one call, then the report as JSON computed from the plan's result), streaming SSE chunks with each call whole in
// one delta, as Mistral does. Like the real API it refuses a
// tool-call id that is not nine letters or digits, and a tool message without the function name, so the demo's
// --provider mistral path is checked end to end through the adapter and the real @mistralai/mistralai SDK.

interface WireMessage {
  role: string;
  content?: string | null;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  name?: string;
}

interface RequestBody {
  model: string;
  messages: WireMessage[];
  tools?: { function: { name: string } }[];
  stream?: boolean;
  response_format?: { type?: string; json_schema?: { name?: string } };
}

const requests: {
  model: string;
  tools: string[];
  results: number;
  stream: boolean;
  /** `type:name` of the response format asked for. */
  format?: string;
}[] = [];
let server: FakeServer;

const ID = /^[a-zA-Z0-9]{9}$/;
const call = (id: string, name: string, args: unknown) => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});

/** Plan mode: the whole plan in one call, then the report, as the JSON the response format asks for. */
function ordersAnswer(
  messages: WireMessage[],
  tools: string[],
): { text: string; calls: ReturnType<typeof call>[] } {
  const results = messages.filter((message) => message.role === 'tool');
  if (results.length === 0) {
    if (!tools.includes('execute_tool_plan')) return { text: 'I have no way to run a plan.', calls: [] };
    const steps = ordersTask.calls.map((taskCall) => ({
      id: taskCall.id,
      tool: taskCall.toolName,
      arguments: taskCall.arguments,
    }));
    return {
      text: '',
      calls: [call('plan00001', 'execute_tool_plan', { steps, output_steps: ['search', 'analysis'] })],
    };
  }
  const { results: plan } = JSON.parse(String(results[0]?.content)) as {
    results: {
      search: { customer: string; orders: { id: string }[] };
      analysis: {
        count: number;
        totalAmountEUR: number;
        averageDaysLate: number;
        worstCarrier: string;
        worstCarrierLateDays: number;
      };
    };
  };
  const report = {
    customer: plan.search.customer,
    orderIds: plan.search.orders.map((order) => order.id),
    delayedOrders: plan.analysis.count,
    totalAmountEUR: plan.analysis.totalAmountEUR,
    averageDaysLate: plan.analysis.averageDaysLate,
    worstCarrier: { name: plan.analysis.worstCarrier, lateDays: plan.analysis.worstCarrierLateDays },
  };
  return { text: JSON.stringify(report), calls: [] };
}

/** The weather task: every city at once, then the comparison, then the answer. */
function answer(messages: WireMessage[]): { text: string; calls: ReturnType<typeof call>[] } {
  const results = messages.filter((message) => message.role === 'tool');
  const cities = Object.keys(WEATHER);
  if (results.length === 0) {
    return {
      text: '',
      calls: cities.map((city, index) =>
        call(`city${String(index).padStart(5, '0')}`, 'get_weather', { city }),
      ),
    };
  }
  if (results.length === cities.length) {
    const readings = results.map((result) => JSON.parse(String(result.content)) as unknown);
    return { text: '', calls: [call('compare00', 'compare_temperatures', { readings })] };
  }
  const ranking = JSON.parse(String(results.at(-1)?.content)) as { warmest: string; coldest: string };
  return { text: `${ranking.warmest} is warmest, ${ranking.coldest} coldest.`, calls: [] };
}

function refusal(body: RequestBody): string | undefined {
  for (const message of body.messages) {
    for (const id of [...(message.tool_calls ?? []).map((item) => item.id), message.tool_call_id]) {
      if (id !== undefined && !ID.test(id))
        return `Tool call id was ${id} but must be a-z, A-Z, 0-9, with a length of 9.`;
    }
    if (message.role === 'tool' && (message.name ?? '') === '')
      return 'Tool messages need the function name.';
  }
  return undefined;
}

function respond(body: RequestBody, response: ServerResponse): void {
  const refused = refusal(body);
  if (refused !== undefined) {
    response.writeHead(400, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        object: 'error',
        message: refused,
        type: 'invalid_request_error',
        param: null,
        code: null,
      }),
    );
    return;
  }
  const results = body.messages.filter((message) => message.role === 'tool').length;
  const tools = (body.tools ?? []).map((tool) => tool.function.name);
  const format =
    body.response_format?.type === undefined
      ? undefined
      : `${body.response_format.type}:${body.response_format.json_schema?.name}`;
  requests.push({
    model: body.model,
    tools,
    results,
    stream: body.stream === true,
    ...(format === undefined ? {} : { format }),
  });
  const { text, calls } = tools.includes('search_orders')
    ? ordersAnswer(body.messages, tools)
    : answer(body.messages);
  const usage = {
    prompt_tokens: 100 + 40 * results,
    completion_tokens: 20,
    total_tokens: 120 + 40 * results,
  };
  const finish = calls.length > 0 ? 'tool_calls' : 'stop';
  const base = { id: `cmpl-${requests.length}`, created: 1, model: body.model };
  if (body.stream !== true) {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        ...base,
        object: 'chat.completion',
        usage,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: text, tool_calls: calls },
            finish_reason: finish,
          },
        ],
      }),
    );
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const send = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}): void => {
    const chunk = {
      ...base,
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta, finish_reason: null }],
      ...extra,
    };
    response.write(`data: ${JSON.stringify(chunk)}\n\n`);
  };
  send({ role: 'assistant', content: '' });
  for (let index = 0; index < text.length; index += 8) send({ content: text.slice(index, index + 8) });
  calls.forEach((item, index) => {
    send({ tool_calls: [{ ...item, index }] });
  });
  response.write(
    `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', usage, choices: [{ index: 0, delta: { content: '' }, finish_reason: finish }] })}\n\n`,
  );
  response.end('data: [DONE]\n\n');
}

beforeAll(async () => {
  server = await startFakeServer((request, text, response) => {
    if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ object: 'error', message: `no route ${request.url}` }));
      return;
    }
    respond(JSON.parse(text) as RequestBody, response);
  });
});
afterAll(() => server.close());
beforeEach(() => {
  requests.length = 0;
});

function demo(argv: readonly string[]): Promise<CapturedDemo> {
  return runDemoCaptured(['--provider', 'mistral', '--model', 'mistral-test', ...argv], {
    MISTRAL_API_KEY: 'mistral-test-key-0123456789',
    MISTRAL_SERVER_URL: server.origin,
  });
}

describe('--provider mistral, against a local fake of the chat completions API', () => {
  it('runs the weather task through the real adapter and SDK, streaming, with parallel calls', async () => {
    const { stdout, stderr, ...outcome } = await demo(['--task', 'weather', '--mode', 'native']);
    expect(stderr).toBe('');
    expect(outcome.exitCode).toBe(0);
    expect(stdout).toContain('Run on mistral');
    expect(requests.map((request) => [request.results, request.stream])).toEqual([
      [0, true],
      [Object.keys(WEATHER).length, true],
      [Object.keys(WEATHER).length + 1, true],
    ]);
    expect(requests[0]).toMatchObject({
      model: 'mistral-test',
      tools: ['get_weather', 'compare_temperatures'],
    });
    const run = outcome.runs[0];
    expect(run?.result.text).toBe('Madrid is warmest, Oslo coldest.');
    expect(run?.result.roundTrips).toBe(3);
    expect(stdout).not.toContain('mistral-test-key-0123456789');
  });

  it('runs the orders task in plan mode: one plan call, then the typed answer as native structured output', async () => {
    const { stdout, stderr, ...outcome } = await demo(['--task', 'orders', '--mode', 'plan']);
    expect(stderr).toBe('');
    expect(outcome.exitCode).toBe(0);
    // Two model calls: the plan, then the report; both ask for the schema natively, no final_answer tool offered.
    expect(requests.map(({ results, stream, format }) => ({ results, stream, format }))).toEqual([
      { results: 0, stream: true, format: 'json_schema:final_answer' },
      { results: 1, stream: true, format: 'json_schema:final_answer' },
    ]);
    expect(requests[0]?.tools).toContain('execute_tool_plan');
    for (const request of requests) expect(request.tools).not.toContain('final_answer');
    const run = outcome.runs[0];
    expect(run?.result.roundTrips).toBe(2);
    expect(run?.result.output).toEqual({
      customer: 'ACME',
      orderIds: ['A-1042', 'A-1057', 'A-1063'],
      delayedOrders: 3,
      totalAmountEUR: 4130,
      averageDaysLate: 5.7,
      worstCarrier: { name: 'Rapid Freight', lateDays: 15 },
    });
    expect(run?.typedOutput?.route).toBe('native structured output');
    expect(stdout).toContain(
      'answer: ACME has 3 delayed orders worth €4130, 5.7 days late on average; Rapid Freight accounts for the most late days (15).',
    );
    expect(run?.plans[0]?.steps.map((step) => [step.id, step.status])).toEqual([
      ['search', 'success'],
      ['order1', 'success'],
      ['order2', 'success'],
      ['order3', 'success'],
      ['analysis', 'success'],
    ]);
  });
});
