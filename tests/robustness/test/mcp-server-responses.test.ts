/**
 * Everything an MCP server sends is hostile input: tool names, schemas, results, errors. A fake server speaks raw
 * JSON-RPC text (so `__proto__` keys arrive as own keys, as from the wire) to the SDK `Client`; `connectMcp` adapts
 * its tools and they are run with `executeAction`. Every outcome must be typed, bounded, and leave the built-in
 * prototypes as they were (the suite's prototype guard checks after each test too).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { OrgError } from '@org/core';
import { connectMcp, McpInvalidToolError } from '@org/mcp';
import { DEFAULT_OUTPUT_BUDGET_BYTES, executeAction, formatObservationForModel } from '@org/tools';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NUM_RUNS, propertyTimeout } from './support/run-helpers.js';

const deep = (levels: number, leaf = '1'): string => `${'{"a":'.repeat(levels)}${leaf}${'}'.repeat(levels)}`;

/** Tool names a server may choose: prototype names, invalid names, long names, namespaced names. */
const toolName = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    'valueOf',
    'ok',
    'a.b/c:d',
  ),
  fc.constantFrom('get weather', '', ' ', '"quoted"', 'ünï', 'x'.repeat(300), '\u0000'),
  fc.string({ maxLength: 20 }),
);

/** JSON text of schemas a server may send, good and bad. */
const schemaText = fc.oneof(
  fc.constant('{"type":"object"}'),
  fc.constant('{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}'),
  fc.constant(
    '{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"number"}}}',
  ),
  fc.constant('{"__proto__":{"polluted":true},"type":"object"}'),
  fc.constant('{"type":"wat"}'),
  fc.constant('{"type":"object","properties":{"p":{"type":"string","pattern":"(a+)+$"}}}'),
  fc.constant('{"type":"object","$ref":"#/definitions/nowhere"}'),
  fc.constant(`{"type":"object","properties":${deep(200, '{"type":"string"}')}}`),
  fc.constant(`{"type":"object","description":"${'d'.repeat(300_000)}"}`),
  fc.constantFrom('42', '"a string"', 'null', '[]', 'true'),
);

/** JSON text of call results a server may send. */
const resultText = fc.oneof(
  fc.constant('{"content":[{"type":"text","text":"fine"}]}'),
  fc.constant(`{"content":[{"type":"text","text":"${'x'.repeat(200_000)}"}]}`),
  fc.constant(`{"content":[{"type":"text","text":"${'e'.repeat(200_000)}"}],"isError":true}`),
  fc.constant(
    '{"content":[],"structuredContent":{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}}',
  ),
  fc.constant(`{"content":[],"structuredContent":${deep(500)}}`),
  fc.constant('{"content":[],"structuredContent":[1,2]}'),
  fc.constant('{"content":"not an array"}'),
  fc.constant(
    '{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"},{"type":"mystery"},null,42]}',
  ),
  fc.constant(
    '{"content":[{"type":"text","text":"x"}],"structuredContent":{"big":"' + 'y'.repeat(300_000) + '"}}',
  ),
  fc.constant('{"isError":true}'),
  fc.constant('"not an object"'),
);

/** A server that answers with the given raw JSON texts, as the wire would deliver them. */
function hostileServer(tools: string, result: string, listChanged: boolean): Transport {
  const transport: Transport = {
    start: async () => undefined,
    close: async () => {
      transport.onclose?.();
    },
    send: async (message: JSONRPCMessage) => {
      if (!('method' in message) || !('id' in message)) return;
      let body: string;
      if (message.method === 'initialize') {
        body = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":${listChanged}}},"serverInfo":{"name":"__proto__","version":"1"}}`;
      } else if (message.method === 'tools/list') body = `{"tools":${tools}}`;
      else if (message.method === 'tools/call') body = result;
      else body = '{}';
      const text = `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":${body}}`;
      queueMicrotask(() => transport.onmessage?.(JSON.parse(text) as JSONRPCMessage));
    },
  };
  return transport;
}

describe('connectMcp against a hostile server', () => {
  it(
    'turns every tool list and result into typed, bounded outcomes without touching Object.prototype',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.record({ name: toolName, input: schemaText, output: fc.option(schemaText) }), {
            maxLength: 4,
          }),
          resultText,
          fc.boolean(),
          async (entries, result, listChanged) => {
            const tools = `[${entries
              .map(
                (entry) =>
                  `{"name":${JSON.stringify(entry.name)},"description":"d","inputSchema":${entry.input}` +
                  `${entry.output === null ? '' : `,"outputSchema":${entry.output}`},"annotations":{"readOnlyHint":"yes","__proto__":{"destructiveHint":true}}}`,
              )
              .join(',')}]`;
            const client = new Client({ name: 'robustness', version: '1.0.0' });
            await client.connect(hostileServer(tools, result, listChanged));
            try {
              let connection: Awaited<ReturnType<typeof connectMcp>>;
              try {
                connection = await connectMcp({
                  client,
                  limits: { maxResultSize: 100_000, maxSchemaSize: 100_000 },
                  // A response that is not a JSON-RPC message is dropped by the SDK: the call ends on this timeout.
                  requestTimeoutMs: 100,
                });
              } catch (error) {
                expect(OrgError.isInstance(error)).toBe(true);
                return;
              }
              for (const rejected of connection.rejectedTools) {
                expect(McpInvalidToolError.isInstance(rejected)).toBe(true);
                expect(rejected.message.length).toBeLessThan(2_000);
              }
              expect(connection.tools.size + connection.rejectedTools.length).toBeLessThanOrEqual(
                entries.length,
              );
              for (const tool of connection.tools.list()) {
                const observation = await executeAction(connection.tools, {
                  id: 'call',
                  toolName: tool.name,
                  args: {},
                });
                expect(['success', 'error']).toContain(observation.status);
                if (observation.status === 'error') {
                  expect(typeof observation.error?.code).toBe('string');
                  expect(observation.error?.message.length).toBeLessThan(20_000);
                } else {
                  expect(JSON.stringify(observation.output ?? null).length).toBeLessThanOrEqual(
                    DEFAULT_OUTPUT_BUDGET_BYTES + 200,
                  );
                }
                expect(formatObservationForModel(observation).length).toBeLessThan(
                  DEFAULT_OUTPUT_BUDGET_BYTES + 20_000,
                );
              }
              await connection.close();
            } finally {
              await client.close();
            }
            expect(({} as Record<string, unknown>).polluted).toBeUndefined();
            expect(Object.getPrototypeOf({})).toBe(Object.prototype);
          },
        ),
        { numRuns: Math.max(50, Math.floor(NUM_RUNS / 4)) },
      );
    },
    propertyTimeout(60),
  );
});
