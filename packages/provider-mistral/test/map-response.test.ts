import { IncompleteToolCallError, ProviderError } from '@org/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeMistralServer, startFakeMistralServer } from './fake-mistral-server.js';
import { testProvider } from './test-provider.js';

const MESSAGES = [{ role: 'user', content: 'Weather in Paris?' }] as const;

let server: FakeMistralServer;
beforeEach(async () => {
  server = await startFakeMistralServer();
});
afterEach(async () => {
  await server.close();
});

/** A chat completion body with this message and finish reason. */
function completion(message: Record<string, unknown>, finishReason: string): string {
  return JSON.stringify({
    id: 'cmpl-1',
    object: 'chat.completion',
    model: 'mistral-large-latest',
    created: 1,
    usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 },
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finishReason }],
  });
}

async function generate(body: string): Promise<unknown> {
  server.enqueue({ type: 'raw', status: 200, body });
  return testProvider(server)('mistral-large-latest')
    .generate({ messages: MESSAGES })
    .catch((thrown: unknown) => thrown);
}

describe('JSON answers', () => {
  it('thinking and text chunks: reasoning and text; model_length is a length stop; usage read', async () => {
    const response = await generate(
      completion(
        {
          content: [
            {
              type: 'thinking',
              thinking: [
                { type: 'text', text: 'Paris, ' },
                { type: 'text', text: 'then.' },
              ],
            },
            { type: 'text', text: 'It is ' },
            { type: 'text', text: 'sunny.' },
          ],
        },
        'model_length',
      ),
    );
    expect(response).toMatchObject({
      text: 'It is sunny.',
      reasoning: [{ type: 'reasoning', provider: 'mistral', text: 'Paris, then.' }],
      finishReason: 'length',
      rawFinishReason: 'model_length',
      usage: { inputTokens: 5, outputTokens: 7, totalTokens: 12 },
      responseId: 'cmpl-1',
    });
  });

  it('arguments sent as an object come back as their JSON text', async () => {
    const response = await generate(
      completion(
        {
          content: '',
          tool_calls: [{ id: 'aB3dE5gH7', function: { name: 'get_weather', arguments: { city: 'Paris' } } }],
        },
        'tool_calls',
      ),
    );
    expect(response).toMatchObject({
      toolCalls: [{ id: 'aB3dE5gH7', toolName: 'get_weather', arguments: '{"city":"Paris"}' }],
    });
  });

  it('a length stop in the middle of the last call is an IncompleteToolCallError, never a call', async () => {
    const error = await generate(
      completion(
        {
          content: '',
          tool_calls: [{ id: 'aB3dE5gH7', function: { name: 'get_weather', arguments: '{"city":"Pa' } }],
        },
        'length',
      ),
    );
    expect(IncompleteToolCallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      toolCallId: 'aB3dE5gH7',
      partialArguments: '{"city":"Pa',
      finishReason: 'length',
    });
  });

  it('a chunk this adapter never asks for is an invalid_response, not dropped', async () => {
    const error = await generate(
      completion({ content: [{ type: 'reference', reference_ids: [1] }] }, 'stop'),
    );
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as ProviderError).providerCode).toBe('invalid_response');
  });
});
