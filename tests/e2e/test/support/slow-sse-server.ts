// A Chat Completions server on 127.0.0.1 that streams each answer slowly (server-sent events), so the e2e runs can
// show work starting while the model is still writing; shared by the openai streaming and code-mode runs.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LanguageModel } from '@org/core';
import { createOpenAI } from '@org/provider-openai';

/** One streamed answer: its chunks (each a `choices[0].delta`), and the finish reason. */
export interface StreamedAnswer {
  readonly deltas: readonly Record<string, unknown>[];
  readonly finishReason: 'tool_calls' | 'stop';
}

/** A running slow server: where the SDK points, and what it saw. */
export interface SlowServer {
  /** `http://127.0.0.1:PORT/v1`, for the SDK's `baseURL`. */
  readonly baseURL: string;
  /** When each answer's stream ended (`Date.now()`), in order. */
  readonly ended: number[];
  /** Each request's JSON body, in order. */
  readonly requests: Record<string, unknown>[];
  close(): Promise<void>;
}

/** A Chat Completions server streaming each queued answer one chunk every `gapMs`; it records when each ended. */
export async function startSlowServer(answers: StreamedAnswer[], gapMs: number): Promise<SlowServer> {
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
export function callDeltas(
  index: number,
  id: string,
  name: string,
  args: string,
  size: number,
): Record<string, unknown>[] {
  const deltas: Record<string, unknown>[] = [
    { tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }] },
  ];
  for (let at = 0; at < args.length; at += size) {
    deltas.push({ tool_calls: [{ index, function: { arguments: args.slice(at, at + size) } }] });
  }
  return deltas;
}

/** The deltas that write `text`, a word (with its trailing space) a chunk. */
export const textDeltas = (text: string): { content: string }[] =>
  text.split(/(?<= )/).map((content) => ({ content }));

/** The `openai` adapter's Chat Completions model `gpt-e2e` on `server`, the SDK's retries off. */
export function slowServerModel(server: SlowServer): LanguageModel {
  return createOpenAI({ apiKey: 'sk-e2e-test-key', baseURL: server.baseURL, maxRetries: 0 })('gpt-e2e', {
    api: 'chat',
  });
}
