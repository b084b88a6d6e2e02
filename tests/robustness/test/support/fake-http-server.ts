import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the fake server received it. */
export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, unknown>;
}

/** Answers one request; called with what was received. */
export type FakeReply = (response: ServerResponse, request: ReceivedRequest) => void;

/** A local HTTP/1.1 server (127.0.0.1, port 0) answering from a queue; an empty queue answers 500. */
export interface FakeHttpServer {
  readonly baseURL: string;
  readonly received: ReceivedRequest[];
  enqueue(...replies: FakeReply[]): void;
  close(): Promise<void>;
}

export async function startFakeHttpServer(pathPrefix = ''): Promise<FakeHttpServer> {
  const queue: FakeReply[] = [];
  const received: ReceivedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, unknown> = {};
      try {
        body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
      } catch {
        body = { unparsed: text };
      }
      const entry: ReceivedRequest = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body,
      };
      received.push(entry);
      const reply = queue.shift();
      if (reply === undefined) {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({ error: { message: 'fake server: nothing queued', type: 'server_error' } }),
        );
        return;
      }
      reply(response, entry);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}${pathPrefix}`,
    received,
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A JSON answer with a status and headers. */
export const jsonReply =
  (status: number, body: unknown, headers: Record<string, string> = {}): FakeReply =>
  (response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };

/** A server-sent-event answer: one `data:` line per payload (strings are written as they are). */
export const sseReply =
  (payloads: readonly (object | string)[], options: { done?: boolean } = {}): FakeReply =>
  (response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const payload of payloads) {
      const data = typeof payload === 'string' ? payload : JSON.stringify(payload);
      response.write(`data: ${data}\n\n`);
    }
    if (options.done !== false) response.write('data: [DONE]\n\n');
    response.end();
  };
