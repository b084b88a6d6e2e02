import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { defineTool, ToolRegistry } from '@org/tools';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { InvalidMcpOptionError, type McpHttpServing, serveMcpHttp } from './index.js';

/** Releases of the `wait` calls in flight, in the order they started. */
const releases: (() => void)[] = [];
async function callsInFlight(count: number): Promise<void> {
  await vi.waitFor(() => {
    if (releases.length < count) throw new Error(`${releases.length} of ${count} calls started`);
  });
}
const registry = new ToolRegistry([
  defineTool({
    name: 'echo',
    description: 'Echoes a text.',
    input: z.object({ text: z.string() }),
    execute: ({ text }) => text,
  }),
  defineTool({
    name: 'wait',
    description: 'Waits until the test releases it.',
    input: z.object({}),
    execute: () =>
      new Promise<string>((resolve) => {
        releases.push(() => resolve('released'));
      }),
  }),
]);

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
});

/** A raw POST of an `initialize`, with headers fetch would not let a test set (`Host`). */
function rawInitialize(url: URL, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on('error', reject);
    request.end(INITIALIZE);
  });
}

async function connectClient(url: URL): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

let http: McpHttpServing | undefined;
const clients: Client[] = [];
afterEach(async () => {
  for (const release of releases.splice(0)) release();
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
  await http?.close();
  http = undefined;
});

describe('serveMcpHttp sessions (clients that never send DELETE)', () => {
  it('serves 70 SDK clients in turn that close without DELETE, at the default cap of 64', async () => {
    http = await serveMcpHttp(registry);
    for (let index = 0; index < 70; index++) {
      const client = await connectClient(http.url);
      const result = await client.callTool({ name: 'echo', arguments: { text: `client ${index}` } });
      expect(result.content).toEqual([{ type: 'text', text: `client ${index}` }]);
      await client.close();
      expect(http.sessionCount).toBeLessThanOrEqual(64);
    }
    expect(http.sessionCount).toBe(64);
  });

  it('at the cap, replaces the session idle the longest; refuses (503) only when every session is busy', async () => {
    http = await serveMcpHttp(registry, { maxSessions: 2 });
    const first = await connectClient(http.url);
    const second = await connectClient(http.url);
    clients.push(first, second);
    await first.listTools();
    // `second` is now the one idle the longest: a third client takes its place.
    const third = await connectClient(http.url);
    clients.push(third);
    expect(http.sessionCount).toBe(2);
    await expect(second.listTools()).rejects.toThrow(/Session not found|404/);
    await expect(first.listTools()).resolves.toHaveProperty('tools');

    // Both sessions busy answering a call: nothing to replace, so a newcomer is refused.
    const firstCall = first.callTool({ name: 'wait', arguments: {} });
    const thirdCall = third.callTool({ name: 'wait', arguments: {} });
    await callsInFlight(2);
    expect((await rawInitialize(http.url, {})).status).toBe(503);
    for (const release of releases.splice(0)) release();
    await expect(firstCall).resolves.toMatchObject({ content: [{ type: 'text', text: 'released' }] });
    await expect(thirdCall).resolves.toMatchObject({ content: [{ type: 'text', text: 'released' }] });
  });

  it('closes a session idle for sessionIdleTimeoutMs', async () => {
    http = await serveMcpHttp(registry, { sessionIdleTimeoutMs: 50 });
    const client = await connectClient(http.url);
    clients.push(client);
    await client.listTools();
    const served = http;
    await vi.waitFor(() => expect(served.sessionCount).toBe(0), { timeout: 2_000 });
    await expect(client.listTools()).rejects.toThrow(/Session not found|404/);
  });

  it('checks Host before saying it is full', async () => {
    http = await serveMcpHttp(registry, { maxSessions: 1 });
    const client = await connectClient(http.url);
    clients.push(client);
    const call = client.callTool({ name: 'wait', arguments: {} });
    await callsInFlight(1);
    expect((await rawInitialize(http.url, { host: 'evil.example.com' })).status).toBe(403);
    expect((await rawInitialize(http.url, {})).status).toBe(503);
    for (const release of releases.splice(0)) release();
    await expect(call).resolves.toMatchObject({ content: [{ type: 'text', text: 'released' }] });
  });

  it('refuses an idle timeout it cannot honour', async () => {
    for (const sessionIdleTimeoutMs of [0, -1, Number.NaN, 2 ** 40]) {
      await expect(serveMcpHttp(registry, { sessionIdleTimeoutMs })).rejects.toSatisfy((error) =>
        InvalidMcpOptionError.isInstance(error),
      );
    }
  });
});

describe('serveMcpHttp Origin validation (MCP 2025-11-25 transport security)', () => {
  it('answers 403 to a present, invalid Origin and opens no session', async () => {
    http = await serveMcpHttp(registry);
    for (const origin of [
      'http://evil.example.com',
      'null',
      'http://localhost.evil.example.com',
      'file://',
    ]) {
      const answer = await rawInitialize(http.url, { origin });
      expect(answer.status).toBe(403);
      expect(answer.body).toContain('Invalid Origin header');
    }
    expect(http.sessionCount).toBe(0);
  });

  it('accepts loopback origins and requests without Origin by default', async () => {
    http = await serveMcpHttp(registry);
    for (const headers of [{}, { origin: 'http://localhost:5173' }, { origin: 'http://127.0.0.1:8080' }]) {
      expect((await rawInitialize(http.url, headers)).status).toBe(200);
    }
  });

  it('accepts the listed origins instead when allowedOrigins is given', async () => {
    http = await serveMcpHttp(registry, { allowedOrigins: ['https://app.example.com'] });
    expect((await rawInitialize(http.url, { origin: 'https://app.example.com' })).status).toBe(200);
    expect((await rawInitialize(http.url, { origin: 'http://localhost:5173' })).status).toBe(403);
    expect((await rawInitialize(http.url, { origin: 'https://app.example.com.evil.io' })).status).toBe(403);
    await expect(
      serveMcpHttp(registry, { allowedOrigins: ['https://app.example.com/path'] }),
    ).rejects.toThrow(/allowedOrigins/);
  });

  it('is what the SDK client goes through (no Origin from Node)', async () => {
    http = await serveMcpHttp(registry, { allowedOrigins: ['https://app.example.com'] });
    const client = await connectClient(http.url);
    clients.push(client);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo', 'wait']);
  });
});
