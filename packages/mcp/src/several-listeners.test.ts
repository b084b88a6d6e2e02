import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { RunEvent, RunEventListener } from '@org/core';
import { defineTool, ToolRegistry } from '@org/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMcpServer, InvalidMcpOptionError } from './index.js';

const registry = new ToolRegistry([
  defineTool({
    name: 'echo',
    description: 'Echoes its text.',
    input: z.object({ text: z.string() }),
    execute: ({ text }) => text,
  }),
]);

describe('createMcpServer onEvent: one listener or several', () => {
  it("gives each listener every call's events in order; a throwing one costs the others nothing", async () => {
    const first: RunEvent[] = [];
    const second: RunEvent[] = [];
    const server = createMcpServer(registry, {
      onEvent: [
        (event) => first.push(event),
        () => {
          throw new Error('a broken printer');
        },
        (event) => second.push(event),
      ],
    });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'test', version: '1.0.0' });
    try {
      await server.connect(serverTransport);
      await client.connect(clientTransport);
      const answer = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
      expect(answer.isError).not.toBe(true);
      expect(first.map((event) => event.type)).toEqual(['tool-call-started', 'tool-call-finished']);
      expect(second).toEqual(first);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('refuses a value that is not a listener with InvalidMcpOptionError naming onEvent', () => {
    for (const onEvent of ['print', [() => {}, 1]] as unknown as RunEventListener[]) {
      expect(() => createMcpServer(registry, { onEvent })).toThrow(
        expect.objectContaining({
          option: 'onEvent',
          message: expect.stringMatching(/must be a listener function or an array of listener functions/),
        }),
      );
      expect(() => createMcpServer(registry, { onEvent })).toThrow(InvalidMcpOptionError);
    }
  });
});
