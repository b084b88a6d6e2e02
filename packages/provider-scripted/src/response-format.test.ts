import {
  collectStream,
  InvalidRequestError,
  type ModelRequest,
  type ResponseFormat,
  type StreamPart,
} from '@org/core';
import { describe, expect, it } from 'vitest';
import { countRequestTokens, countTokens, createScriptedModel, renderResponseFormat } from './index.js';

const weatherReport: ResponseFormat = {
  type: 'json',
  name: 'weather_report',
  description: 'The weather in one city.',
  schema: {
    type: 'object',
    properties: { city: { type: 'string' }, temperatureC: { type: 'number' } },
    required: ['city', 'temperatureC'],
  },
};
const request: ModelRequest = {
  messages: [{ role: 'user', content: 'Weather in Paris, as JSON?' }],
  responseFormat: weatherReport,
};

async function errorOfStream(stream: AsyncIterable<StreamPart>): Promise<unknown> {
  const parts: StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  expect(parts.map((part) => part.type)).toEqual(['error']);
  return parts[0]?.type === 'error' ? parts[0].error : undefined;
}

describe('responseFormat (structured output)', () => {
  it('is refused with InvalidRequestError by a model that does not declare structuredOutput (the default)', async () => {
    let scriptCalls = 0;
    const model = createScriptedModel({
      script: () => {
        scriptCalls++;
        return { text: '{}' };
      },
    });
    expect(model.capabilities.structuredOutput).toBe(false);
    const generated = await model.generate(request).then(
      () => expect.fail('expected a rejection'),
      (error: unknown) => error,
    );
    const streamed = await errorOfStream(model.stream(request));
    for (const error of [generated, streamed]) {
      expect(InvalidRequestError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ provider: 'scripted', retryable: false });
      expect((error as Error).message).toMatch(/structuredOutput/);
    }
    // Nothing was sent: the script never saw the request, and the calls are recorded as refused.
    expect(scriptCalls).toBe(0);
    expect(model.calls.map((call) => call.callIndex)).toEqual([undefined, undefined]);
  });

  it.each(['generate', 'stream'] as const)(
    'is taken by a model declaring structuredOutput: recorded, counted, and the scripted text returned as is · %s',
    async (method) => {
      const seen: ModelRequest[] = [];
      const answer = '{"city":"Paris","temperatureC":18}';
      const model = createScriptedModel({
        capabilities: { structuredOutput: true },
        script: (received) => {
          seen.push(received);
          return { text: answer };
        },
      });
      const response =
        method === 'generate' ? await model.generate(request) : await collectStream(model.stream(request));
      expect(response.text).toBe(answer);
      expect(response.finishReason).toBe('stop');
      expect(seen[0]?.responseFormat).toBe(weatherReport);
      expect(model.requests[0]?.responseFormat).toBe(weatherReport);
      expect(response.usage.inputTokens).toBe(countRequestTokens(request));
      expect(countRequestTokens(request) - countRequestTokens({ messages: request.messages })).toBe(
        countTokens(renderResponseFormat(weatherReport)),
      );
    },
  );

  it.each([
    ['a type other than json', { ...weatherReport, type: 'xml' }, /only type is 'json'/],
    ['a name with spaces', { ...weatherReport, name: 'weather report' }, /`name` of 1 to 64/],
    ['a name over 64 characters', { ...weatherReport, name: 'n'.repeat(65) }, /`name` of 1 to 64/],
    [
      'a description that is not text',
      { ...weatherReport, description: 7 },
      /`description` must be a string/,
    ],
    [
      'a schema that is not an object',
      { ...weatherReport, schema: [] },
      /`schema` must be a JSON Schema object/,
    ],
  ])('refuses a malformed format (%s) with InvalidRequestError', async (_name, format, pattern) => {
    const model = createScriptedModel({ capabilities: { structuredOutput: true }, script: [{ text: '{}' }] });
    const error = await model
      .generate({ ...request, responseFormat: format as unknown as ResponseFormat })
      .then(
        () => expect.fail('expected a rejection'),
        (thrown: unknown) => thrown,
      );
    expect(InvalidRequestError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(pattern);
    expect(model.remainingTurns).toBe(1);
  });
});
