import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDemo, WEATHER } from '../src/index.js';

// A fake OpenAI Responses API on 127.0.0.1: it answers the weather task as a model with native parallel calls
// would, from the function outputs it receives, so the demo's --provider path runs end to end through the SDK.
interface InputItem {
  type?: string;
  call_id?: string;
  output?: string;
}

const requests: { model: string; tools: string[]; outputs: number }[] = [];
let server: Server;
let baseURL = '';

function answer(body: { model: string; input: InputItem[]; tools?: { name: string }[] }): unknown {
  const outputs = body.input.filter((item) => item.type === 'function_call_output');
  requests.push({
    model: body.model,
    tools: (body.tools ?? []).map((tool) => tool.name),
    outputs: outputs.length,
  });
  const usage = {
    input_tokens: 100 + 40 * outputs.length,
    output_tokens: 20,
    total_tokens: 120 + 40 * outputs.length,
  };
  const call = (id: string, name: string, args: unknown) => ({
    type: 'function_call',
    id: `fc_${id}`,
    call_id: id,
    name,
    arguments: JSON.stringify(args),
    status: 'completed',
  });
  const response = (output: unknown[]) => ({
    id: `resp_${requests.length}`,
    object: 'response',
    status: 'completed',
    output,
    usage,
  });
  if (outputs.length === 0) {
    return response(Object.keys(WEATHER).map((city) => call(`call_${city}`, 'get_weather', { city })));
  }
  if (outputs.length === Object.keys(WEATHER).length) {
    const readings = outputs.map((item) => JSON.parse(item.output ?? '{}') as unknown);
    return response([call('call_compare', 'compare_temperatures', { readings })]);
  }
  const ranking = JSON.parse(outputs.at(-1)?.output ?? '{}') as { warmest: string; coldest: string };
  return response([
    {
      type: 'message',
      id: 'msg_1',
      role: 'assistant',
      status: 'completed',
      content: [
        {
          type: 'output_text',
          text: `${ranking.warmest} is warmest, ${ranking.coldest} coldest.`,
          annotations: [],
        },
      ],
    },
  ]);
}

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    request.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    request.on('end', () => {
      const ok = request.method === 'POST' && request.url === '/v1/responses';
      response.writeHead(ok ? 200 : 404, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify(ok ? answer(JSON.parse(text)) : { error: { message: `no route ${request.url}` } }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('--provider openai, against a local fake of the Responses API', () => {
  it('runs the task through the real adapter and SDK and reports the provider usage and real time', async () => {
    let stdout = '';
    let stderr = '';
    const outcome = await runDemo(
      ['--provider', 'openai', '--model', 'gpt-test', '--task', 'weather', '--mode', 'native'],
      {
        stdout: (text) => {
          stdout += text;
        },
        stderr: (text) => {
          stderr += text;
        },
        environment: { OPENAI_API_KEY: 'sk-test-0123456789', OPENAI_BASE_URL: baseURL },
        cwd: process.cwd(),
      },
    );
    expect(stderr).toBe('');
    expect(outcome.exitCode).toBe(0);
    expect(stdout).toContain('Run on openai');
    expect(stdout).toContain('gpt-test, real time.');
    expect(stdout).toContain('| wall time |');
    expect(requests.map((request) => request.outputs)).toEqual([0, 4, 5]);
    expect(requests[0]).toEqual({
      model: 'gpt-test',
      tools: ['get_weather', 'compare_temperatures'],
      outputs: 0,
    });
    const run = outcome.runs[0];
    expect(run?.result.text).toBe('Madrid is warmest, Oslo coldest.');
    expect(run?.result.roundTrips).toBe(3);
    expect(run?.result.usage.inputTokens).toBe(100 + 260 + 300);
    expect(stdout).not.toContain('sk-test-0123456789');
  });
});
