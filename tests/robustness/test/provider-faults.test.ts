/**
 * Issue 11, case 20 end to end, for each provider through its real SDK against a local fake server: a planted
 * fake API key goes through a whole agent run (a tool call, a tool that fails mentioning the key, then a provider
 * that fails echoing the key) and appears in no error message, no event, no Observation, no console output.
 * Cases 16-19 and the per-provider parts of 20 are covered by each provider package's own fault tests (see
 * README.md for the map); this file adds only what those cannot see: the whole run, across packages.
 */
import { inspect } from 'node:util';
import type { LanguageModel, RunEvent } from '@org/core';
import { type AgentResult, runAgent } from '@org/planner';
import { createAnthropic } from '@org/provider-anthropic';
import { createBedrock } from '@org/provider-bedrock';
import { createOpenAI } from '@org/provider-openai';
import { defineTool } from '@org/tools';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { jsonReply, startFakeHttpServer } from './support/fake-http-server.js';
import { startFakeHttp2Server } from './support/fake-http2-server.js';

/** Keys of no known shape (no `sk-` prefix), so only registration can redact them. */
const OPENAI_KEY = 'planted-openai-credential-QzX81wErTy55Lm0';
const ANTHROPIC_KEY = 'planted-anthropic-credential-Pq7Rs9Tu1Vw3';
const AWS_SECRET = 'planted-aws-secret-Zq8xW3vN5mK2pL9rT4yB7cD1';
const AWS_SESSION_TOKEN = 'planted-aws-session-Hh4Jj6Kk8Ll0Mm2Nn4';

/** Everything a run leaves where a user or a log could see it. */
interface Surfaces {
  readonly result: AgentResult;
  readonly events: RunEvent[];
  readonly consoleOutput: string[];
}

/** A tool that fails the way an HTTP client does: with the credential in its message. */
const fetchWithKey = (key: string) =>
  defineTool({
    name: 'get_weather',
    description: 'Current weather for a city.',
    input: z.object({ city: z.string() }),
    execute: ({ city }) => {
      throw new Error(`upstream refused the request for ${city} made with key ${key}`);
    },
  });

async function runAndCapture(model: LanguageModel, key: string): Promise<Surfaces> {
  const consoleOutput: string[] = [];
  const capture =
    (stream: string) =>
    (...items: unknown[]): void => {
      consoleOutput.push(`${stream}: ${items.map((item) => inspect(item, { depth: 12 })).join(' ')}`);
    };
  const spies = [
    ...(['log', 'info', 'warn', 'error', 'debug', 'trace'] as const).map((method) =>
      vi.spyOn(console, method).mockImplementation(capture(method)),
    ),
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
      consoleOutput.push(`stdout: ${String(chunk)}`);
      return true;
    }),
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: unknown) => {
      consoleOutput.push(`stderr: ${String(chunk)}`);
      return true;
    }),
  ];
  const events: RunEvent[] = [];
  try {
    const result = await runAgent({
      model,
      tools: [fetchWithKey(key)],
      task: 'Weather in Paris?',
      onEvent: (event) => events.push(event),
    });
    return { result, events, consoleOutput };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

/** Every text a surface can produce: JSON, a deep inspection (causes included), messages and stacks. */
function renderings(value: unknown): string[] {
  const texts = [inspect(value, { depth: 16, showHidden: false }), String(safeJson(value))];
  if (value instanceof Error) {
    texts.push(value.message, String(value.stack));
    let cause: unknown = value.cause;
    for (let depth = 0; cause !== undefined && depth < 8; depth++) {
      texts.push(
        inspect(cause, { depth: 8 }),
        String((cause as Error)?.message),
        String((cause as Error)?.stack),
      );
      cause = (cause as Error)?.cause;
    }
  }
  return texts;
}

function safeJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? String(item) : item));
  } catch {
    return inspect(value);
  }
}

function expectNowhere(surfaces: Surfaces, secrets: readonly string[]): void {
  const named: [string, string[]][] = [
    ['the result', renderings(surfaces.result)],
    ['the run error', renderings(surfaces.result.error)],
    ['the observations', surfaces.result.observations.flatMap(renderings)],
    ['the messages', renderings(surfaces.result.messages)],
    ['the events', surfaces.events.flatMap(renderings)],
    ['the console output', surfaces.consoleOutput],
  ];
  for (const [where, texts] of named) {
    for (const secret of secrets) {
      const leaking = texts.find((text) => text.includes(secret));
      const at = leaking?.indexOf(secret) ?? 0;
      expect(
        leaking === undefined,
        `the key appears in ${where}: …${leaking?.slice(Math.max(0, at - 600), at + 100)}…`,
      ).toBe(true);
    }
  }
}

/** The shape every provider's run must have: one tool call answered with a redacted error, then a provider error. */
function expectRunShape(surfaces: Surfaces): void {
  const { result } = surfaces;
  expect(result.finishReason).toBe('error');
  expect(result.observations).toHaveLength(1);
  expect(result.observations[0]?.status).toBe('error');
  expect(result.observations[0]?.error?.message).toContain('[REDACTED]');
  expect(result.error?.message).toContain('[REDACTED]');
}

afterEach(() => {
  vi.restoreAllMocks();
});

/** The fake servers of this file answer JSON bodies: the models are declared without streaming (generate path). */
const NOT_STREAMED = { streaming: false } as const;

describe('20. a planted API key, through a whole agent run with a failing provider', () => {
  it('OpenAI (chat completions): in no error, event, Observation, message or console line', async () => {
    const server = await startFakeHttpServer('/v1');
    try {
      server.enqueue(
        jsonReply(200, {
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1,
          model: 'gpt-test',
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: null,
                tool_calls: [
                  {
                    id: 'call_1',
                    type: 'function',
                    function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
                  },
                ],
              },
              finish_reason: 'tool_calls',
            },
          ],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        }),
        jsonReply(401, {
          error: {
            message: `Incorrect API key provided: ${OPENAI_KEY}. You can find your API key at platform.openai.com.`,
            type: 'invalid_request_error',
            code: 'invalid_api_key',
            param: null,
          },
        }),
      );
      // The fake server answers JSON, so the run takes the generate path (the loop streams only a model declared
      // streaming); the key in the error body reaches the adapter's error mapping the same way on a stream request.
      const model = createOpenAI({ apiKey: OPENAI_KEY, baseURL: server.baseURL, maxRetries: 0 })('gpt-test', {
        api: 'chat',
        capabilities: NOT_STREAMED,
      });
      const surfaces = await runAndCapture(model, OPENAI_KEY);
      expect(server.received[0]?.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
      expectRunShape(surfaces);
      expectNowhere(surfaces, [OPENAI_KEY]);
    } finally {
      await server.close();
    }
  });

  it('Anthropic (messages): in no error, event, Observation, message or console line', async () => {
    const server = await startFakeHttpServer();
    try {
      server.enqueue(
        jsonReply(200, {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-test',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }],
          stop_reason: 'tool_use',
          stop_sequence: null,
          usage: { input_tokens: 10, output_tokens: 5 },
        }),
        jsonReply(401, {
          type: 'error',
          error: { type: 'authentication_error', message: `invalid x-api-key: ${ANTHROPIC_KEY}` },
        }),
      );
      const model = createAnthropic({ apiKey: ANTHROPIC_KEY, baseURL: server.baseURL, maxRetries: 0 })(
        'claude-test',
        { capabilities: NOT_STREAMED },
      );
      const surfaces = await runAndCapture(model, ANTHROPIC_KEY);
      const sent = server.received[0]?.headers;
      expect(`${sent?.['x-api-key'] ?? ''} ${sent?.authorization ?? ''}`).toContain(ANTHROPIC_KEY);
      expectRunShape(surfaces);
      expectNowhere(surfaces, [ANTHROPIC_KEY]);
    } finally {
      await server.close();
    }
  });

  it('Bedrock (converse): secret key and session token in no error, event, Observation, message or console line', async () => {
    const server = await startFakeHttp2Server();
    try {
      server.enqueue(
        {
          status: 200,
          body: {
            output: {
              message: {
                role: 'assistant',
                content: [
                  { toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Paris' } } },
                ],
              },
            },
            stopReason: 'tool_use',
            usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
          },
        },
        {
          status: 403,
          headers: { 'x-amzn-errortype': 'UnrecognizedClientException:http://internal.amazon.com/coral/' },
          body: {
            message: `The security token ${AWS_SESSION_TOKEN} included in the request is invalid (secret ${AWS_SECRET}).`,
          },
        },
      );
      const model = createBedrock({
        region: 'us-east-1',
        endpoint: server.url,
        credentials: {
          accessKeyId: 'AKIAPLANTEDPLANTED00',
          secretAccessKey: AWS_SECRET,
          sessionToken: AWS_SESSION_TOKEN,
        },
        retry: { maxRetries: 0 },
      })('us.anthropic.claude-3-5-sonnet-20240620-v1:0', { capabilities: NOT_STREAMED });
      const surfaces = await runAndCapture(model, AWS_SECRET);
      expect(server.received[0]?.headers['x-amz-security-token']).toBe(AWS_SESSION_TOKEN);
      expectRunShape(surfaces);
      expectNowhere(surfaces, [AWS_SECRET, AWS_SESSION_TOKEN]);
    } finally {
      await server.close();
    }
  });
});
