import { InvalidRequestError, type ModelRequest, type ResponseFormat } from '@org/core';
import { describe, expect, it } from 'vitest';
import { USER_ONLY, withTestModel } from './test-provider.js';

/** Strict as it stands: closed objects, every property required (the `openai-strict` dialect of @org/tools). */
const STRICT_REPORT: ResponseFormat = {
  type: 'json',
  name: 'weather_report',
  description: 'The weather in one city.',
  schema: {
    type: 'object',
    properties: { city: { type: 'string' }, temperatureC: { type: ['number', 'null'] } },
    required: ['city', 'temperatureC'],
    additionalProperties: false,
  },
};

/** Not strict-expressible as it stands: an optional property, an open object. */
const LOOSE_REPORT: ResponseFormat = {
  type: 'json',
  name: 'loose_report',
  schema: {
    type: 'object',
    properties: { city: { type: 'string' }, note: { type: 'string' } },
    required: ['city'],
  },
};

const ANSWER = { type: 'response', text: '{"city":"Paris","temperatureC":18}' } as const;

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error,
  );
}

describe('responseFormat: native structured output', () => {
  it('chat → response_format json_schema, strict when the schema is strict as it stands; the text comes back as is', async () => {
    await withTestModel({ api: 'chat' }, async ({ server, model }) => {
      server.enqueue(ANSWER, ANSWER);
      const response = await model.generate({ messages: USER_ONLY, responseFormat: STRICT_REPORT });
      expect(response.text).toBe('{"city":"Paris","temperatureC":18}');
      expect(response.adjustments).toEqual([]);
      expect(server.received[0]?.body.response_format).toEqual({
        type: 'json_schema',
        json_schema: {
          name: 'weather_report',
          description: 'The weather in one city.',
          schema: STRICT_REPORT.schema,
          strict: true,
        },
      });
      await model.generate({ messages: USER_ONLY, responseFormat: LOOSE_REPORT });
      expect(server.received[1]?.body.response_format).toEqual({
        type: 'json_schema',
        json_schema: { name: 'loose_report', schema: LOOSE_REPORT.schema, strict: false },
      });
    });
  });

  it('responses → text.format json_schema beside the caller text settings, strict always explicit', async () => {
    await withTestModel({ api: 'responses' }, async ({ server, model }) => {
      server.enqueue(ANSWER, ANSWER);
      await model.generate({
        messages: USER_ONLY,
        responseFormat: STRICT_REPORT,
        providerOptions: { openai: { text: { verbosity: 'low' } } },
      });
      expect(server.received[0]?.body.text).toEqual({
        verbosity: 'low',
        format: {
          type: 'json_schema',
          name: 'weather_report',
          description: 'The weather in one city.',
          schema: STRICT_REPORT.schema,
          strict: true,
        },
      });
      await model.generate({ messages: USER_ONLY, responseFormat: LOOSE_REPORT });
      expect(server.received[1]?.body.text).toEqual({
        format: { type: 'json_schema', name: 'loose_report', schema: LOOSE_REPORT.schema, strict: false },
      });
    });
  });

  it('a compatible server without strict schemas: chat leaves strict out', async () => {
    await withTestModel(
      { api: 'chat', capabilities: { strictSchemas: false } },
      async ({ server, model }) => {
        server.enqueue(ANSWER);
        await model.generate({ messages: USER_ONLY, responseFormat: STRICT_REPORT });
        expect(server.received[0]?.body.response_format).toEqual({
          type: 'json_schema',
          json_schema: {
            name: 'weather_report',
            description: 'The weather in one city.',
            schema: STRICT_REPORT.schema,
          },
        });
      },
    );
  });

  it('a refusal keeps its meaning: the refusal text, finishReason content-filter', async () => {
    await withTestModel({ api: 'chat' }, async ({ server, model }) => {
      server.enqueue({
        type: 'raw',
        handle: ({ response }) => {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(
            JSON.stringify({
              id: 'chatcmpl-r',
              object: 'chat.completion',
              choices: [
                {
                  index: 0,
                  message: { role: 'assistant', content: null, refusal: 'I cannot help with that.' },
                  finish_reason: 'stop',
                },
              ],
            }),
          );
        },
      });
      const response = await model.generate({ messages: USER_ONLY, responseFormat: STRICT_REPORT });
      expect(response).toMatchObject({ text: 'I cannot help with that.', finishReason: 'content-filter' });
    });
  });

  const REFUSED: readonly [string, Partial<ModelRequest>, string][] = [
    [
      'a name OpenAI does not take',
      { responseFormat: { ...STRICT_REPORT, name: 'weather report!' } },
      'invalid_response_format',
    ],
    [
      'a schema that is not an object',
      { responseFormat: { ...STRICT_REPORT, schema: [] as never } },
      'invalid_response_format',
    ],
    [
      'response_format also in providerOptions (chat)',
      {
        responseFormat: STRICT_REPORT,
        providerOptions: { openai: { response_format: { type: 'json_object' } } },
      },
      'reserved_provider_option',
    ],
  ];
  for (const [name, extra, code] of REFUSED) {
    it(`${name} → InvalidRequestError (${code}), nothing sent`, async () => {
      await withTestModel({ api: 'chat' }, async ({ server, model }) => {
        const error = await failure(model.generate({ messages: USER_ONLY, ...extra }));
        expect(InvalidRequestError.isInstance(error)).toBe(true);
        expect((error as InvalidRequestError).providerCode).toBe(code);
        expect(server.received).toHaveLength(0);
      });
    });
  }

  it('text.format also in providerOptions (responses) → InvalidRequestError, nothing sent', async () => {
    await withTestModel({ api: 'responses' }, async ({ server, model }) => {
      const error = await failure(
        model.generate({
          messages: USER_ONLY,
          responseFormat: STRICT_REPORT,
          providerOptions: { openai: { text: { format: { type: 'text' } } } },
        }),
      );
      expect((error as InvalidRequestError).providerCode).toBe('reserved_provider_option');
      expect(server.received).toHaveLength(0);
    });
  });

  it('a model declared without structuredOutput → InvalidRequestError before sending (the loop uses a final tool call)', async () => {
    for (const api of ['chat', 'responses'] as const) {
      await withTestModel({ api, capabilities: { structuredOutput: false } }, async ({ server, model }) => {
        expect(model.capabilities.structuredOutput).toBe(false);
        const error = await failure(model.generate({ messages: USER_ONLY, responseFormat: STRICT_REPORT }));
        expect(InvalidRequestError.isInstance(error)).toBe(true);
        expect((error as InvalidRequestError).providerCode).toBe('structured_output_unsupported');
        expect(server.received).toHaveLength(0);
      });
    }
  });
});
