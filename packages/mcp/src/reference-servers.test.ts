import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToolPlanTool } from '@org/plan-executor';
import { createFunctionCallingPlanner, runAgent } from '@org/planner';
import { createScriptedModel, createTaskScripts } from '@org/provider-scripted';
import { executeAction, ToolRegistry } from '@org/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectReferenceServer } from './__fixtures__/reference-servers.js';
import type { McpConnection } from './index.js';

// A plan that reads a file with server-filesystem and writes a memory entity from it with server-memory, both
// servers written by others and spoken to over stdio, run by the agent loop with the scripted model.
describe('reference servers over stdio (filesystem + memory)', () => {
  let directory: string;
  let files: McpConnection;
  let memory: McpConnection;
  const NOTE = 'Standup moved to 9:30 on Thursdays.';

  beforeAll(async () => {
    directory = realpathSync(mkdtempSync(join(tmpdir(), 'org-mcp-')));
    writeFileSync(join(directory, 'note.txt'), NOTE);
    const tools = new ToolRegistry();
    files = await connectReferenceServer('filesystem', { args: [directory], prefix: 'fs', registry: tools });
    memory = await connectReferenceServer('memory', {
      prefix: 'memory',
      registry: tools,
      env: { MEMORY_FILE_PATH: join(directory, 'memory.jsonl') },
    });
  });

  afterAll(async () => {
    await files?.close();
    await memory?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const calls = () => [
    { id: 'read', toolName: 'fs.read_text_file', arguments: { path: join(directory, 'note.txt') } },
    {
      id: 'remember',
      toolName: 'memory.create_entities',
      arguments: { entities: [{ name: 'standup', entityType: 'note', observations: ['$ref:read.content'] }] },
    },
  ];

  async function graph(): Promise<unknown> {
    const observation = await executeAction(files.tools, {
      id: 'g',
      toolName: 'memory.read_graph',
      args: {},
    });
    expect(observation.status).toBe('success');
    return observation.rawOutput;
  }

  it('adapts both servers into one registry, prefixed, with output schemas and annotations', () => {
    const names = files.tools.names();
    expect(names).toContain('fs.read_text_file');
    expect(names).toContain('memory.create_entities');
    expect(files.rejectedTools).toEqual([]);
    expect(memory.rejectedTools).toEqual([]);
    const specs = files.tools.specs({ target: 'openai-strict' });
    expect(specs.map((spec) => spec.name)).toContain('fs_read_text_file');
    expect(files.tools.get('fs.read_text_file')?.output).toMatchObject({ type: 'object' });
    // write_file says destructiveHint: true, so the default policy asks for approval; read_text_file does not.
    expect(files.tools.get('fs.write_file')?.needsApproval).toBe(true);
    expect(files.tools.get('fs.read_text_file')?.needsApproval).toBe(false);
    expect(files.tools.get('memory.create_entities')?.needsApproval).toBe(false);
  });

  it('runs the task in native mode: one call per level, the entity holds the file text', async () => {
    const scripts = createTaskScripts({
      calls: calls(),
      answer: ({ outputs, errors }) =>
        Object.keys(errors).length > 0
          ? `Failed: ${JSON.stringify(errors)}`
          : `Saved: ${JSON.stringify(outputs.remember)}`,
    });
    const result = await runAgent({
      model: createScriptedModel({ script: scripts.native }),
      tools: files.tools,
      planner: createFunctionCallingPlanner(),
      task: 'Remember what note.txt says.',
      maxSteps: 5,
    });
    expect(result.text).toContain('Saved:');
    expect(result.text).toContain(NOTE);
    expect(result.observations.map((observation) => observation.status)).toEqual(['success', 'success']);
    expect(JSON.stringify(await graph())).toContain(NOTE);
  });

  it('runs the task in plan mode: one plan, $ref into the MCP structured result', async () => {
    const planCalls = calls().map((call) =>
      call.id === 'remember'
        ? {
            ...call,
            arguments: {
              entities: [{ name: 'standup-plan', entityType: 'note', observations: ['$ref:read.content'] }],
            },
          }
        : call,
    );
    const scripts = createTaskScripts({
      calls: planCalls,
      answer: ({ outputs, errors }) =>
        Object.keys(errors).length > 0
          ? `Failed: ${JSON.stringify(errors)}`
          : `Saved: ${JSON.stringify(outputs.remember)}`,
    });
    const tools = files.tools;
    const agentTools = new ToolRegistry([...tools.list(), createToolPlanTool({ tools })]);
    const model = createScriptedModel({ script: scripts.plan });
    const result = await runAgent({
      model,
      tools: agentTools,
      planner: createFunctionCallingPlanner(),
      task: 'Remember what note.txt says.',
      maxSteps: 5,
    });
    expect(model.calls).toHaveLength(2);
    expect(result.observations).toHaveLength(1);
    expect(result.observations[0]?.toolName).toBe('execute_tool_plan');
    expect(result.text).toContain(NOTE);
    expect(JSON.stringify(await graph())).toContain('standup-plan');
  });

  it('checks a plan $ref into an MCP output schema at plan time', async () => {
    const tools = files.tools;
    const planTools = new ToolRegistry([createToolPlanTool({ tools })]);
    const observation = await executeAction(planTools, {
      id: 'p',
      toolName: 'execute_tool_plan',
      args: {
        steps: [
          { id: 'read', tool: 'fs.read_text_file', arguments: { path: join(directory, 'note.txt') } },
          {
            id: 'remember',
            tool: 'memory.create_entities',
            arguments: { entities: [{ name: 'x', entityType: 'note', observations: ['$ref:read.text'] }] },
          },
        ],
      },
    });
    expect(observation.status).toBe('error');
    expect(observation.error?.message).toContain('text');
    // Nothing ran: the plan was refused before its first step.
    expect(JSON.stringify(await graph())).not.toContain('"x"');
  });

  it('turns a server-side failure into a typed error observation, and the connection stays usable', async () => {
    const missing = await executeAction(files.tools, {
      id: 'm',
      toolName: 'fs.read_text_file',
      args: { path: join(directory, 'missing.txt') },
    });
    expect(missing.status).toBe('error');
    expect(missing.error?.details).toMatchObject({ thrownCode: 'mcp_tool_error' });
    const outside = await executeAction(files.tools, {
      id: 'o',
      toolName: 'fs.read_text_file',
      args: { path: '/etc/passwd' },
    });
    expect(outside.status).toBe('error');
    const again = await executeAction(files.tools, {
      id: 'r',
      toolName: 'fs.read_text_file',
      args: { path: join(directory, 'note.txt') },
    });
    expect(again.rawOutput).toEqual({ content: NOTE });
  });
});
