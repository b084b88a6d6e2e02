import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ordersTask, WEATHER } from '../src/index.js';
import { type CapturedDemo, type FakeServer, runDemoCaptured, startFakeServer } from './provider-fakes.js';

// A fake Gemini API on 127.0.0.1 (`:generateContent` and `:streamGenerateContent?alt=sse`). It answers the weather
// task as Gemini 3 would, from the function responses it receives: the four cities' calls in one chunk each (with
// ids and a thought signature on the first, which it then requires back), the comparison, then the answer; and the
// orders task in plan mode as Gemini 3 with a response schema would: the whole plan in one signed call, then the
// report as JSON text computed from the plan's result. So the demo's --provider google path runs end to end through
// @org/provider-google and the real @google/genai SDK.

type Json = Record<string, unknown>;

const SIGNATURE = 'c2lnbmF0dXJlLW9mLXRoZS1mYWtlLWdlbWluaQ==';
const requests: {
  model: string;
  stream: boolean;
  responses: number;
  signed: boolean;
  tools: string[];
  /** The response MIME type asked for, with `+schema` when a JSON Schema came with it. */
  format?: string;
}[] = [];
let server: FakeServer;

function functionResponses(contents: Json[]): Json[] {
  const last = contents.at(-1);
  return ((last?.parts as Json[] | undefined) ?? [])
    .map((part) => part.functionResponse as Json | undefined)
    .filter((response): response is Json => response !== undefined);
}

function outputOf(response: Json): unknown {
  return JSON.parse(String((response.response as Json).output));
}

function toolNames(body: Json): string[] {
  return ((body.tools as Json[] | undefined) ?? []).flatMap((tool) =>
    ((tool.functionDeclarations as Json[] | undefined) ?? []).map((declaration) => String(declaration.name)),
  );
}

/** Plan mode: the whole plan in one signed call, then the report, as the JSON the response schema asks for. */
function ordersParts(contents: Json[], tools: string[]): Json[] {
  const responses = functionResponses(contents);
  if (responses.length === 0) {
    if (!tools.includes('execute_tool_plan')) return [{ text: 'I have no way to run a plan.' }];
    const steps = ordersTask.calls.map((taskCall) => ({
      id: taskCall.id,
      tool: taskCall.toolName,
      arguments: taskCall.arguments,
    }));
    return [
      {
        functionCall: {
          id: 'fc_plan',
          name: 'execute_tool_plan',
          args: { steps, output_steps: ['search', 'analysis'] },
        },
        thoughtSignature: SIGNATURE,
      },
    ];
  }
  const { results } = outputOf(responses[0] as Json) as {
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
  const report = JSON.stringify({
    customer: results.search.customer,
    orderIds: results.search.orders.map((order) => order.id),
    delayedOrders: results.analysis.count,
    totalAmountEUR: results.analysis.totalAmountEUR,
    averageDaysLate: results.analysis.averageDaysLate,
    worstCarrier: { name: results.analysis.worstCarrier, lateDays: results.analysis.worstCarrierLateDays },
  });
  // Streamed in a few text parts, as Gemini does.
  const third = Math.ceil(report.length / 3);
  return [0, 1, 2].map((index) => ({ text: report.slice(index * third, (index + 1) * third) }));
}

function answerParts(contents: Json[]): Json[] {
  const responses = functionResponses(contents);
  if (responses.length === 0) {
    return Object.keys(WEATHER).map((city, index) => ({
      functionCall: { id: `fc_${city}`, name: 'get_weather', args: { city } },
      ...(index === 0 ? { thoughtSignature: SIGNATURE } : {}),
    }));
  }
  if (responses.length === Object.keys(WEATHER).length) {
    return [
      {
        functionCall: {
          id: 'fc_compare',
          name: 'compare_temperatures',
          args: { readings: responses.map(outputOf) },
        },
        thoughtSignature: SIGNATURE,
      },
    ];
  }
  const ranking = outputOf(responses[0] as Json) as { warmest: string; coldest: string };
  return [{ text: `${ranking.warmest} is warmest, ` }, { text: `${ranking.coldest} coldest.` }];
}

function answer(model: string, stream: boolean, body: Json, response: ServerResponse): void {
  const contents = body.contents as Json[];
  // Gemini 3 refuses a function-calling turn of the current exchange whose first call lost its signature.
  const signed = contents
    .filter((content) => content.role === 'model')
    .every(
      (content) =>
        (content.parts as Json[]).find((part) => part.functionCall !== undefined)?.thoughtSignature ===
        SIGNATURE,
    );
  const tools = toolNames(body);
  const config = body.generationConfig as Json | undefined;
  const format =
    config?.responseMimeType === undefined
      ? undefined
      : `${String(config.responseMimeType)}${config.responseJsonSchema === undefined ? '' : '+schema'}`;
  requests.push({
    model,
    stream,
    responses: functionResponses(contents).length,
    signed,
    tools,
    ...(format === undefined ? {} : { format }),
  });
  if (!signed) {
    response.writeHead(400, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        error: {
          code: 400,
          message: 'Function call is missing a thought_signature.',
          status: 'INVALID_ARGUMENT',
        },
      }),
    );
    return;
  }
  const parts = tools.includes('search_orders') ? ordersParts(contents, tools) : answerParts(contents);
  const usageMetadata = {
    promptTokenCount: 100 + 40 * requests.length,
    candidatesTokenCount: 20,
    totalTokenCount: 120 + 40 * requests.length,
  };
  const chunk = (chunkParts: Json[], extra: Json = {}): Json => ({
    candidates: [{ content: { role: 'model', parts: chunkParts }, index: 0, ...extra }],
    responseId: `resp_${requests.length}`,
  });
  if (!stream) {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ ...chunk(parts, { finishReason: 'STOP' }), usageMetadata }));
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const part of parts) response.write(`data: ${JSON.stringify(chunk([part]))}\r\n\r\n`);
  response.end(`data: ${JSON.stringify({ ...chunk([], { finishReason: 'STOP' }), usageMetadata })}\r\n\r\n`);
}

beforeAll(async () => {
  server = await startFakeServer((request, text, response) => {
    const route = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent\?alt=sse)$/.exec(
      request.url ?? '',
    );
    if (
      request.method !== 'POST' ||
      route === null ||
      request.headers['x-goog-api-key'] !== 'gemini-test-key'
    ) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ error: { code: 404, message: `no route ${request.url}`, status: 'NOT_FOUND' } }),
      );
      return;
    }
    answer(route[1] ?? '', route[2] !== 'generateContent', JSON.parse(text) as Json, response);
  });
});
afterAll(() => server.close());
beforeEach(() => {
  requests.length = 0;
});

function demo(argv: readonly string[]): Promise<CapturedDemo> {
  return runDemoCaptured(['--provider', 'google', '--model', 'gemini-test', ...argv], {
    GEMINI_API_KEY: 'gemini-test-key',
    GOOGLE_GEMINI_BASE_URL: server.origin,
  });
}

describe('--provider google, against a local fake of the Gemini API', () => {
  it('runs the weather task through the real adapter and SDK, streaming, signatures sent back', async () => {
    const { stdout, stderr, ...outcome } = await demo(['--task', 'weather', '--mode', 'native']);
    expect(stderr).toBe('');
    expect(outcome.exitCode).toBe(0);
    expect(stdout).toContain('Run on google');
    expect(requests).toMatchObject([
      { model: 'gemini-test', stream: true, responses: 0, signed: true },
      { model: 'gemini-test', stream: true, responses: 4, signed: true },
      { model: 'gemini-test', stream: true, responses: 1, signed: true },
    ]);
    const run = outcome.runs[0];
    expect(run?.result.text).toBe('Madrid is warmest, Oslo coldest.');
    expect(run?.result.roundTrips).toBe(3);
    expect(stdout).not.toContain('gemini-test-key');
  });

  it('runs the orders task in plan mode: one signed plan call, then the typed answer as native structured output', async () => {
    const { stdout, stderr, ...outcome } = await demo(['--task', 'orders', '--mode', 'plan']);
    expect(stderr).toBe('');
    expect(outcome.exitCode).toBe(0);
    // Two model calls: the plan, then the report; the plan call's signature comes back on the second.
    expect(
      requests.map(({ stream, responses, signed, format }) => ({ stream, responses, signed, format })),
    ).toEqual([
      { stream: true, responses: 0, signed: true, format: 'application/json+schema' },
      { stream: true, responses: 1, signed: true, format: 'application/json+schema' },
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
