import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ordersTask, WEATHER } from '../src/index.js';
import { type CapturedDemo, type FakeServer, runDemoCaptured, startFakeServer } from './provider-fakes.js';

// A fake OpenAI Responses API on 127.0.0.1. It answers the weather task as a model with native parallel calls would,
// and the orders task as a model in plan mode with native structured output would, from the function outputs it
// receives, so the demo's --provider path runs end to end through the adapter and the SDK. It streams (SSE) when
// asked, as the adapter does for a model that declares streaming, and answers with one JSON body otherwise.

interface InputItem {
  type?: string;
  call_id?: string;
  output?: string;
}

interface RequestBody {
  model: string;
  input: InputItem[];
  tools?: { name: string }[];
  stream?: boolean;
  text?: { format?: { type?: string; name?: string } };
}

type OutputItem =
  | {
      type: 'function_call';
      id: string;
      call_id: string;
      name: string;
      arguments: string;
      status: 'completed';
    }
  | {
      type: 'message';
      id: string;
      role: 'assistant';
      status: 'completed';
      content: { type: 'output_text'; text: string; annotations: [] }[];
    };

const requests: { model: string; tools: string[]; outputs: number; stream: boolean; format?: string }[] = [];
let server: FakeServer;

const call = (id: string, name: string, args: unknown): OutputItem => ({
  type: 'function_call',
  id: `fc_${id}`,
  call_id: id,
  name,
  arguments: JSON.stringify(args),
  status: 'completed',
});

const message = (text: string): OutputItem => ({
  type: 'message',
  id: `msg_${requests.length}`,
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text, annotations: [] }],
});

function weatherAnswer(outputs: InputItem[]): OutputItem[] {
  if (outputs.length === 0) {
    return Object.keys(WEATHER).map((city) => call(`call_${city}`, 'get_weather', { city }));
  }
  if (outputs.length === Object.keys(WEATHER).length) {
    const readings = outputs.map((item) => JSON.parse(item.output ?? '{}') as unknown);
    return [call('call_compare', 'compare_temperatures', { readings })];
  }
  const ranking = JSON.parse(outputs.at(-1)?.output ?? '{}') as { warmest: string; coldest: string };
  return [message(`${ranking.warmest} is warmest, ${ranking.coldest} coldest.`)];
}

/**
 * Plan mode: the whole plan in one call, then the report: as JSON text when the request asks for it natively, as the
 * arguments of the `final_answer` tool when it offers that tool instead.
 */
function ordersAnswer(outputs: InputItem[], finalAnswerTool: boolean): OutputItem[] {
  if (outputs.length === 0) {
    const steps = ordersTask.calls.map((taskCall) => ({
      id: taskCall.id,
      tool: taskCall.toolName,
      arguments: taskCall.arguments,
    }));
    return [call('call_plan', 'execute_tool_plan', { steps, output_steps: ['search', 'analysis'] })];
  }
  const { results } = JSON.parse(outputs[0]?.output ?? '{}') as {
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
    customer: results.search.customer,
    orderIds: results.search.orders.map((order) => order.id),
    delayedOrders: results.analysis.count,
    totalAmountEUR: results.analysis.totalAmountEUR,
    averageDaysLate: results.analysis.averageDaysLate,
    worstCarrier: { name: results.analysis.worstCarrier, lateDays: results.analysis.worstCarrierLateDays },
  };
  return [finalAnswerTool ? call('call_final', 'final_answer', report) : message(JSON.stringify(report))];
}

function pieces(text: string, size: number): string[] {
  const parts: string[] = [];
  for (let index = 0; index < text.length; index += size) parts.push(text.slice(index, index + size));
  return parts;
}

/** The Responses API's stream events for a complete answer, each output item in deltas. */
function writeStream(response: ServerResponse, final: Record<string, unknown>, output: OutputItem[]): void {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  let sequence = 0;
  const send = (event: Record<string, unknown>): void => {
    response.write(
      `event: ${String(event.type)}\ndata: ${JSON.stringify({ ...event, sequence_number: sequence++ })}\n\n`,
    );
  };
  send({ type: 'response.created', response: { ...final, status: 'in_progress', output: [] } });
  output.forEach((item, index) => {
    const base = { item_id: item.id, output_index: index };
    if (item.type === 'message') {
      send({ type: 'response.output_item.added', output_index: index, item: { ...item, content: [] } });
      for (const delta of pieces(item.content[0]?.text ?? '', 12)) {
        send({ type: 'response.output_text.delta', ...base, content_index: 0, delta, logprobs: [] });
      }
    } else {
      send({ type: 'response.output_item.added', output_index: index, item: { ...item, arguments: '' } });
      for (const delta of pieces(item.arguments, 16)) {
        send({ type: 'response.function_call_arguments.delta', ...base, delta });
      }
      send({ type: 'response.function_call_arguments.done', ...base, arguments: item.arguments });
    }
    send({ type: 'response.output_item.done', output_index: index, item });
  });
  send({ type: 'response.completed', response: final });
  response.end();
}

function answer(body: RequestBody, response: ServerResponse): void {
  const outputs = body.input.filter((item) => item.type === 'function_call_output');
  const tools = (body.tools ?? []).map((tool) => tool.name);
  const format =
    body.text?.format?.type === undefined ? undefined : `${body.text.format.type}:${body.text.format.name}`;
  requests.push({
    model: body.model,
    tools,
    outputs: outputs.length,
    stream: body.stream === true,
    ...(format === undefined ? {} : { format }),
  });
  const usage = {
    input_tokens: 100 + 40 * outputs.length,
    output_tokens: 20,
    total_tokens: 120 + 40 * outputs.length,
  };
  const output = tools.includes('search_orders')
    ? ordersAnswer(outputs, format === undefined && tools.includes('final_answer'))
    : weatherAnswer(outputs);
  const final = { id: `resp_${requests.length}`, object: 'response', status: 'completed', output, usage };
  if (body.stream === true) {
    writeStream(response, final, output);
    return;
  }
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify(final));
}

beforeAll(async () => {
  server = await startFakeServer((request, text, response) => {
    if (request.method !== 'POST' || request.url !== '/v1/responses') {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `no route ${request.url}` } }));
      return;
    }
    answer(JSON.parse(text) as RequestBody, response);
  });
});
afterAll(() => server.close());
beforeEach(() => {
  requests.length = 0;
});

function demo(argv: readonly string[]): Promise<CapturedDemo> {
  return runDemoCaptured(['--provider', 'openai', '--model', 'gpt-test', ...argv], {
    OPENAI_API_KEY: 'sk-test-0123456789',
    OPENAI_BASE_URL: `${server.origin}/v1`,
  });
}

describe('--provider openai, against a local fake of the Responses API', () => {
  it('runs the task through the real adapter and SDK, streaming, and reports the provider usage and real time', async () => {
    const { stdout, stderr, ...outcome } = await demo(['--task', 'weather', '--mode', 'native']);
    expect(stderr).toBe('');
    expect(outcome.exitCode).toBe(0);
    expect(stdout).toContain('Run on openai');
    expect(stdout).toContain('gpt-test, real time.');
    expect(stdout).toContain('| wall time |');
    expect(requests.map((request) => [request.outputs, request.stream])).toEqual([
      [0, true],
      [4, true],
      [5, true],
    ]);
    expect(requests[0]).toMatchObject({ model: 'gpt-test', tools: ['get_weather', 'compare_temperatures'] });
    // The answer streamed: its text is printed once, stamped with when it started and ended streaming.
    expect(stdout).toMatch(
      /model call 3 wrote, streamed from \+\d+\.\d{3} s: Madrid is warmest, Oslo coldest\./,
    );
    expect(stdout).toMatch(/model call 1 … writing a call to get_weather/);
    const run = outcome.runs[0];
    expect(run?.result.text).toBe('Madrid is warmest, Oslo coldest.');
    expect(run?.result.roundTrips).toBe(3);
    expect(run?.result.usage.inputTokens).toBe(100 + 260 + 300);
    expect(stdout).not.toContain('sk-test-0123456789');
  });

  const EXPECTED_REPORT = {
    customer: 'ACME',
    orderIds: ['A-1042', 'A-1057', 'A-1063'],
    delayedOrders: 3,
    totalAmountEUR: 4130,
    averageDaysLate: 5.7,
    worstCarrier: { name: 'Rapid Freight', lateDays: 15 },
  };

  it('gets the typed answer as native structured output (the adapter declares it), in plan mode', async () => {
    const { stdout, stderr, ...outcome } = await demo(['--task', 'orders', '--mode', 'plan']);
    expect(stderr).toBe('');
    expect(outcome.exitCode).toBe(0);
    // Every request asks for the schema natively; no final_answer tool is offered.
    expect(requests.map((request) => request.format)).toEqual([
      'json_schema:final_answer',
      'json_schema:final_answer',
    ]);
    for (const request of requests) expect(request.tools).not.toContain('final_answer');
    const run = outcome.runs[0];
    expect(run?.result.output).toEqual(EXPECTED_REPORT);
    expect(run?.typedOutput?.route).toBe('native structured output');
    expect(stdout).toContain('typed answer (OrdersReport, as native structured output), validated:');
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

  it('gets it through the final_answer tool on a server declared without structured output', async () => {
    const { stdout, stderr, ...outcome } = await demo([
      '--task',
      'orders',
      '--mode',
      'plan',
      '--structured-output',
      'tool',
    ]);
    expect(stderr).toBe('');
    expect(outcome.exitCode).toBe(0);
    // No request asks for a response format; each offers the final_answer tool, which the model calls last.
    expect(requests.map((request) => request.format)).toEqual([undefined, undefined]);
    for (const request of requests) expect(request.tools).toContain('final_answer');
    const run = outcome.runs[0];
    expect(run?.result.output).toEqual(EXPECTED_REPORT);
    expect(run?.typedOutput?.route).toBe('final_answer tool');
    expect(stdout).toContain('typed answer (OrdersReport, through the final_answer tool), validated:');
  });
});
