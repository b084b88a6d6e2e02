import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { readStrictJson, timerDelayProblem } from '@org/core';
import type { ToolRegistry } from '@org/tools';
import { createMcpServer, type ServeMcpOptions } from './create-mcp-server.js';
import { InvalidMcpOptionError } from './errors.js';
import { HttpOriginGuard } from './http-origin-guard.js';
import { type McpHttpSession, McpHttpSessions } from './mcp-http-sessions.js';

/** Nesting read from a request body: the arguments' limit (64) plus the JSON-RPC envelope, with room. */
const MAX_BODY_DEPTH = 128;
/** Default `sessionIdleTimeoutMs`: five minutes without a request. */
const DEFAULT_SESSION_IDLE_TIMEOUT_MS = 5 * 60 * 1000;

/** Options of `serveMcpHttp`. */
export interface ServeMcpHttpOptions extends ServeMcpOptions {
  /** Default `127.0.0.1`: only this machine can connect. */
  readonly host?: string;
  /** Default 0: a free port (read it from `url`). */
  readonly port?: number;
  /** The endpoint's path. Default `/mcp`. */
  readonly path?: string;
  /**
   * Sessions open at once. Default 64. At the cap a new session replaces the one idle the longest (its client's next
   * request gets 404, and MCP clients then start a new session); only when every session is answering a request is a
   * new one refused with 503.
   */
  readonly maxSessions?: number;
  /**
   * A session with no request for this long is closed (most clients never end theirs: the MCP SDK client's
   * `close()` sends no DELETE). Milliseconds above 0, or `Infinity` for never. Default 300 000 (five minutes).
   */
  readonly sessionIdleTimeoutMs?: number;
  /** Size of one request body. Default 4 MiB; larger is refused with 413. */
  readonly maxBodyBytes?: number;
  /**
   * `Host` headers accepted (DNS-rebinding protection). Default: for a loopback host, `127.0.0.1:<port>` and
   * `localhost:<port>`; for another host, no check unless you list them.
   */
  readonly allowedHosts?: readonly string[];
  /**
   * `Origin` headers accepted, e.g. `['https://app.example.com']`; a request with another `Origin` is refused with
   * 403, as MCP requires (a request without one, from a client that is not a browser, passes). Default: loopback
   * origins only (`http://localhost:<any port>`, `127.0.0.1`, `[::1]`), whatever the host. Checked with `Host` before
   * anything else, so a refused caller learns nothing (not even that the server is full).
   */
  readonly allowedOrigins?: readonly string[];
}

/** An MCP server over Streamable HTTP made by `serveMcpHttp`. */
export interface McpHttpServing {
  /** The endpoint, e.g. `http://127.0.0.1:53123/mcp`. */
  readonly url: URL;
  /** Sessions open now: initialised and not yet ended (by DELETE, idle expiry, replacement at the cap or `close`). */
  readonly sessionCount: number;
  /** Closes every session and the HTTP server. */
  close(): Promise<void>;
}

function jsonRpcError(response: ServerResponse, status: number, code: number, message: string): void {
  if (response.headersSent) return;
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

async function readBody(request: IncomingMessage, maximum: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > maximum) return undefined;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Serves a registry over Streamable HTTP on `host:port` (default `127.0.0.1`, a free port), one MCP session per
 * client, each with its own SDK server (see `createMcpServer`). `Host` and `Origin` are checked first (403); bodies
 * are bounded; sessions end on DELETE, after `sessionIdleTimeoutMs` idle, or when a newcomer at `maxSessions` takes the
 * place of the one idle the longest. `close()` ends every session and the listener.
 *
 * @example
 * const served = await serveMcpHttp(registry);
 * const client = new Client({ name: 'me', version: '1.0.0' });
 * await client.connect(new StreamableHTTPClientTransport(served.url));
 * // ...
 * await client.close();
 * await served.close();
 */
export async function serveMcpHttp(
  registry: ToolRegistry,
  options: ServeMcpHttpOptions = {},
): Promise<McpHttpServing> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  const maxSessions = options.maxSessions ?? 64;
  const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
  if (!path.startsWith('/'))
    throw new InvalidMcpOptionError({ option: 'path', reason: 'must start with "/"' });
  for (const [option, value] of [
    ['maxSessions', maxSessions],
    ['maxBodyBytes', maxBodyBytes],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 1)
      throw new InvalidMcpOptionError({ option, reason: 'must be a positive integer' });
  }
  const sessionIdleTimeoutMs = options.sessionIdleTimeoutMs ?? DEFAULT_SESSION_IDLE_TIMEOUT_MS;
  const idleProblem = timerDelayProblem(sessionIdleTimeoutMs, { infinity: true });
  if (idleProblem !== undefined)
    throw new InvalidMcpOptionError({ option: 'sessionIdleTimeoutMs', reason: idleProblem });
  // The origins are checked now, before listening, so a bad entry leaves no server behind; the guard that runs is
  // built once the port (named by the default Host list) is known.
  if (options.allowedOrigins !== undefined) new HttpOriginGuard({ allowedOrigins: options.allowedOrigins });
  const sessions = new McpHttpSessions({ maxSessions, idleTimeoutMs: sessionIdleTimeoutMs });
  // Set once listening (the default Host list names the port); checked on every request before anything else.
  let guard: HttpOriginGuard | undefined;
  let closing = false;

  /** Marks the session busy until this response is over (finished, or its connection gone). */
  const trackRequest = (session: McpHttpSession, response: ServerResponse): void => {
    sessions.requestStarted(session);
    response.once('close', () => sessions.requestEnded(session));
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const refusal = guard?.refusal({ host: request.headers.host, origin: request.headers.origin });
    if (refusal !== undefined) return jsonRpcError(response, 403, -32000, refusal);
    const requestUrl = new URL(request.url ?? '/', 'http://localhost');
    if (requestUrl.pathname !== path) return jsonRpcError(response, 404, -32000, 'Not found');
    if (closing) return jsonRpcError(response, 503, -32000, 'The server is closing');
    let parsedBody: unknown;
    if (request.method === 'POST') {
      const body = await readBody(request, maxBodyBytes);
      if (body === undefined)
        return jsonRpcError(response, 413, -32000, `The request body is over ${maxBodyBytes} bytes`);
      // A client's text, holding tool arguments a model may have written: the one strict reader of `@org/core`, so a
      // key repeated with another value or an integer a double cannot hold is refused, as in a direct tool call,
      // never "last wins" or rounded. Depth: the arguments' limit (64) plus the JSON-RPC envelope, with room.
      const read = readStrictJson(body, { maxDepth: MAX_BODY_DEPTH });
      if (!read.ok) {
        return jsonRpcError(
          response,
          400,
          -32700,
          `Parse error: the body is not strict JSON (${read.reason.slice(0, 200)})`,
        );
      }
      parsedBody = read.value;
    }
    const sessionHeader = request.headers['mcp-session-id'];
    if (sessionHeader !== undefined) {
      const session = typeof sessionHeader === 'string' ? sessions.get(sessionHeader) : undefined;
      if (session === undefined) return jsonRpcError(response, 404, -32001, 'Session not found');
      // A standalone GET stream is not activity: see McpHttpSessions.
      if (request.method !== 'GET') trackRequest(session, response);
      await session.transport.handleRequest(request, response, parsedBody);
      return;
    }
    if (request.method !== 'POST') return jsonRpcError(response, 400, -32000, 'No session: initialize first');
    if (!(await sessions.reserve())) return jsonRpcError(response, 503, -32000, 'Too many sessions');
    let opened = false;
    let session: McpHttpSession | undefined;
    try {
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => {
          if (session === undefined) return;
          opened = true;
          sessions.opened(sessionId, session);
        },
      });
      const server = createMcpServer(registry, options);
      session = { transport, server, busy: 0, lastActiveAt: performance.now(), idleTimer: undefined };
      const created = session;
      transport.onclose = () => sessions.closed(created);
      trackRequest(created, response);
      await server.connect(transport);
      await transport.handleRequest(request, response, parsedBody);
    } finally {
      if (!opened) {
        sessions.openFailed();
        // A first request that did not open a session (not an initialize) leaves nothing behind.
        await session?.server.close().catch(() => undefined);
      } else if (closing && session !== undefined) {
        // `close()` ran while this session was opening: it ends with the others.
        sessions.closed(session);
        await session.server.close().catch(() => undefined);
      }
    }
  };

  const httpServer = createServer((request, response) => {
    handle(request, response).catch(() => jsonRpcError(response, 500, -32603, 'Internal error'));
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? 0, host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const address = httpServer.address() as AddressInfo;
  const loopback = host === '127.0.0.1' || host === 'localhost' || host === '::1';
  const allowedHosts =
    options.allowedHosts !== undefined
      ? options.allowedHosts
      : loopback
        ? [`127.0.0.1:${address.port}`, `localhost:${address.port}`, `[::1]:${address.port}`]
        : undefined;
  guard = new HttpOriginGuard({
    ...(allowedHosts === undefined ? {} : { allowedHosts }),
    ...(options.allowedOrigins === undefined ? {} : { allowedOrigins: options.allowedOrigins }),
  });
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = new URL(`http://${urlHost}:${address.port}${path}`);

  return {
    url,
    get sessionCount(): number {
      return sessions.size;
    },
    close: async (): Promise<void> => {
      closing = true;
      const open = sessions.drain();
      await Promise.all(open.map((session) => session.server.close().catch(() => undefined)));
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
    },
  };
}
