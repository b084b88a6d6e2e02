import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  closeCodeSandboxes,
  createCodeModeTool,
  declareTools,
  prewarmCodeSandbox,
  runCode,
} from '@org/code-mode';
import { defineTool, ToolRegistry } from '@org/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { connectReferenceServer } from './__fixtures__/reference-servers.js';
import { type McpConnection, type McpHttpServing, serveMcpHttp } from './index.js';

// Code mode's sandbox workers: one warm before the first program, the idle ones ended when the file is done.
beforeAll(() => prewarmCodeSandbox());
afterAll(() => closeCodeSandboxes());

describe('serveMcpHttp serving the code tool, driven by the SDK Client', () => {
  const calls: number[] = [];
  const tools = new ToolRegistry([
    defineTool({
      name: 'orders.get',
      description: 'Gets an order by id.',
      input: z.object({ id: z.number().int() }),
      output: z.object({ id: z.number(), total: z.number(), paid: z.boolean() }),
      execute: ({ id }) => {
        calls.push(id);
        return { id, total: id * 10, paid: id % 2 === 0 };
      },
    }),
  ]);
  let http: McpHttpServing;
  let client: Client;

  beforeAll(async () => {
    http = await serveMcpHttp(new ToolRegistry([...tools.list(), createCodeModeTool({ tools })]));
    client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(http.url));
  });
  afterAll(async () => {
    await client?.close();
    await http?.close();
  });

  it('lists run_code with the tools declared as typed functions, and runs a program calling them', async () => {
    const { tools: listed } = await client.listTools();
    const code = listed.find((tool) => tool.name === 'run_code');
    expect(code?.description).toContain('declare function orders_get(');
    const result = await client.callTool({
      name: 'run_code',
      arguments: {
        code: [
          'const orders = await Promise.all([1, 2, 3].map((id) => orders_get({ id })));',
          'return orders.filter((order) => !order.paid).reduce((sum, order) => sum + order.total, 0);',
        ].join('\n'),
      },
    });
    expect(result.isError).toBeFalsy();
    const text = (result.content as { type: string; text: string }[])[0]?.text ?? '';
    expect(JSON.parse(text)).toMatchObject({ status: 'success', value: 40 });
    expect([...calls].sort()).toEqual([1, 2, 3]);
  });

  it('answers a program that does not parse with the typed error, and makes no call', async () => {
    calls.length = 0;
    const result = await client.callTool({
      name: 'run_code',
      arguments: { code: 'const a = 1;\nreturn orders_get({ id: ' },
    });
    const text = (result.content as { type: string; text: string }[])[0]?.text ?? '';
    expect(JSON.parse(text)).toMatchObject({ status: 'error', error: { code: 'code_syntax_error' } });
    expect(calls).toEqual([]);
  });
});

describe('MCP tools called from code (server-memory over stdio)', () => {
  let directory: string;
  let memory: McpConnection;

  beforeAll(async () => {
    directory = realpathSync(mkdtempSync(join(tmpdir(), 'org-mcp-code-')));
    memory = await connectReferenceServer('memory', {
      prefix: 'memory',
      env: { MEMORY_FILE_PATH: join(directory, 'memory.jsonl') },
    });
  });
  afterAll(async () => {
    await memory?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('runs a program that calls two MCP tools and returns a value computed from their results', async () => {
    const names = declareTools(memory.tools).functions.map((fn) => fn.identifier);
    expect(names).toContain('memory_create_entities');
    expect(names).toContain('memory_read_graph');
    const program = [
      'await memory_create_entities({ entities: [',
      "  { name: 'Paris', entityType: 'city', observations: ['capital', 'on the Seine'] },",
      "  { name: 'Rome', entityType: 'city', observations: ['capital'] },",
      "  { name: 'Standup', entityType: 'meeting', observations: ['9:30'] },",
      '] });',
      'const graph = await memory_read_graph({});',
      "const cities = graph.entities.filter((entity) => entity.entityType === 'city');",
      'return { cities: cities.map((city) => city.name).sort(), facts: cities.reduce((n, c) => n + c.observations.length, 0) };',
    ].join('\n');
    const result = await runCode(program, { tools: memory.tools });
    expect(result.error).toBeUndefined();
    expect(result.status).toBe('success');
    expect(result.value).toEqual({ cities: ['Paris', 'Rome'], facts: 3 });
    expect(result.calls.map((call) => [call.toolName, call.observation.status])).toEqual([
      ['memory.create_entities', 'success'],
      ['memory.read_graph', 'success'],
    ]);
  });
});
