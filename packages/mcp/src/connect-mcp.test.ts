import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { RunEvent } from '@org/core';
import { createToolPlanTool } from '@org/plan-executor';
import { createFunctionCallingPlanner, runAgent } from '@org/planner';
import { createScriptedModel, type ScriptFunction } from '@org/provider-scripted';
import { executeAction, InvalidToolSchemaError, SCHEMA_TARGETS, ToolRegistry } from '@org/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { connectReferenceServer } from './__fixtures__/reference-servers.js';
import {
  connectMcp,
  InvalidMcpOptionError,
  type McpConnection,
  McpConnectionError,
  McpInvalidToolError,
  mcpToolInfo,
} from './index.js';

async function linkedClient(server: McpServer | Server): Promise<Client> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientTransport);
  return client;
}

async function until(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('connectMcp with server-everything over stdio', () => {
  let everything: McpConnection;

  beforeAll(async () => {
    everything = await connectReferenceServer('everything');
  });
  afterAll(async () => {
    await everything?.close();
  });

  it('uses structuredContent as the output and declares the server output schema', async () => {
    const tool = everything.tools.get('get-structured-content');
    expect(tool?.output).toMatchObject({ type: 'object', properties: { temperature: { type: 'number' } } });
    const observation = await executeAction(everything.tools, {
      id: '1',
      toolName: 'get-structured-content',
      args: { location: 'Chicago' },
    });
    expect(observation.status).toBe('success');
    expect(observation.rawOutput).toEqual({
      temperature: 36,
      conditions: 'Light rain / drizzle',
      humidity: 82,
    });
  });

  it('uses the text content when there is no structured content', async () => {
    const observation = await executeAction(everything.tools, {
      id: '2',
      toolName: 'get-sum',
      args: { a: 2, b: 3 },
    });
    expect(observation.output).toBe('The sum of 2 and 3 is 5.');
  });

  it('exposes annotations; readOnlyHint makes a tool eager only when asked', async () => {
    const echo = everything.tools.get('echo');
    expect(echo).toBeDefined();
    const info = echo === undefined ? undefined : mcpToolInfo(echo);
    expect(info).toMatchObject({
      server: 'mcp-servers/everything',
      mcpName: 'echo',
      annotations: { readOnlyHint: true, destructiveHint: false },
      eager: false,
      needsApproval: false,
    });
    // A second adapter over the same client, opting in.
    const eager = await connectMcp({ client: everything.client, eagerReadOnly: true, prefix: 'again' });
    const again = eager.tools.get('again.echo');
    expect(again === undefined ? undefined : mcpToolInfo(again)?.eager).toBe(true);
    await eager.close();
    expect(everything.closed).toBe(false); // the client was not ours to close
  });

  it('reports MCP progress notifications as tool progress events', async () => {
    const events: RunEvent[] = [];
    const observation = await executeAction(
      everything.tools,
      { id: '3', toolName: 'trigger-long-running-operation', args: { duration: 0.2, steps: 2 } },
      { onEvent: (event) => events.push(event) },
    );
    expect(observation.status).toBe('success');
    const progress = events
      .filter((event) => event.type === 'tool-call-progress')
      .map((event) => event.progress);
    // SDK 1.32 drops a progress notification that arrives in the same read as the result (the response removes
    // the progress handler before the notification, dispatched a microtask later, reaches it): at least the first.
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress[0]).toEqual({ progress: 1, total: 2 });
  });

  it('turns an error the server reports into a typed error observation', async () => {
    // Sent without our validation, so the server's own check refuses it.
    const observation = await executeAction(everything.tools, {
      id: '4',
      toolName: 'get-structured-content',
      args: { location: 'Paris' },
    });
    expect(observation.status).toBe('error');
    expect(observation.error?.code).toBe('tool_execution_failed');
    expect(['mcp_tool_error', 'mcp_request_failed']).toContain(observation.error?.details?.thrownCode);
  });
});

describe('a stdio server that dies mid-run', () => {
  it('ends the pending call with a typed error; the run goes on', async () => {
    const everything = await connectReferenceServer('everything');
    try {
      const transport = everything.client.transport as StdioClientTransport;
      const pid = transport.pid;
      expect(pid).toBeTypeOf('number');
      const model = createScriptedModel({
        script: [
          {
            toolCalls: [
              { toolName: 'trigger-long-running-operation', arguments: { duration: 10, steps: 20 } },
            ],
          },
          { toolCalls: [{ toolName: 'echo', arguments: { message: 'still there?' } }] },
          { text: 'The server is gone; I carried on.' },
        ],
      });
      let killed = false;
      const result = await runAgent({
        model,
        tools: everything.tools,
        planner: createFunctionCallingPlanner(),
        task: 'Run the long operation.',
        maxSteps: 5,
        onEvent: (event) => {
          if (event.type === 'tool-call-progress' && !killed && typeof pid === 'number') {
            killed = true;
            process.kill(pid, 'SIGKILL');
          }
        },
      });
      expect(killed).toBe(true);
      expect(result.text).toBe('The server is gone; I carried on.');
      expect(result.observations.map((observation) => observation.error?.details?.thrownCode)).toEqual([
        'mcp_connection_closed',
        'mcp_connection_closed',
      ]);
      expect(everything.closed).toBe(true);
    } finally {
      await everything.close();
    }
  });
});

describe('connectMcp with an in-process SDK server (a ready Client)', () => {
  it('sends an abort to the server as a cancellation', async () => {
    const server = new McpServer({ name: 'fixture', version: '1.0.0' });
    const cancelled: string[] = [];
    server.registerTool(
      'wait',
      { description: 'Waits until cancelled.', inputSchema: { label: z.string() } },
      (args, extra) =>
        new Promise((resolve) => {
          extra.signal.addEventListener('abort', () => {
            cancelled.push(args.label);
            resolve({ content: [{ type: 'text', text: 'cancelled' }] });
          });
        }),
    );
    const client = await linkedClient(server);
    const connection = await connectMcp({ client, timeoutMs: 100 });
    try {
      const controller = new AbortController();
      const pending = executeAction(
        connection.tools,
        { id: 'a', toolName: 'wait', args: { label: 'aborted' } },
        {
          signal: controller.signal,
        },
      );
      setTimeout(() => controller.abort(), 20);
      expect((await pending).status).toBe('aborted');
      await until(() => cancelled.includes('aborted'));
      // The tool's deadline is an abort too.
      const timedOut = await executeAction(connection.tools, {
        id: 'b',
        toolName: 'wait',
        args: { label: 'timeout' },
      });
      expect(timedOut.status).toBe('timeout');
      await until(() => cancelled.includes('timeout'));
    } finally {
      await connection.close();
      await client.close();
      await server.close();
    }
  });

  it('picks up notifications/tools/list_changed between steps of a run', async () => {
    const server = new McpServer({ name: 'fixture', version: '1.0.0' });
    let greet: RegisteredTool | undefined;
    server.registerTool('add_greet', { description: 'Adds the greet tool.' }, () => {
      greet = server.registerTool(
        'greet',
        { description: 'Greets someone.', inputSchema: { name: z.string() } },
        ({ name }) => ({ content: [{ type: 'text', text: `Hello, ${name}!` }] }),
      );
      return { content: [{ type: 'text', text: 'added' }] };
    });
    server.registerTool('remove_greet', { description: 'Removes the greet tool.' }, () => {
      greet?.remove();
      return { content: [{ type: 'text', text: 'removed' }] };
    });
    const client = await linkedClient(server);
    const changes: unknown[] = [];
    const connection = await connectMcp({ client, onToolsChanged: (change) => changes.push(change) });
    try {
      const offered: string[][] = [];
      const script: ScriptFunction = (request) => {
        const names = (request.tools ?? []).map((tool) => tool.name);
        offered.push(names);
        const step = offered.length;
        if (step === 1) return { toolCalls: [{ toolName: 'add_greet', arguments: {} }] };
        if (step === 2) return { toolCalls: [{ toolName: 'greet', arguments: { name: 'Ada' } }] };
        if (step === 3) return { toolCalls: [{ toolName: 'remove_greet', arguments: {} }] };
        return { text: 'done' };
      };
      const result = await runAgent({
        model: createScriptedModel({ script: [script, script, script, script] }),
        tools: connection.tools,
        planner: createFunctionCallingPlanner(),
        task: 'Greet Ada.',
        maxSteps: 6,
      });
      expect(result.text).toBe('done');
      expect(offered[0]).toEqual(['add_greet', 'remove_greet']);
      expect(offered[1]).toEqual(['add_greet', 'remove_greet', 'greet']);
      expect(offered[3]).toEqual(['add_greet', 'remove_greet']);
      expect(result.observations[1]?.output).toBe('Hello, Ada!');
      expect(changes).toMatchObject([{ added: ['greet'] }, { removed: ['greet'] }]);
    } finally {
      await connection.close();
      await client.close();
      await server.close();
    }
  });

  it('rejects tools it cannot use with typed errors (or fails with strict), never silently', async () => {
    const server = new Server({ name: 'odd', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [
        { name: 'get weather', inputSchema: { type: 'object' } },
        {
          name: 'ok',
          description: '',
          inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
        },
        { name: 'bad_schema', inputSchema: { type: 'object', properties: { q: { type: 'wat' } } } },
      ],
    }));
    server.setRequestHandler(CallToolRequestSchema, () => ({ content: [{ type: 'text', text: 'fine' }] }));
    const client = await linkedClient(server);
    try {
      const connection = await connectMcp({ client, name: 'odd' });
      expect(connection.tools.names()).toEqual(['ok']);
      expect(connection.tools.get('ok')?.description).toContain("MCP server 'odd'");
      expect(connection.rejectedTools.map((error) => [error.code, error.mcpToolName])).toEqual([
        ['mcp_invalid_tool', 'get weather'],
        ['mcp_invalid_tool', 'bad_schema'],
      ]);
      expect(McpInvalidToolError.isInstance(connection.rejectedTools[0])).toBe(true);
      await connection.close();
      await expect(connectMcp({ client, strict: true })).rejects.toSatisfy((error: unknown) =>
        McpInvalidToolError.isInstance(error),
      );
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('adopts a tool whose property names only some providers refuse (año_vehiculo); refuses one none can carry', async () => {
    const server = new Server({ name: 'seguros', version: '1.0.0' }, { capabilities: { tools: {} } });
    const received: unknown[] = [];
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [
        {
          name: 'cotizar_seguro',
          description: 'Cotiza un seguro de auto.',
          inputSchema: {
            type: 'object',
            properties: { año_vehiculo: { type: 'integer' } },
            required: ['año_vehiculo'],
          },
        },
        {
          name: 'roto',
          description: 'A property name with a lone surrogate.',
          inputSchema: { type: 'object', properties: { 'a\uD800': { type: 'string' } } },
        },
      ],
    }));
    server.setRequestHandler(CallToolRequestSchema, (request) => {
      received.push(request.params.arguments);
      return { content: [{ type: 'text', text: 'cotizado' }] };
    });
    const client = await linkedClient(server);
    try {
      const connection = await connectMcp({ client, name: 'seguros' });
      expect(connection.tools.names()).toEqual(['cotizar_seguro']);
      expect(connection.rejectedTools.map((error) => error.mcpToolName)).toEqual(['roto']);
      expect(connection.rejectedTools[0]?.message).toContain("'properties/a\uD800'");
      // Every target the registry describes tools for, plan mode's included, carries the name as written; the
      // Anthropic and Bedrock adapters rename it on their wire.
      const plans = new ToolRegistry([createToolPlanTool({ tools: connection.tools })]);
      for (const target of SCHEMA_TARGETS) {
        expect(connection.tools.specs({ target })[0]?.inputSchema.properties).toHaveProperty('año_vehiculo');
        // Gemini's OpenAPI subset cannot express the plan tool's free-form steps: refused, typed, naming the node.
        if (target === 'gemini-openapi') {
          expect(() => plans.specs({ target })).toThrow(/execute_tool_plan.*properties\/steps/);
          expect(() => plans.specs({ target })).toThrow(InvalidToolSchemaError);
        } else expect(() => plans.specs({ target })).not.toThrow();
      }
      const observation = await executeAction(connection.tools, {
        id: '1',
        toolName: 'cotizar_seguro',
        args: { año_vehiculo: 2021 },
      });
      expect(observation.status).toBe('success');
      expect(received).toEqual([{ año_vehiculo: 2021 }]);
      await connection.close();
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('refuses bad options and unreachable servers with typed errors', async () => {
    await expect(connectMcp({} as never)).rejects.toSatisfy((error: unknown) =>
      InvalidMcpOptionError.isInstance(error),
    );
    await expect(connectMcp({ url: 'ftp://x', prefix: 'a' })).rejects.toSatisfy((error: unknown) =>
      InvalidMcpOptionError.isInstance(error),
    );
    await expect(connectMcp({ command: 'x', prefix: 'bad prefix' })).rejects.toSatisfy((error: unknown) =>
      InvalidMcpOptionError.isInstance(error),
    );
    await expect(
      connectMcp({ command: process.execPath, args: ['-e', 'process.exit(3)'], stderr: 'ignore' }),
    ).rejects.toSatisfy((error: unknown) => McpConnectionError.isInstance(error));
  });
});
