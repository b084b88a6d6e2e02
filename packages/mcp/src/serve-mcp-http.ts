import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { readStrictJson } from '@org/core';
import type { ToolRegistry } from '@org/tools';
import { createMcpServer, type ServeMcpOptions } from './create-mcp-server.js';
import { InvalidMcpOptionError } from './errors.js';

/** Nesting read from a request body: the arguments' limit (64) plus the JSON-RPC envelope, with room. */
const MAX_BODY_DEPTH = 128;

/** Options of `serveMcpHttp`. */
export interface ServeMcpHttpOptions extends ServeMcpOptions {
  /** Default `127.0.0.1`: only this machine can connect. */
  readonly host?: string;
  /** Default 0: a free port (read it from `url`). */
  readonly port?: number;
  /** The endpoint's path. Default `/mcp`. */
  readonly path?: string;
  /** Sessions open at once; a new one beyond is refused with 503. Default 64. */
  readonly maxSessions?: number;
  /** Size of one request body. Default 4 MiB; larger is refused with 413. */
  readonly maxBodyBytes?: number;
  /**
   * `Host` headers accepted (DNS-rebinding protection). Default: for a loopback host, `127.0.0.1:<port>` and
   * `localhost:<port>`; for another host, no check unless you list them.
   */
  readonly allowedHosts?: readonly string[];
}

/** An MCP server over Streamable HTTP made by `serveMcpHttp`. */
export interface McpHttpServing {
  /** The endpoint, e.g. `http://127.0.0.1:53123/mcp`. */
  readonly url: URL;
  /** Sessions open now. */
  readonly sessionCount: number;
  /** Closes every session and the HTTP server. */
  close(): Promise<void>;
}

interface Session {
  readonly transport: StreamableHTTPServerTransport;
  readonly server: Server;
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
 * client, each with its own SDK server (see `createMcpServer`). Bodies and sessions are bounded; `close()` ends
 * every session and the listener.
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
  const sessions = new Map<string, Session>();
  let allowedHosts: string[] | undefined;
  let closing = false;

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
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
    if (typeof sessionHeader === 'string') {
      const session = sessions.get(sessionHeader);
      if (session === undefined) return jsonRpcError(response, 404, -32001, 'Session not found');
      await session.transport.handleRequest(request, response, parsedBody);
      return;
    }
    if (request.method !== 'POST') return jsonRpcError(response, 400, -32000, 'No session: initialize first');
    if (sessions.size >= maxSessions) return jsonRpcError(response, 503, -32000, 'Too many sessions');
    let entry: Session | undefined;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        if (entry !== undefined) sessions.set(sessionId, entry);
      },
      ...(allowedHosts === undefined ? {} : { enableDnsRebindingProtection: true, allowedHosts }),
    });
    const server = createMcpServer(registry, options);
    entry = { transport, server };
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(request, response, parsedBody);
    // A first request that did not open a session (not an initialize) leaves nothing behind.
    if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) await server.close();
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
  allowedHosts =
    options.allowedHosts !== undefined
      ? [...options.allowedHosts]
      : loopback
        ? [`127.0.0.1:${address.port}`, `localhost:${address.port}`, `[::1]:${address.port}`]
        : undefined;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = new URL(`http://${urlHost}:${address.port}${path}`);

  return {
    url,
    get sessionCount(): number {
      return sessions.size;
    },
    close: async (): Promise<void> => {
      closing = true;
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((session) => session.server.close().catch(() => undefined)));
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
    },
  };
}
