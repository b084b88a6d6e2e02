/**
 * Any property name `defineTool` accepts reaches the tool intact, on every provider: OpenAI receives it as written;
 * Anthropic (which takes only `^[a-zA-Z0-9_.-]{1,64}$`) receives a renamed form and the model's arguments, written
 * with the sent names, come back to the tool under its own names. Through the real SDKs against a local server.
 */
import { runAgent } from '@org/planner';
import { createAnthropic } from '@org/provider-anthropic';
import { createOpenAI } from '@org/provider-openai';
import { defineTool, InvalidToolSchemaError, ToolRegistry } from '@org/tools';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeHttpServer, jsonReply, startFakeHttpServer } from './support/fake-http-server.js';
import { NUM_RUNS, propertyTimeout } from './support/run-helpers.js';

/** Names a real tool may have: BFCL's `año_vehiculo`, spaces, symbols, long names, prototype names, any Unicode. */
const propertyName = fc.oneof(
  fc.constantFrom(
    'año_vehiculo',
    'años de experiencia',
    '__proto__',
    'constructor',
    'a.b-c',
    '',
    'x'.repeat(80),
  ),
  fc.string({ unit: 'grapheme', minLength: 0, maxLength: 70 }),
);

function quoteTool(names: readonly string[], received: Record<string, unknown>[]) {
  const properties: Record<string, unknown> = {};
  for (const name of names)
    Object.defineProperty(properties, name, { value: { type: 'string' }, enumerable: true });
  return defineTool({
    name: 'cotizar_seguro',
    description: 'Cotiza un seguro de auto.',
    input: { type: 'object', properties, required: [...names] },
    execute: (args: Record<string, unknown>) => {
      received.push(args);
      return 'cotizado';
    },
  });
}

const ANTHROPIC_PROPERTY_NAME = /^[a-zA-Z0-9_.-]{1,64}$/;
const NOT_STREAMED = { streaming: false } as const;

let anthropicServer: FakeHttpServer;
let openaiServer: FakeHttpServer;
beforeAll(async () => {
  anthropicServer = await startFakeHttpServer();
  openaiServer = await startFakeHttpServer('/v1');
});
afterAll(async () => {
  await anthropicServer.close();
  await openaiServer.close();
});

describe('property names of a defined tool, through the real SDKs', () => {
  it(
    'reach the tool intact: sent as written to OpenAI, renamed to Anthropic and mapped back',
    async () => {
      const anthropic = createAnthropic({
        apiKey: 'sk-ant-test',
        baseURL: anthropicServer.baseURL,
        maxRetries: 0,
      })('claude-test', { capabilities: NOT_STREAMED });
      const openai = createOpenAI({ apiKey: 'sk-test', baseURL: openaiServer.baseURL, maxRetries: 0 })(
        'gpt-test',
        {
          api: 'chat',
          capabilities: NOT_STREAMED,
        },
      );
      await fc.assert(
        fc.asyncProperty(fc.uniqueArray(propertyName, { minLength: 1, maxLength: 4 }), async (names) => {
          const received: Record<string, unknown>[] = [];
          const tool = quoteTool(names, received);
          const registry = new ToolRegistry([tool]);

          // Anthropic: the model answers with the names it was sent, values naming their property's position.
          anthropicServer.received.length = 0;
          anthropicServer.enqueue(
            (response, request) => {
              const [sent] = request.body.tools as {
                input_schema: { properties: Record<string, unknown> };
              }[];
              const sentNames = Object.keys(sent?.input_schema.properties ?? {});
              for (const name of sentNames) expect(name).toMatch(ANTHROPIC_PROPERTY_NAME);
              const input = Object.fromEntries(sentNames.map((name, index) => [name, `value ${index}`]));
              jsonReply(200, {
                id: 'msg_1',
                type: 'message',
                role: 'assistant',
                model: 'claude-test',
                content: [{ type: 'tool_use', id: 'toolu_1', name: 'cotizar_seguro', input }],
                stop_reason: 'tool_use',
                stop_sequence: null,
                usage: { input_tokens: 10, output_tokens: 5 },
              })(response, request);
            },
            jsonReply(200, {
              id: 'msg_2',
              type: 'message',
              role: 'assistant',
              model: 'claude-test',
              content: [{ type: 'text', text: 'Listo.' }],
              stop_reason: 'end_turn',
              stop_sequence: null,
              usage: { input_tokens: 10, output_tokens: 2 },
            }),
          );
          const result = await runAgent({ model: anthropic, tools: registry, task: 'Cotiza.' });
          expect(result.text).toBe('Listo.');
          expect(received).toHaveLength(1);
          // Compared as sets: integer-like names (`"1"`) come first in any object's key order.
          expect(Object.keys(received[0] ?? {}).sort()).toEqual([...names].sort());
          expect(Object.values(received[0] ?? {}).sort()).toEqual(
            names.map((_, index) => `value ${index}`).sort(),
          );

          // OpenAI: the names as written.
          openaiServer.received.length = 0;
          openaiServer.enqueue(
            jsonReply(200, {
              id: 'chatcmpl-1',
              object: 'chat.completion',
              created: 1,
              model: 'gpt-test',
              choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
              usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 },
            }),
          );
          await openai.generate({
            messages: [{ role: 'user', content: 'Cotiza.' }],
            tools: registry.specs(),
          });
          const [sentTool] = (openaiServer.received[0]?.body.tools ?? []) as {
            function: { parameters: { properties: Record<string, unknown> } };
          }[];
          expect(Object.keys(sentTool?.function.parameters.properties ?? {}).sort()).toEqual(
            [...names].sort(),
          );
        }),
        { numRuns: Math.min(NUM_RUNS, 100) },
      );
    },
    propertyTimeout(10),
  );

  it('refuses at definition, naming its path, only a name no provider can carry (a lone surrogate)', () => {
    let refused: unknown;
    try {
      quoteTool(['marca', 'a\uDC00'], []);
    } catch (error) {
      refused = error;
    }
    expect(InvalidToolSchemaError.isInstance(refused)).toBe(true);
    expect((refused as InvalidToolSchemaError).path).toBe('properties/a\uDC00');
  });
});
