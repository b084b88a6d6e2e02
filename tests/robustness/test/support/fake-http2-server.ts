import * as http2 from 'node:http2';
import type { AddressInfo } from 'node:net';

/** One JSON answer of the fake Bedrock runtime (HTTP/2 cleartext, the SDK's default protocol). */
export interface Http2Reply {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A request as the fake server received it. */
export interface Http2Request {
  readonly path: string;
  readonly headers: http2.IncomingHttpHeaders;
}

export interface FakeHttp2Server {
  readonly url: string;
  readonly received: Http2Request[];
  enqueue(...replies: Http2Reply[]): void;
  close(): Promise<void>;
}

/** A local h2c server (127.0.0.1, port 0) answering JSON from a queue; an empty queue answers 500. */
export async function startFakeHttp2Server(): Promise<FakeHttp2Server> {
  const queue: Http2Reply[] = [];
  const received: Http2Request[] = [];
  const sessions = new Set<http2.ServerHttp2Session>();
  const server = http2.createServer();
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
    session.on('error', () => {});
  });
  server.on('stream', (stream, headers) => {
    stream.on('error', () => {});
    stream.on('data', () => {});
    stream.on('end', () => {
      received.push({ path: String(headers[':path'] ?? ''), headers });
      const reply = queue.shift() ?? { status: 500, body: { message: 'fake server: nothing queued' } };
      stream.respond({ ':status': reply.status, 'content-type': 'application/json', ...reply.headers });
      stream.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    close: async () => {
      for (const session of sessions) session.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
