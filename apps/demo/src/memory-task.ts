import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { JsonSchema } from '@org/core';
import { connectMcp } from '@org/mcp';
import type { TaskOutputs } from '@org/provider-scripted';
import { defineTool, type Tool, ToolRegistry } from '@org/tools';
import type { ConnectedTools, DemoTask, ToolClock } from './demo-task.js';

interface Entity {
  name: string;
  entityType: string;
  observations: string[];
}

interface Relation {
  from: string;
  to: string;
  relationType: string;
}

interface Graph {
  entities: Entity[];
  relations: Relation[];
}

/**
 * What the team's knowledge graph holds before each run of the MCP task (server-memory's `memory.jsonl`): services,
 * people, who owns what and who is on call.
 *
 * @example
 * TEAM_MEMORY.relations.find((relation) => relation.relationType === 'is on call for'); // Grace Hopper
 */
export const TEAM_MEMORY: Readonly<Graph> = {
  entities: [
    {
      name: 'checkout-service',
      entityType: 'service',
      observations: ['Takes payments for the web shop', 'Runs on the payments cluster'],
    },
    {
      name: 'search-service',
      entityType: 'service',
      observations: ['Product search for the web shop'],
    },
    {
      name: 'Ada Lovelace',
      entityType: 'person',
      observations: ['Leads the payments team', 'Contact: Slack @ada'],
    },
    {
      name: 'Grace Hopper',
      entityType: 'person',
      observations: ['Site reliability engineer', 'Contact: pager 555-0142'],
    },
    {
      name: 'Linus Torvalds',
      entityType: 'person',
      observations: ['Leads the search team', 'Contact: email linus@example.com'],
    },
  ],
  relations: [
    { from: 'Ada Lovelace', to: 'checkout-service', relationType: 'owns' },
    { from: 'Grace Hopper', to: 'checkout-service', relationType: 'is on call for' },
    { from: 'Linus Torvalds', to: 'search-service', relationType: 'owns' },
    { from: 'Linus Torvalds', to: 'search-service', relationType: 'is on call for' },
  ],
};

/**
 * The entry script of `@modelcontextprotocol/server-memory` as installed with the demo (its `bin`), run with this
 * Node: no `npx`, no network.
 *
 * @example
 * spawn(process.execPath, [memoryServerScript()]);
 */
export function memoryServerScript(): string {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve('@modelcontextprotocol/server-memory/package.json');
  const manifest = require(manifestPath) as { bin?: string | Record<string, string> };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin ?? {})[0];
  return join(dirname(manifestPath), bin ?? 'dist/index.js');
}

/**
 * The same tool, measured: its calls do real I/O (a request to another process), which a virtual clock does not
 * see, so each call's measured real duration is spent on `clock` from the call's start. Parallel calls overlap on
 * the clock as they did in real time. On real timers the clock has already moved and nothing is added.
 */
function measuredTool(tool: Tool, clock: ToolClock, record: (realMs: number) => void): Tool {
  return defineTool({
    name: tool.name,
    description: tool.description,
    input: tool.inputSchema as JsonSchema,
    ...(tool.output === undefined ? {} : { output: tool.output }),
    needsApproval: tool.needsApproval,
    execute: async (args: Record<string, unknown>, context) => {
      const startedAt = clock.now();
      const realStartedAt = performance.now();
      try {
        return await tool.execute(args, context);
      } finally {
        const realMs = performance.now() - realStartedAt;
        record(realMs);
        const rest = startedAt + realMs - clock.now();
        if (rest > 0) await clock.sleep(rest);
      }
    },
  }) as Tool;
}

/**
 * Starts `@modelcontextprotocol/server-memory` over stdio on a fresh copy of {@link TEAM_MEMORY} in a temporary
 * directory, and connects its tools with `connectMcp` (prefix `memory`). `close()` stops the server and removes the
 * directory.
 *
 * @example
 * const memory = await connectMemoryTools(createVirtualClock());
 * try {
 *   console.log(memory.tools.names()); // ['memory.create_entities', ...]
 * } finally {
 *   await memory.close();
 * }
 */
export async function connectMemoryTools(clock: ToolClock): Promise<ConnectedTools> {
  const directory = mkdtempSync(join(tmpdir(), 'org-demo-memory-'));
  const removeDirectory = (): void => rmSync(directory, { recursive: true, force: true });
  try {
    const memoryFile = join(directory, 'memory.jsonl');
    writeFileSync(
      memoryFile,
      [
        ...TEAM_MEMORY.entities.map((entity) => JSON.stringify({ type: 'entity', ...entity })),
        ...TEAM_MEMORY.relations.map((relation) => JSON.stringify({ type: 'relation', ...relation })),
      ].join('\n'),
    );
    const connection = await connectMcp({
      command: process.execPath,
      args: [memoryServerScript()],
      env: { MEMORY_FILE_PATH: memoryFile },
      // The server announces itself on stderr; the demo prints its own lines.
      stderr: 'ignore',
      prefix: 'memory',
    });
    const callTimesMs: number[] = [];
    let tools: ToolRegistry;
    try {
      // server-memory never changes its tool list, so a copy of the tools taken now stays right for the run.
      tools = new ToolRegistry(
        connection.tools
          .list()
          .map((tool) => measuredTool(tool, clock, (realMs) => callTimesMs.push(realMs))),
      );
    } catch (error) {
      await connection.close();
      throw error;
    }
    let closing: Promise<void> | undefined;
    return {
      tools,
      source: 'MCP server-memory over stdio',
      realCallTimesMs: () => [...callTimesMs],
      close: () => {
        closing ??= connection.close().finally(removeDirectory);
        return closing;
      },
    };
  } catch (error) {
    removeDirectory();
    throw error;
  }
}

function readGraph(value: unknown): Graph | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { entities, relations } = value as Partial<Graph>;
  return {
    entities: Array.isArray(entities) ? entities : [],
    relations: Array.isArray(relations) ? relations : [],
  };
}

function memoryAnswer({ outputs, errors, skipped }: TaskOutputs): string {
  const service = readGraph(outputs.service)?.entities[0];
  if (service === undefined) {
    const failed = Object.keys(errors);
    return `I could not find the service in memory${failed.length === 0 ? '' : `: ${failed.join(', ')} failed`}.`;
  }
  const relations = readGraph(outputs.service)?.relations ?? [];
  const people = readGraph(outputs.people)?.entities ?? [];
  const describe = (relationType: string): string => {
    const name = relations.find(
      (relation) => relation.to === service.name && relation.relationType === relationType,
    )?.from;
    if (name === undefined) return 'nobody';
    const contact = people
      .find((person) => person.name === name)
      ?.observations.find((observation) => observation.startsWith('Contact: '));
    return contact === undefined ? name : `${name} (${contact.slice('Contact: '.length)})`;
  };
  const link = readGraph(outputs.link)?.relations[0];
  const logged =
    link === undefined
      ? ` The incident was not logged: ${errors.link ?? errors.incident ?? skipped?.link ?? 'no result'}.`
      : ` Logged ${link.from} in memory (${link.from} ${link.relationType} ${link.to}).`;
  return `${describe('owns')} owns ${service.name}; ${describe('is on call for')} is on call.${logged}`;
}

/**
 * The MCP task: an incident lookup in a team's knowledge graph held by a real MCP server (server-memory, spoken to
 * over stdio): find the service, open its owner's and on-call person's nodes, and record the incident.
 *
 * @example
 * const run = await runTaskInMode(memoryTask, 'plan', { model, clock }); // starts and stops the server
 */
export const memoryTask: DemoTask = {
  id: 'memory',
  title: 'Incident lookup in an MCP knowledge graph',
  summary:
    'a real MCP server (server-memory over stdio): a search and a new entity, then the people found and a relation (n = 4 calls, depth 2)',
  systemPrompt:
    'You are an on-call assistant; the team knowledge graph is your memory. Use the tools for every fact, never invent names. Answer in one or two sentences.',
  prompt:
    'Checkout is failing. Who owns the checkout service and who is on call, and how do I reach them? Log incident INC-2041 against the service in memory.',
  connectTools: connectMemoryTools,
  calls: [
    { id: 'service', toolName: 'memory.search_nodes', arguments: { query: 'checkout' } },
    {
      id: 'incident',
      toolName: 'memory.create_entities',
      arguments: {
        entities: [
          { name: 'INC-2041', entityType: 'incident', observations: ['Payments time out at the last step'] },
        ],
      },
    },
    {
      id: 'people',
      toolName: 'memory.open_nodes',
      arguments: { names: ['$ref:service.relations.0.from', '$ref:service.relations.1.from'] },
    },
    {
      id: 'link',
      toolName: 'memory.create_relations',
      arguments: {
        relations: [
          {
            from: '$ref:incident.entities.0.name',
            to: '$ref:service.entities.0.name',
            relationType: 'affects',
          },
        ],
      },
    },
  ],
  // The answer tells the owner from the on-call person by the relations the search found.
  outputSteps: ['service', 'people', 'link'],
  answer: memoryAnswer,
};
