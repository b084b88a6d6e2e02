import {
  collectStream,
  InvalidRequestError,
  type JsonSchema,
  type ModelRequest,
  type ResponseFormat,
} from '@org/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ANTHROPIC_CAPABILITIES } from '../src/index.js';
import {
  type FakeAnthropicServer,
  type MessageLike,
  messageToEvents,
  startFakeAnthropicServer,
} from './fake-anthropic-server.js';
import { testProvider } from './test-provider.js';

// responseFormat as Anthropic's native structured output (`output_config.format`), through the real SDK.

let server: FakeAnthropicServer;
beforeEach(async () => {
  server = await startFakeAnthropicServer();
});
afterEach(async () => {
  await server.close();
});

const closedSchema: JsonSchema = {
  type: 'object',
  properties: { city: { type: 'string' }, celsius: { type: 'number' } },
  required: ['city', 'celsius'],
  additionalProperties: false,
};
const format: ResponseFormat = { type: 'json', name: 'forecast', schema: closedSchema };

const answer: MessageLike = {
  id: 'msg_json',
  model: 'm',
  content: [{ type: 'text', text: '{"city":"Paris","celsius":12}' }],
  stop_reason: 'end_turn',
  usage: { input_tokens: 20, output_tokens: 9 },
};
const jsonReply = { type: 'json', body: { type: 'message', role: 'assistant', ...answer } } as const;

const request = (responseFormat: ResponseFormat, extra: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [{ role: 'user', content: 'Weather in Paris as JSON.' }],
  responseFormat,
  ...extra,
});

const lastBody = (): Record<string, unknown> => server.requests[server.requests.length - 1]?.body ?? {};

describe('structured output', () => {
  it('is declared native', () => {
    expect(ANTHROPIC_CAPABILITIES.structuredOutput).toBe(true);
    expect(testProvider(server)('m').capabilities.structuredOutput).toBe(true);
  });

  it('sends the schema as output_config.format and returns the JSON text, the same through stream()', async () => {
    server.enqueue(jsonReply, { type: 'sse', events: messageToEvents(answer, 4) });
    const model = testProvider(server)('m');
    const generated = await model.generate(request(format));
    expect(generated.text).toBe('{"city":"Paris","celsius":12}');
    expect(generated.adjustments).toEqual([]);
    expect(lastBody().output_config).toEqual({ format: { type: 'json_schema', schema: closedSchema } });
    expect(await collectStream(model.stream(request(format)))).toEqual(generated);
    expect(lastBody().output_config).toEqual({ format: { type: 'json_schema', schema: closedSchema } });
  });

  it('puts an open schema in Anthropic’s dialect with the SDK’s transform, and reports it', async () => {
    server.enqueue(jsonReply);
    const response = await testProvider(server)('m').generate(
      request({
        type: 'json',
        name: 'forecast',
        description: 'A city and its temperature.',
        schema: {
          type: 'object',
          properties: { city: { type: 'string', minLength: 1 }, celsius: { type: 'number' } },
          required: ['city'],
        },
      }),
    );
    expect(lastBody().output_config).toEqual({
      format: {
        type: 'json_schema',
        schema: {
          type: 'object',
          description: 'A city and its temperature.',
          properties: {
            city: { type: 'string', description: '{minLength: 1}' },
            celsius: { type: 'number' },
          },
          additionalProperties: false,
          required: ['city'],
        },
      },
    });
    expect(response.adjustments).toEqual([
      expect.objectContaining({ kind: 'schema-adapted', details: { responseFormat: 'forecast' } }),
    ]);
  });

  it('keeps the schema’s own description and reports responseFormat.description as not sent', async () => {
    server.enqueue(jsonReply);
    const response = await testProvider(server)('m').generate(
      request({ ...format, description: 'Ignored.', schema: { ...closedSchema, description: 'Own.' } }),
    );
    expect(
      (lastBody().output_config as { format: { schema: { description: string } } }).format.schema.description,
    ).toBe('Own.');
    expect(response.adjustments).toEqual([
      expect.objectContaining({
        kind: 'setting-ignored',
        details: { setting: 'responseFormat.description' },
      }),
    ]);
  });

  it('keeps other output_config fields given as provider options, and refuses a second format', async () => {
    server.enqueue(jsonReply);
    await testProvider(server)('m').generate(
      request(format, { providerOptions: { anthropic: { output_config: { effort: 'low' } } } }),
    );
    expect(lastBody().output_config).toEqual({
      effort: 'low',
      format: { type: 'json_schema', schema: closedSchema },
    });
    const failure = await testProvider(server)('m')
      .generate(
        request(format, {
          providerOptions: { anthropic: { output_config: { format: { type: 'json_schema', schema: {} } } } },
        }),
      )
      .catch((error: unknown) => error);
    expect(InvalidRequestError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({ providerCode: 'reserved_provider_option' });
    expect(server.requests).toHaveLength(1);
  });

  it('fails before sending, naming the fix, on a model declared without structured output', async () => {
    const model = testProvider(server)('m', { capabilities: { structuredOutput: false } });
    const failure = await model.generate(request(format)).catch((error: unknown) => error);
    expect(InvalidRequestError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({ providerCode: 'structured_output_unsupported', retryable: false });
    expect((failure as Error).message).toMatch(/final tool call.*runAgent's output/);
    const parts = [];
    for await (const part of model.stream(request(format))) parts.push(part);
    expect(parts).toEqual([
      { type: 'error', error: expect.objectContaining({ providerCode: 'structured_output_unsupported' }) },
    ]);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a schema the dialect cannot express, and a malformed responseFormat', async () => {
    const model = testProvider(server)('m');
    const untyped = await model
      .generate(request({ type: 'json', name: 'x', schema: { properties: { a: { type: 'string' } } } }))
      .catch((error: unknown) => error);
    expect(untyped).toMatchObject({ code: 'invalid_request', providerCode: 'invalid_response_format' });
    expect((untyped as Error).message).toMatch(/must have a type/);
    const malformed = await model
      .generate(request({ type: 'json', name: 'x', schema: [] } as unknown as ResponseFormat))
      .catch((error: unknown) => error);
    expect(malformed).toMatchObject({ providerCode: 'invalid_response_format' });
    expect(server.requests).toHaveLength(0);
  });
});
