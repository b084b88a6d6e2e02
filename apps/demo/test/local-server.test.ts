import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DemoUsageError, parseDemoArguments, runDemo } from '../src/index.js';

const TASKS = ['weather', 'orders'];

describe('--api and --base-url', () => {
  it('parse, with --provider openai', () => {
    const parsed = parseDemoArguments(
      ['--provider', 'openai', '--model', 'qwen', '--api', 'chat', '--base-url=http://localhost:1234/v1'],
      TASKS,
    );
    expect(parsed).toMatchObject({
      provider: 'openai',
      model: 'qwen',
      api: 'chat',
      baseUrl: 'http://localhost:1234/v1',
    });
    expect(parseDemoArguments(['--provider', 'openai', '--model', 'm'], TASKS)).not.toHaveProperty('api');
  });

  it.each([
    [
      ['--provider', 'openai', '--model', 'm', '--api', 'chats'],
      '--api',
      "unknown value 'chats' (did you mean 'chat'?)",
    ],
    [['--provider', 'openai', '--model', 'm', '--api'], '--api', '--api needs a value'],
    [
      ['--provider', 'openai', '--model', 'm', '--base-url', 'localhost:1234'],
      '--base-url',
      'must be an http:// or https:// URL',
    ],
    [['--provider', 'openai', '--model', 'm', '--base-url', 'not a url'], '--base-url', 'is not a URL'],
    [['--api', 'chat'], '--api', 'applies to --provider openai'],
    [
      ['--provider', 'anthropic', '--model', 'm', '--base-url', 'http://x'],
      '--base-url',
      'not --provider anthropic',
    ],
  ])('refuses %j with a DemoUsageError naming %s', (argv, flag, message) => {
    let caught: unknown;
    try {
      parseDemoArguments(argv, TASKS);
    } catch (error) {
      caught = error;
    }
    expect(DemoUsageError.isInstance(caught)).toBe(true);
    expect(caught).toMatchObject({ flag, message: expect.stringContaining(message) });
  });
});

// A local OpenAI-compatible server that speaks only Chat Completions (as LM Studio, Ollama, vLLM and llama.cpp do),
// answering every request with a final text, as JSON or as a stream.
const received: { path: string; authorization: string | undefined; body: Record<string, unknown> }[] = [];
let server: Server;
let baseURL = '';

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    request.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    request.on('end', () => {
      const body = JSON.parse(text || '{}') as Record<string, unknown>;
      received.push({ path: request.url ?? '', authorization: request.headers.authorization, body });
      if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: `no route ${request.url}` } }));
        return;
      }
      const base = { id: 'chatcmpl-local', created: 1, model: String(body.model) };
      const content = 'Madrid is warmest, Oslo coldest.';
      const usage = { prompt_tokens: 50, completion_tokens: 8, total_tokens: 58 };
      if (body.stream === true) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = (delta: object, finishReason: string | null, extra: object = {}) =>
          `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`;
        response.write(chunk({ role: 'assistant', content }, null));
        response.write(chunk({}, 'stop', { usage }));
        response.end('data: [DONE]\n\n');
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          ...base,
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage,
        }),
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

describe('--provider openai --api chat --base-url, against a local Chat Completions server', () => {
  it('sends every request to that server over Chat Completions, without OPENAI_API_KEY', async () => {
    let stdout = '';
    let stderr = '';
    const outcome = await runDemo(
      [
        '--provider',
        'openai',
        '--model',
        'qwen2.5-7b-instruct',
        '--api',
        'chat',
        '--base-url',
        baseURL,
        '--task',
        'weather',
        '--mode',
        'native',
      ],
      {
        stdout: (text) => {
          stdout += text;
        },
        stderr: (text) => {
          stderr += text;
        },
        // Neither a key nor OPENAI_BASE_URL: --base-url alone reaches the client.
        environment: {},
        cwd: process.cwd(),
      },
    );
    expect(stderr).toBe('');
    expect(outcome.exitCode).toBe(0);
    expect(stdout).toContain('qwen2.5-7b-instruct');
    expect(received.length).toBeGreaterThan(0);
    for (const request of received) {
      expect(request.path).toBe('/v1/chat/completions');
      expect(request.body.model).toBe('qwen2.5-7b-instruct');
    }
    expect(received[0]?.body.messages).toBeDefined();
    expect(outcome.runs[0]?.result.text).toBe('Madrid is warmest, Oslo coldest.');
  });
});
