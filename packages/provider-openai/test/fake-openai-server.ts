import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { WireRequest } from '@org/provider-conformance';
import { chatRequestRejection, renderChat } from './fake-chat-api.js';
import { FakeReasoningMemory } from './fake-reasoning-memory.js';
import { errorBody, type FakeReply, type ToolCallOrder, writeRejection } from './fake-replies.js';
import { renderResponses } from './fake-responses-api.js';
import { projectChat, projectResponses } from './fake-wire-projection.js';

export {
  errorBody,
  type FakeReply,
  jsonReply,
  type OpenAIResponseReply,
  type RawReply,
  resetBeforeHeaders,
  sseReply,
  type ToolCallOrder,
} from './fake-replies.js';

/** One request as the server received it. */
export interface ReceivedRequest {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, unknown>;
}

/**
 * A local OpenAI: `/v1/chat/completions` and `/v1/responses`, JSON and SSE, on 127.0.0.1 and a free port. Like the
 * real API it refuses what OpenAI refuses (a tool message with images; reasoning sent back wrongly, see
 * `FakeReasoningMemory`) before the scripted reply is consumed.
 */
export interface FakeOpenAIServer {
  /** The base URL to give the SDK, ending in `/v1`. */
  readonly baseURL: string;
  enqueue(...replies: FakeReply[]): void;
  readonly received: ReceivedRequest[];
  /** The received requests projected to the conformance suite's neutral facts. */
  wireRequests(): WireRequest[];
  close(): Promise<void>;
}

/**
 * Starts a fake OpenAI server. Every test closes it (`await server.close()`). Parallel calls stream interleaved unless
 * `toolCallOrder` says `'sequential'` (as OpenAI sends them).
 */
export async function startFakeOpenAIServer(
  options: { readonly toolCallOrder?: ToolCallOrder } = {},
): Promise<FakeOpenAIServer> {
  const queue: FakeReply[] = [];
  const received: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const memory = new FakeReasoningMemory();
  let count = 0;

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '';
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(JSON.stringify(errorBody('Fake server: the request body is not JSON.')));
        return;
      }
      received.push({ path, headers: request.headers, body });
      count += 1;
      const isChat = path.endsWith('/chat/completions');
      const isResponses = path.endsWith('/responses');
      const rejection = isChat
        ? chatRequestRejection(body)
        : isResponses
          ? memory.rejection(body)
          : undefined;
      if (rejection !== undefined) {
        writeRejection(response, rejection);
        return;
      }
      const reply = queue.shift();
      if (reply === undefined) {
        response.writeHead(500, { 'content-type': 'application/json', 'x-should-retry': 'false' });
        response.end(
          JSON.stringify(errorBody('Fake server: no reply scripted for this request.', null, 'server_error')),
        );
        return;
      }
      if (reply.type === 'raw') {
        reply.handle({ request, response, socket: request.socket, body });
        return;
      }
      if (isChat) renderChat(reply, body, response, request.socket, count, options.toolCallOrder);
      else if (isResponses)
        renderResponses(reply, body, response, request.socket, count, memory, options.toolCallOrder);
      else {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end(JSON.stringify(errorBody(`Fake server: unknown path ${path}`)));
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    received,
    wireRequests: () =>
      received.map((request) =>
        request.path.endsWith('/chat/completions')
          ? projectChat(request.body)
          : projectResponses(request.body),
      ),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
