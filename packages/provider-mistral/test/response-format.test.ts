import { collectStream, type JsonSchema, type ModelRequest } from '@org/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeMistralServer, startFakeMistralServer } from './fake-mistral-server.js';
import { testProvider } from './test-provider.js';

const SCHEMA: JsonSchema = {
  type: 'object',
  properties: { city: { type: 'string' }, temperature: { type: 'number' } },
  required: ['city', 'temperature'],
  additionalProperties: false,
};
const ANSWER = '{"city":"Paris","temperature":18}';

let server: FakeMistralServer;
beforeEach(async () => {
  server = await startFakeMistralServer();
});
afterEach(async () => {
  await server.close();
});

describe('structured output', () => {
  it('sends response_format json_schema with its name, description and schema, and returns the JSON text', async () => {
    server.enqueue({ type: 'response', text: ANSWER });
    server.enqueue({ type: 'response', text: ANSWER });
    const model = testProvider(server)('mistral-large-latest');
    const request: ModelRequest = {
      messages: [{ role: 'user', content: 'Weather in Paris as JSON.' }],
      responseFormat: { type: 'json', name: 'weather', description: 'The weather.', schema: SCHEMA },
    };
    const generated = await model.generate(request);
    const streamed = await collectStream(model.stream(request));
    for (const answer of [generated, streamed]) expect(JSON.parse(answer.text)).toEqual(JSON.parse(ANSWER));
    for (const received of server.requests) {
      expect(received.body.response_format).toEqual({
        type: 'json_schema',
        json_schema: { name: 'weather', description: 'The weather.', schema: SCHEMA, strict: true },
      });
    }
  });
});
