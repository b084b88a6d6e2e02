import { collectStream, InvalidRequestError, type ModelRequest, type ResponseFormat } from '@org/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_BEDROCK_CAPABILITIES } from '../src/index.js';
import { type FakeBedrockServer, startFakeBedrock } from './fake-bedrock-server.js';
import { createTestBedrock } from './test-provider.js';

const FORMAT: ResponseFormat = {
  type: 'json',
  name: 'weather_report',
  description: 'The weather in one city',
  schema: {
    type: 'object',
    properties: { city: { type: 'string' }, celsius: { type: 'number' } },
    required: ['city', 'celsius'],
    additionalProperties: false,
  },
};
const ANSWER = '{"city":"Paris","celsius":21}';
const REQUEST: ModelRequest = {
  messages: [{ role: 'user', content: 'Weather in Paris as JSON.' }],
  responseFormat: FORMAT,
};

let server: FakeBedrockServer;
beforeEach(async () => {
  server = await startFakeBedrock();
});
afterEach(async () => {
  await server.close();
});

describe('responseFormat: Converse outputConfig.textFormat (native structured output)', () => {
  it('is declared: structuredOutput true by default', () => {
    expect(DEFAULT_BEDROCK_CAPABILITIES.structuredOutput).toBe(true);
    expect(createTestBedrock(server).provider('m').capabilities.structuredOutput).toBe(true);
  });

  it('Converse: sent as a json_schema text format, the schema as JSON text; the answer is the JSON text', async () => {
    server.enqueue({
      json: {
        output: { message: { role: 'assistant', content: [{ text: ANSWER }] } },
        stopReason: 'end_turn',
        usage: { inputTokens: 30, outputTokens: 9, totalTokens: 39 },
      },
    });
    const response = await createTestBedrock(server).provider('m').generate(REQUEST);
    expect(response.text).toBe(ANSWER);
    expect(response.adjustments).toEqual([]);
    const body = server.requests[0]?.body ?? {};
    expect(body.outputConfig).toEqual({
      textFormat: {
        type: 'json_schema',
        structure: {
          jsonSchema: {
            schema: JSON.stringify(FORMAT.schema),
            name: 'weather_report',
            description: FORMAT.description,
          },
        },
      },
    });
    expect(body.toolConfig).toBeUndefined();
  });

  it('ConverseStream: the same outputConfig; the JSON arrives as text deltas', async () => {
    server.enqueue({
      stream: [
        { event: 'messageStart', payload: { role: 'assistant' } },
        {
          event: 'contentBlockDelta',
          payload: { contentBlockIndex: 0, delta: { text: ANSWER.slice(0, 12) } },
        },
        { event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { text: ANSWER.slice(12) } } },
        { event: 'contentBlockStop', payload: { contentBlockIndex: 0 } },
        { event: 'messageStop', payload: { stopReason: 'end_turn' } },
        {
          event: 'metadata',
          payload: { usage: { inputTokens: 30, outputTokens: 9, totalTokens: 39 }, metrics: {} },
        },
      ],
    });
    const response = await collectStream(
      createTestBedrock(server)
        .provider('m')
        .stream({ ...REQUEST, responseFormat: { type: 'json', name: 'r', schema: FORMAT.schema } }),
    );
    expect(response.text).toBe(ANSWER);
    expect(server.requests[0]?.operation).toBe('converse-stream');
    expect(server.requests[0]?.body.outputConfig).toEqual({
      textFormat: {
        type: 'json_schema',
        structure: { jsonSchema: { schema: JSON.stringify(FORMAT.schema), name: 'r' } },
      },
    });
  });

  it('a model declared without structured output: InvalidRequestError naming the fix, nothing sent', async () => {
    const model = createTestBedrock(server).provider('meta.llama3-8b-instruct-v1:0', {
      capabilities: { structuredOutput: false },
    });
    const failure = await model.generate(REQUEST).catch((error: unknown) => error);
    expect(InvalidRequestError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({ provider: 'bedrock', providerCode: 'structured_output_unsupported' });
    expect((failure as Error).message).toContain('`output` option');
    expect((failure as Error).message).toContain('final tool call');
    const parts = [];
    for await (const part of model.stream(REQUEST)) parts.push(part);
    expect(parts).toHaveLength(1);
    expect(parts[0]?.type === 'error' && InvalidRequestError.isInstance(parts[0].error)).toBe(true);
    expect(server.requests).toHaveLength(0);
  });

  it('a schema that is not a JSON object, or a type other than json, is refused before sending', async () => {
    const model = createTestBedrock(server).provider('m');
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.self = cyclic;
    for (const responseFormat of [
      { ...FORMAT, schema: cyclic },
      { ...FORMAT, schema: null as unknown as ResponseFormat['schema'] },
      { ...FORMAT, type: 'xml' as 'json' },
    ]) {
      const failure = await model.generate({ ...REQUEST, responseFormat }).catch((error: unknown) => error);
      expect(InvalidRequestError.isInstance(failure)).toBe(true);
    }
    expect(server.requests).toHaveLength(0);
  });

  it('a schema Bedrock refuses comes back as its ValidationException, typed', async () => {
    server.enqueue({
      errorType: 'ValidationException',
      status: 400,
      message: 'fake wording: the JSON schema of outputConfig.textFormat was refused (additionalProperties).',
    });
    const failure = await createTestBedrock(server)
      .provider('m')
      .generate({ ...REQUEST, responseFormat: { type: 'json', name: 'loose', schema: { type: 'object' } } })
      .catch((error: unknown) => error);
    expect(InvalidRequestError.isInstance(failure)).toBe(true);
    expect((failure as Error).message).toContain('outputConfig.textFormat was refused');
  });
});
