import type { StreamPart, ToolSpec } from '@org/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeBedrockServer, type StreamItem, startFakeBedrock } from './fake-bedrock-server.js';
import { createTestBedrock } from './test-provider.js';

// Claude on Bedrock refuses these names as the Anthropic API does (ValidationException, "Property keys should match
// pattern '^[a-zA-Z0-9_.-]{1,64}$'"): they are sent renamed and mapped back, as in @org/provider-anthropic.
const QUOTE: ToolSpec = {
  name: 'cotizar.seguro',
  description: 'Cotiza un seguro de auto.',
  inputSchema: {
    type: 'object',
    properties: {
      año_vehiculo: { type: 'integer' },
      conductor: { type: 'object', properties: { 'años de experiencia': { type: 'integer' } } },
    },
    required: ['año_vehiculo'],
  },
};
const MODEL_ID = 'anthropic.claude-sonnet-4-5-v1:0';

let server: FakeBedrockServer;
beforeEach(async () => {
  server = await startFakeBedrock();
});
afterEach(async () => {
  await server.close();
});

describe('property names Converse refuses for Claude models', () => {
  it('are sent renamed, reported, mapped back in a Converse answer and in the history', async () => {
    server.enqueue({
      json: {
        output: {
          message: {
            role: 'assistant',
            content: [
              {
                toolUse: {
                  toolUseId: 't1',
                  name: 'cotizar_seguro',
                  input: { ano_vehiculo: 2021, conductor: { anos_de_experiencia: 7 } },
                },
              },
            ],
          },
        },
        stopReason: 'tool_use',
        usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 },
      },
    });
    const response = await createTestBedrock(server)
      .provider(MODEL_ID)
      .generate({
        messages: [
          { role: 'user', content: 'Cotiza' },
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 't0', toolName: 'cotizar.seguro', arguments: '{"año_vehiculo":2020}' }],
          },
          { role: 'tool', toolCallId: 't0', toolName: 'cotizar.seguro', content: 'fuera de rango' },
        ],
        tools: [QUOTE],
      });
    const body = server.requests.at(-1)?.body as {
      toolConfig: { tools: { toolSpec: { inputSchema: { json: unknown } } }[] };
      messages: { content: unknown[] }[];
    };
    expect(body.toolConfig.tools[0]?.toolSpec.inputSchema.json).toEqual({
      type: 'object',
      properties: {
        ano_vehiculo: { type: 'integer' },
        conductor: { type: 'object', properties: { anos_de_experiencia: { type: 'integer' } } },
      },
      required: ['ano_vehiculo'],
    });
    expect(body.messages[1]?.content).toEqual([
      { toolUse: { toolUseId: 't0', name: 'cotizar_seguro', input: { ano_vehiculo: 2020 } } },
    ]);
    expect(response.toolCalls).toEqual([
      {
        id: 't1',
        toolName: 'cotizar.seguro',
        arguments: '{"año_vehiculo":2021,"conductor":{"años de experiencia":7}}',
      },
    ]);
    expect(response.adjustments).toContainEqual(
      expect.objectContaining({
        kind: 'schema-adapted',
        details: {
          reason: 'property-names-mapped',
          renamed: {
            'cotizar.seguro': { año_vehiculo: 'ano_vehiculo', 'años de experiencia': 'anos_de_experiencia' },
          },
        },
      }),
    );
  });

  it('are mapped back in ConverseStream, deltas adding up to the call, values byte for byte', async () => {
    const sent = '{"ano_vehiculo": 12345678901234567890123, "conductor": {"anos_de_experiencia": 7}}';
    const items: StreamItem[] = [
      {
        event: 'contentBlockStart',
        payload: { contentBlockIndex: 0, start: { toolUse: { toolUseId: 't1', name: 'cotizar_seguro' } } },
      },
    ];
    for (let start = 0; start < sent.length; start += 4) {
      items.push({
        event: 'contentBlockDelta',
        payload: { contentBlockIndex: 0, delta: { toolUse: { input: sent.slice(start, start + 4) } } },
      });
    }
    items.push(
      { event: 'contentBlockStop', payload: { contentBlockIndex: 0 } },
      { event: 'messageStop', payload: { stopReason: 'tool_use' } },
      { event: 'metadata', payload: { usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } } },
    );
    server.enqueue({ stream: items });
    const parts: StreamPart[] = [];
    for await (const part of createTestBedrock(server)
      .provider(MODEL_ID)
      .stream({ messages: [{ role: 'user', content: 'Cotiza' }], tools: [QUOTE] })) {
      parts.push(part);
    }
    const expected = '{"año_vehiculo": 12345678901234567890123, "conductor": {"años de experiencia": 7}}';
    const deltas = parts.flatMap((part) => (part.type === 'tool-call-delta' ? [part.argumentsDelta] : []));
    expect(deltas.join('')).toBe(expected);
    expect(parts.find((part) => part.type === 'tool-call')).toEqual({
      type: 'tool-call',
      toolCall: { id: 't1', toolName: 'cotizar.seguro', arguments: expected },
    });
  });
});
