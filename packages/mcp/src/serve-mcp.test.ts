import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { createToolPlanTool } from '@org/plan-executor';
import { defineTool, executeAction, ToolRegistry } from '@org/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { connectMcp, type McpHttpServing, serveMcp, serveMcpHttp } from './index.js';

const hookCalls: string[] = [];
const tools = new ToolRegistry([
  defineTool({
    name: 'orders.get',
    description: 'Gets an order by id.',
    input: z.object({ id: z.number().int() }),
    output: z.object({ id: z.number(), total: z.number() }),
    execute: ({ id }) => ({ id, total: id * 10 }),
  }),
  defineTool({
    name: 'slow_count',
    description: 'Counts to three, reporting progress.',
    input: z.object({}),
    execute: async function* () {
      for (let count = 1; count <= 3; count++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        yield `counted ${count}`;
      }
      return 'three';
    },
  }),
  defineTool({
    name: 'delete_everything',
    description: 'Deletes everything.',
    input: z.object({}),
    needsApproval: true,
    execute: () => 'deleted',
  }),
  defineTool({
    name: 'fail',
    description: 'Always fails.',
    input: z.object({}),
    execute: () => {
      throw new Error('it broke');
    },
  }),
]);
const served = new ToolRegistry([...tools.list(), createToolPlanTool({ tools })]);

describe('serveMcpHttp driven by the SDK Client', () => {
  let http: McpHttpServing;
  let client: Client;

  beforeAll(async () => {
    http = await serveMcpHttp(served, {
      hooks: {
        beforeToolUse: ({ action }) => {
          hookCalls.push(action.toolName);
          return undefined;
        },
      },
    });
    client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(http.url));
  });
  afterAll(async () => {
    await client?.close();
    await http?.close();
  });

  it('listens on 127.0.0.1 and lists the tools with provider names, schemas and output schemas', async () => {
    expect(http.url.hostname).toBe('127.0.0.1');
    expect(http.sessionCount).toBe(1);
    const { tools: listed } = await client.listTools();
    expect(listed.map((tool) => tool.name)).toEqual([
      'orders_get',
      'slow_count',
      'delete_everything',
      'fail',
      'execute_tool_plan',
    ]);
    const order = listed[0];
    expect(order?.inputSchema).toMatchObject({ type: 'object', properties: { id: { type: 'integer' } } });
    expect(order?.outputSchema).toMatchObject({ type: 'object', properties: { total: { type: 'number' } } });
  });

  it('runs a call through executeAction: coercion, hooks, structured content', async () => {
    const result = await client.callTool({ name: 'orders_get', arguments: { id: '4' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ id: 4, total: 40 });
    expect(result.content).toEqual([{ type: 'text', text: '{"id":4,"total":40}' }]);
    expect(hookCalls).toContain('orders.get');
  });

  it('returns tool failures, invalid arguments and refused approvals as isError results', async () => {
    const invalid = await client.callTool({ name: 'orders.get', arguments: { id: 'four' } });
    expect(invalid.isError).toBe(true);
    expect(JSON.stringify(invalid.content)).toContain('invalid_tool_arguments');
    const failed = await client.callTool({ name: 'fail', arguments: {} });
    expect(failed.isError).toBe(true);
    expect(JSON.stringify(failed.content)).toContain('it broke');
    const refused = await client.callTool({ name: 'delete_everything', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain('approval_required');
    await expect(client.callTool({ name: '__proto__', arguments: {} })).rejects.toThrow(/Unknown tool/);
  });

  it('sends progress notifications for a streaming tool', async () => {
    const progress: unknown[] = [];
    const result = await client.callTool({ name: 'slow_count', arguments: {} }, undefined, {
      onprogress: (update) => progress.push(update),
    });
    expect(result.content).toEqual([{ type: 'text', text: 'three' }]);
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress[0]).toEqual({ progress: 1, message: 'counted 1' });
  });

  it('runs execute_tool_plan, with $refs between steps', async () => {
    const result = await client.callTool({
      name: 'execute_tool_plan',
      arguments: {
        steps: [
          { id: 'a', tool: 'orders.get', arguments: { id: 2 } },
          { id: 'b', tool: 'orders.get', arguments: { id: '$ref:a.total' } },
        ],
      },
    });
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.content)).toContain('200');
    const bad = await client.callTool({
      name: 'execute_tool_plan',
      arguments: { steps: [{ id: 'a', tool: 'orders.get', arguments: { id: '$ref:nowhere' } }] },
    });
    expect(bad.isError).toBe(true);
  });

  it('is usable by connectMcp over Streamable HTTP (our client, our server)', async () => {
    const remote = await connectMcp({ url: http.url, prefix: 'shop' });
    try {
      expect(remote.tools.names()).toContain('shop.orders_get');
      const observation = await executeAction(remote.tools, {
        id: '1',
        toolName: 'shop.orders_get',
        args: { id: 3 },
      });
      expect(observation.rawOutput).toEqual({ id: 3, total: 30 });
    } finally {
      await remote.close();
    }
  });
});

describe("serveMcpHttp keeps a tool's declared JSON Schema dialect", () => {
  it('lists $schema (2020-12) with the input and output schemas, as MCP conformance json-schema-2020-12 checks', async () => {
    const dialect = 'https://json-schema.org/draft/2020-12/schema';
    const registry = new ToolRegistry([
      defineTool({
        name: 'json_schema_2020_12_tool',
        description: 'A tool declared in JSON Schema 2020-12.',
        input: {
          $schema: dialect,
          type: 'object',
          $defs: { address: { type: 'object', properties: { street: { type: 'string' } } } },
          properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
          additionalProperties: false,
        },
        output: { $schema: dialect, type: 'object', properties: { ok: { type: 'boolean' } } },
        execute: () => ({ ok: true }),
      }),
      defineTool({
        name: 'plain',
        description: 'No dialect declared.',
        input: z.object({}),
        execute: () => 'ok',
      }),
    ]);
    const http = await serveMcpHttp(registry);
    const client = new Client({ name: 'test', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(http.url));
      const { tools: listed } = await client.listTools();
      expect(listed[0]?.inputSchema).toEqual({
        $schema: dialect,
        type: 'object',
        $defs: { address: { type: 'object', properties: { street: { type: 'string' } } } },
        properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
        additionalProperties: false,
      });
      expect(listed[0]?.outputSchema).toMatchObject({ $schema: dialect, type: 'object' });
      expect(listed[1]?.inputSchema).not.toHaveProperty('$schema');
    } finally {
      await client.close();
      await http.close();
    }
  });
});

/** A client-side transport over a pair of streams, framed as MCP's stdio transport frames messages. */
function streamTransport(input: PassThrough, output: PassThrough): Transport {
  const buffer = new ReadBuffer();
  const transport: Transport = {
    start: async () => {
      input.on('data', (chunk: Buffer) => {
        buffer.append(chunk);
        for (let message = buffer.readMessage(); message !== null; message = buffer.readMessage()) {
          transport.onmessage?.(message);
        }
      });
    },
    send: async (message: JSONRPCMessage) => {
      output.write(serializeMessage(message));
    },
    close: async () => {
      input.removeAllListeners('data');
      transport.onclose?.();
    },
  };
  return transport;
}

describe('serveMcp over the stdio server transport', () => {
  it('serves tools and plans through newline-delimited JSON-RPC', async () => {
    const toServer = new PassThrough();
    const toClient = new PassThrough();
    const serving = await serveMcp(served, new StdioServerTransport(toServer, toClient));
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(streamTransport(toClient, toServer));
    try {
      const { tools: listed } = await client.listTools();
      expect(listed.map((tool) => tool.name)).toContain('execute_tool_plan');
      const result = await client.callTool({ name: 'orders_get', arguments: { id: 5 } });
      expect(result.structuredContent).toEqual({ id: 5, total: 50 });
    } finally {
      await client.close();
      await serving.close();
    }
  });
});
