/**
 * Requests to `serveMcpHttp` are hostile input too: any `Host`, `Origin` and `mcp-session-id` header, any method and
 * body. Raw HTTP (so `Host` can be anything). Whatever arrives, a refused `Host` or `Origin` gets 403 before anything
 * else, the server never answers 500 or falls over, never holds more sessions than its cap, and a real client can
 * still connect afterwards.
 */
import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { serveMcpHttp } from '@org/mcp';
import { defineTool, ToolRegistry } from '@org/tools';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NUM_RUNS, propertyTimeout } from './support/run-helpers.js';

const registry = new ToolRegistry([
  defineTool({
    name: 'echo',
    description: 'Echoes a text.',
    input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    execute: (args: Record<string, unknown>) => String(args.text),
  }),
]);

const initialize = (id: number): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
  });

interface Answer {
  readonly status: number;
  readonly sessionId: string | undefined;
  readonly body: string;
}

function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        // A GET that opened an SSE stream never ends by itself: its status is the answer.
        text += chunk;
        if (method === 'GET') response.destroy();
      });
      const done = (): void => {
        const sessionId = response.headers['mcp-session-id'];
        resolve({
          status: response.statusCode ?? 0,
          sessionId: typeof sessionId === 'string' ? sessionId : undefined,
          body: text,
        });
      };
      response.on('end', done);
      response.on('close', done);
    });
    request.on('error', reject);
    request.end(body);
  });
}

const headerText = fc.stringMatching(/^[\x21-\x7e]{0,40}$/);

describe('serveMcpHttp under hostile requests', () => {
  it(
    'answers 403 to a refused Host or Origin first, never 500, never beyond its session cap',
    async () => {
      const maxSessions = 3;
      const served = await serveMcpHttp(registry, { maxSessions, sessionIdleTimeoutMs: 200 });
      const port = served.url.port;
      const allowedHosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
      const loopbackOrigin = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;
      const knownSessions: string[] = [];
      try {
        const host = fc.oneof(
          fc.constantFrom(`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`),
          fc.constantFrom('evil.example.com', `127.0.0.1:${Number(port) + 1}`, `127.0.0.1:${port}.evil.io`),
          headerText,
        );
        const origin = fc.option(
          fc.oneof(
            fc.constantFrom('http://localhost:5173', 'http://127.0.0.1', 'https://[::1]:8443'),
            fc.constantFrom(
              'http://evil.example.com',
              'null',
              'http://localhost.evil.io',
              'http://localhost:80',
            ),
            fc.constantFrom('file://', 'http://localhost/path', 'javascript:alert(1)'),
            headerText,
          ),
          { nil: undefined },
        );
        const sessionId = fc.option(
          fc.oneof(
            fc.constant('known'),
            fc.constantFrom('__proto__', 'constructor', '', 'toString'),
            headerText,
          ),
          { nil: undefined },
        );
        const method = fc.constantFrom('POST', 'POST', 'GET', 'DELETE', 'PUT');
        const body = fc.oneof(
          fc.integer({ min: 1, max: 1e6 }).map(initialize),
          fc.constant('{"jsonrpc":"2.0","id":2,"method":"tools/list"}'),
          fc.constant('{"jsonrpc":"2.0","method":"notifications/initialized"}'),
          fc.constant('{"__proto__":{"polluted":true},"jsonrpc":"2.0","id":3,"method":"tools/list"}'),
          fc.constant('{"a":1,"a":2}'),
          fc.constant(`${'['.repeat(500)}${']'.repeat(500)}`),
          fc.string({ maxLength: 60 }),
        );
        await fc.assert(
          fc.asyncProperty(
            host,
            origin,
            sessionId,
            method,
            body,
            async (hostHeader, originHeader, session, verb, text) => {
              const headers: Record<string, string> = {
                host: hostHeader,
                'content-type': 'application/json',
                accept: 'application/json, text/event-stream',
              };
              if (originHeader !== undefined) headers.origin = originHeader;
              const chosen = session === 'known' ? knownSessions.at(-1) : session;
              if (chosen !== undefined) headers['mcp-session-id'] = chosen;
              const answer = await send(served.url, verb, headers, verb === 'POST' ? text : undefined);
              // Node's client sends its own Host (the URL's) in place of an empty one.
              const sentHost = hostHeader === '' ? `127.0.0.1:${port}` : hostHeader;
              const hostRefused = !allowedHosts.has(sentHost.toLowerCase());
              // A loopback origin as browsers send it (no default port written out).
              const originRefused =
                originHeader !== undefined &&
                !(loopbackOrigin.test(originHeader) && new URL(originHeader).origin === originHeader);
              if (hostRefused || originRefused) expect(answer.status).toBe(403);
              else {
                expect(answer.status).not.toBe(403);
                expect(answer.status === 503 || answer.status < 500).toBe(true);
              }
              if (answer.status === 503) expect(answer.body).toContain('Too many sessions');
              if (answer.sessionId !== undefined) knownSessions.push(answer.sessionId);
              expect(served.sessionCount).toBeLessThanOrEqual(maxSessions);
            },
          ),
          { numRuns: NUM_RUNS },
        );
        const client = new Client({ name: 'after', version: '1' });
        await client.connect(new StreamableHTTPClientTransport(served.url));
        try {
          expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo']);
        } finally {
          await client.close();
        }
      } finally {
        await served.close();
      }
    },
    propertyTimeout(20),
  );
});
