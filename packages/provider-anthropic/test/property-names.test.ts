import { readFileSync } from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import {
  collectStream,
  IncompleteToolCallError,
  InvalidRequestError,
  mapPropertyNames,
  type StreamPart,
  type ToolSpec,
} from '@org/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ANTHROPIC_PROPERTY_NAME_RULES } from '../src/property-names.js';
import { type FakeAnthropicServer, type SseItem, startFakeAnthropicServer } from './fake-anthropic-server.js';
import { TEST_API_KEY, testProvider } from './test-provider.js';

let server: FakeAnthropicServer;
beforeEach(async () => {
  server = await startFakeAnthropicServer();
});
afterEach(async () => {
  await server.close();
});

/**
 * A BFCL-style function with a Spanish parameter name, as in BFCL's live categories (`año_vehiculo`). That entry is
 * not among the four BFCL files stored in ../shared/corpora/bfcl, so its shape is written here; the parameters
 * around it exercise nesting, `required` lists and a free-form object whose keys must never be touched.
 */
const quote: ToolSpec = {
  name: 'cotizar_seguro',
  description: 'Cotiza un seguro de auto.',
  inputSchema: {
    type: 'object',
    properties: {
      marca: { type: 'string', description: 'Marca del vehículo' },
      año_vehiculo: { type: 'integer', description: 'Año del vehículo' },
      conductor: {
        type: 'object',
        properties: { 'años de experiencia': { type: 'integer' }, nombre: { type: 'string' } },
        required: ['años de experiencia'],
      },
      extras: { type: 'object', description: 'Libre', additionalProperties: true },
    },
    required: ['marca', 'año_vehiculo'],
  },
};

const lastBody = (): Record<string, unknown> => {
  const request = server.requests[server.requests.length - 1];
  if (request === undefined) throw new Error('no request reached the fake server');
  return request.body;
};

const toolUseMessage = (input: Record<string, unknown>) => ({
  type: 'json' as const,
  body: {
    id: 'msg_quote',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-5-5',
    content: [{ type: 'tool_use', id: 'toolu_1', name: 'cotizar_seguro', input }],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
  },
});

/** A tool_use answer streamed from a raw arguments text, cut into small pieces (keys split across deltas). */
function streamedToolUse(argumentsText: string, stopReason = 'tool_use', pieceSize = 3): SseItem[] {
  const events: SseItem[] = [
    {
      type: 'message_start',
      message: {
        id: 'msg_stream',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-5-5',
        content: [],
        stop_reason: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    },
    {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: 'toolu_s', name: 'cotizar_seguro', input: {} },
    },
  ];
  for (let start = 0; start < argumentsText.length; start += pieceSize) {
    // Written by hand so that the raw text (an integer beyond 2^53) reaches the SDK as it is.
    const piece = JSON.stringify(argumentsText.slice(start, start + pieceSize));
    events.push(
      `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":${piece}}}\n\n`,
    );
  }
  if (stopReason !== 'max_tokens') events.push({ type: 'content_block_stop', index: 0 });
  events.push(
    { type: 'message_delta', delta: { stop_reason: stopReason }, usage: { output_tokens: 20 } },
    { type: 'message_stop' },
  );
  return events;
}

describe('property names the Messages API refuses', () => {
  it('are refused by the fake server the way the API refuses them', async () => {
    const client = new Anthropic({ apiKey: TEST_API_KEY, baseURL: server.baseURL, maxRetries: 0 });
    await expect(
      client.messages.create({
        model: 'claude-sonnet-5-5',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hola' }],
        tools: [{ name: quote.name, input_schema: quote.inputSchema as Anthropic.Tool.InputSchema }],
      }),
    ).rejects.toMatchObject({
      status: 400,
      error: {
        error: {
          type: 'invalid_request_error',
          message:
            "tools.0.custom.input_schema.properties: Property keys should match pattern '^[a-zA-Z0-9_.-]{1,64}$'",
        },
      },
    });
  });

  it('are sent renamed at every depth (and in required), reported, and mapped back in the answer', async () => {
    server.enqueue(
      toolUseMessage({
        marca: 'Seat',
        ano_vehiculo: 2021,
        conductor: { anos_de_experiencia: 7 },
        extras: { ano_vehiculo: 1 },
      }),
    );
    const model = testProvider(server)('claude-sonnet-5-5');
    const response = await model.generate({
      messages: [{ role: 'user', content: 'Cotiza mi Seat de 2021' }],
      tools: [quote],
    });

    const [tool] = lastBody().tools as { input_schema: Record<string, unknown> }[];
    expect(tool?.input_schema).toEqual({
      type: 'object',
      properties: {
        marca: { type: 'string', description: 'Marca del vehículo' },
        ano_vehiculo: { type: 'integer', description: 'Año del vehículo' },
        conductor: {
          type: 'object',
          properties: { anos_de_experiencia: { type: 'integer' }, nombre: { type: 'string' } },
          required: ['anos_de_experiencia'],
        },
        extras: { type: 'object', description: 'Libre', additionalProperties: true },
      },
      required: ['marca', 'ano_vehiculo'],
    });
    // The caller's spec is not modified.
    expect(Object.keys(quote.inputSchema.properties ?? {})).toContain('año_vehiculo');

    expect(response.toolCalls).toEqual([
      {
        id: 'toolu_1',
        toolName: 'cotizar_seguro',
        // The free-form object keeps the model's own key: it is a value, not a declared property.
        arguments:
          '{"marca":"Seat","año_vehiculo":2021,"conductor":{"años de experiencia":7},"extras":{"ano_vehiculo":1}}',
      },
    ]);
    expect(response.adjustments).toContainEqual({
      kind: 'schema-adapted',
      message: expect.stringContaining("'año_vehiculo' as 'ano_vehiculo'"),
      details: {
        reason: 'property-names-mapped',
        renamed: {
          cotizar_seguro: { año_vehiculo: 'ano_vehiculo', 'años de experiencia': 'anos_de_experiencia' },
        },
      },
    });
  });

  it('are mapped back in a stream key by key, deltas adding up to the call, values kept byte for byte', async () => {
    const sent =
      '{"marca": "Seat", "ano_vehiculo": 12345678901234567890123, "conductor": {"anos_de_experiencia": 7}}';
    server.enqueue({ type: 'sse', events: streamedToolUse(sent) });
    const model = testProvider(server)('claude-sonnet-5-5');
    const parts: StreamPart[] = [];
    for await (const part of model.stream({
      messages: [{ role: 'user', content: 'Cotiza' }],
      tools: [quote],
    })) {
      parts.push(part);
    }
    const expected =
      '{"marca": "Seat", "año_vehiculo": 12345678901234567890123, "conductor": {"años de experiencia": 7}}';
    const deltas = parts.flatMap((part) => (part.type === 'tool-call-delta' ? [part.argumentsDelta] : []));
    expect(deltas.join('')).toBe(expected);
    expect(parts.find((part) => part.type === 'tool-call')).toEqual({
      type: 'tool-call',
      toolCall: { id: 'toolu_s', toolName: 'cotizar_seguro', arguments: expected },
    });
    const finish = parts.at(-1);
    expect(finish?.type === 'finish' && finish.adjustments.map((adjustment) => adjustment.kind)).toContain(
      'schema-adapted',
    );

    // The same answer through collectStream gives the same call.
    server.enqueue({ type: 'sse', events: streamedToolUse(sent, 'tool_use', 1) });
    const collected = await collectStream(
      model.stream({ messages: [{ role: 'user', content: 'Cotiza' }], tools: [quote] }),
    );
    expect(collected.toolCalls[0]?.arguments).toBe(expected);
  });

  it('are mapped back in the partial arguments of a call cut off by max_tokens', async () => {
    server.enqueue({
      type: 'sse',
      events: streamedToolUse('{"ano_vehiculo": 2021, "conductor": {"anos_de', 'max_tokens'),
    });
    const model = testProvider(server)('claude-sonnet-5-5');
    const parts: StreamPart[] = [];
    for await (const part of model.stream({
      messages: [{ role: 'user', content: 'Cotiza' }],
      tools: [quote],
    })) {
      parts.push(part);
    }
    const last = parts.at(-1);
    expect(last?.type).toBe('error');
    const error = last?.type === 'error' ? last.error : undefined;
    expect(error).toBeInstanceOf(IncompleteToolCallError);
    expect((error as IncompleteToolCallError).partialArguments).toBe(
      '{"año_vehiculo": 2021, "conductor": {"anos_de',
    );
  });

  it('are sent renamed in the history too, so earlier calls match the schema the model sees', async () => {
    server.enqueue({
      type: 'json',
      body: {
        id: 'msg_done',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-5-5',
        content: [{ type: 'text', text: 'Listo.' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    });
    const model = testProvider(server)('claude-sonnet-5-5');
    await model.generate({
      messages: [
        { role: 'user', content: 'Cotiza' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 'toolu_h', toolName: 'cotizar_seguro', arguments: '{"marca":"Seat","año_vehiculo":2021}' },
          ],
        },
        { role: 'tool', toolCallId: 'toolu_h', toolName: 'cotizar_seguro', content: '420 EUR' },
      ],
      tools: [quote],
    });
    const messages = lastBody().messages as { content: unknown }[];
    expect(messages[1]?.content).toEqual([
      {
        type: 'tool_use',
        id: 'toolu_h',
        name: 'cotizar_seguro',
        input: { marca: 'Seat', ano_vehiculo: 2021 },
      },
    ]);
  });

  it('leave tools with accepted names untouched, with no adjustment', async () => {
    server.enqueue(toolUseMessage({ marca: 'Seat' }));
    const plain: ToolSpec = {
      name: 'cotizar_seguro',
      description: 'x',
      inputSchema: {
        type: 'object',
        properties: { marca: { type: 'string' }, 'a.b-c_1': { type: 'string' } },
      },
    };
    const response = await testProvider(server)('claude-sonnet-5-5').generate({
      messages: [{ role: 'user', content: 'Cotiza' }],
      tools: [plain],
    });
    expect((lastBody().tools as { input_schema: unknown }[])[0]?.input_schema).toEqual(plain.inputSchema);
    expect(response.adjustments).toEqual([]);
  });

  it('leave every function of the stored BFCL corpus as it is (all its names are accepted)', () => {
    const directory = new URL('../../../../shared/corpora/bfcl/', import.meta.url);
    let functions = 0;
    for (const file of ['BFCL_v4_simple_python.json', 'BFCL_v4_multiple.json', 'BFCL_v4_parallel.json']) {
      for (const line of readFileSync(new URL(file, directory), 'utf8').split('\n')) {
        if (line.trim() === '') continue;
        const entry = JSON.parse(line) as { function: { parameters: ToolSpec['inputSchema'] }[] };
        for (const fn of entry.function) {
          functions++;
          const mapping = mapPropertyNames(fn.parameters, ANTHROPIC_PROPERTY_NAME_RULES);
          expect(mapping.renamed.size).toBe(0);
          expect(mapping.schema).toBe(fn.parameters);
        }
      }
    }
    expect(functions).toBeGreaterThan(500);
  });

  it('still fail with a typed error when the server refuses a request for another reason', async () => {
    server.enqueue({
      type: 'json',
      status: 400,
      body: { type: 'error', error: { type: 'invalid_request_error', message: 'tools.0: something else' } },
    });
    await expect(
      testProvider(server)('claude-sonnet-5-5').generate({
        messages: [{ role: 'user', content: 'x' }],
        tools: [quote],
      }),
    ).rejects.toBeInstanceOf(InvalidRequestError);
  });
});
