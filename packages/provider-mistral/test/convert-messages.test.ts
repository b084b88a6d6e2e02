import { InvalidRequestError, type Message } from '@org/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MISTRAL_TOOL_CALL_ID_PATTERN } from '../src/index.js';
import {
  type FakeMistralServer,
  startFakeMistralServer,
  type WireBodyMessage,
} from './fake-mistral-server.js';
import { testProvider } from './test-provider.js';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const PDF = 'JVBERi0xLjQKJcfsj6IKMSAwIG9iago8PD4+CmVuZG9iagp0cmFpbGVyCjw8Pj4KJSVFT0YK';

let server: FakeMistralServer;
beforeEach(async () => {
  server = await startFakeMistralServer();
});
afterEach(async () => {
  await server.close();
});

async function send(
  messages: Message[],
): Promise<{ wire: readonly WireBodyMessage[]; adjustments: readonly unknown[] }> {
  server.enqueue({ type: 'response', text: 'ok' });
  const response = await testProvider(server)('mistral-large-latest').generate({ messages });
  return { wire: server.requests.at(-1)?.body.messages ?? [], adjustments: response.adjustments };
}

const TOOL_TURN = (id: string): Message[] => [
  { role: 'user', content: 'Weather in Paris?' },
  {
    role: 'assistant',
    content: '',
    toolCalls: [{ id, toolName: 'get_weather', arguments: '{"city":"Paris"}' }],
  },
  { role: 'tool', toolCallId: id, toolName: 'get_weather', content: '{"temperature":18}' },
];

describe('messages on the wire', () => {
  it('a tool result carries tool_call_id and the function name; an id Mistral issued is sent as it is', async () => {
    const { wire, adjustments } = await send(TOOL_TURN('aB3dE5gH7'));
    expect(wire[1]).toEqual({
      role: 'assistant',
      content: '',
      tool_calls: [
        {
          id: 'aB3dE5gH7',
          type: 'function',
          function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          index: 0,
        },
      ],
      prefix: false,
    });
    expect(wire[2]).toEqual({
      role: 'tool',
      tool_call_id: 'aB3dE5gH7',
      name: 'get_weather',
      content: '{"temperature":18}',
    });
    expect(adjustments).toEqual([]);
  });

  it('ids of another form are sent as nine letters or digits, the same for the call and its result, and reported', async () => {
    const { wire, adjustments } = await send(TOOL_TURN('call_0fypS1hVX_openai'));
    const sent = wire[1]?.tool_calls?.[0]?.id ?? '';
    expect(sent).toMatch(MISTRAL_TOOL_CALL_ID_PATTERN);
    expect(wire[2]?.tool_call_id).toBe(sent);
    expect(adjustments).toEqual([
      expect.objectContaining({
        kind: 'history-rewritten',
        details: { reason: 'tool-call-ids-mapped', toolCallIds: { call_0fypS1hVX_openai: sent } },
      }),
    ]);
    // The same history gives the same ids on the next request, so the conversation's prefix does not change.
    const again = await send(TOOL_TURN('call_0fypS1hVX_openai'));
    expect(again.wire[1]?.tool_calls?.[0]?.id).toBe(sent);
  });

  it('mapped ids never collide with each other or with an id already valid', async () => {
    const ids = Array.from({ length: 300 }, (_, index) => `toolu_${index}`);
    const messages: Message[] = [{ role: 'user', content: 'Go' }];
    for (const id of ['aB3dE5gH7', ...ids]) messages.push(...TOOL_TURN(id).slice(1));
    const { wire } = await send(messages);
    const sent = wire.flatMap((message) => (message.tool_calls ?? []).map((call) => call.id));
    expect(new Set(sent).size).toBe(ids.length + 1);
    expect(sent[0]).toBe('aB3dE5gH7');
    for (const id of sent) expect(id).toMatch(MISTRAL_TOOL_CALL_ID_PATTERN);
  });

  it('images and PDFs become image_url and document_url chunks, in user messages and tool results', async () => {
    const { wire } = await send([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', mediaType: 'image/png', data: PNG },
          { type: 'image', url: 'https://example.com/cat.jpg' },
          { type: 'file', mediaType: 'application/pdf', data: PDF, filename: 'report.pdf' },
        ],
      },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'aB3dE5gH7', toolName: 'radar', arguments: '{}' }],
      },
      {
        role: 'tool',
        toolCallId: 'aB3dE5gH7',
        toolName: 'radar',
        content: [
          { type: 'text', text: 'Radar image attached.' },
          { type: 'image', mediaType: 'image/png', data: PNG },
        ],
      },
    ]);
    expect(wire[0]?.content).toEqual([
      { type: 'text', text: 'What is this?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
      { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
      {
        type: 'document_url',
        document_url: `data:application/pdf;base64,${PDF}`,
        document_name: 'report.pdf',
      },
    ]);
    expect(wire[2]?.content).toEqual([
      { type: 'text', text: 'Radar image attached.' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
    ]);
  });

  it('a media type Mistral does not take fails before sending, naming the part', async () => {
    const model = testProvider(server)('mistral-large-latest');
    const error = await model
      .generate({
        messages: [{ role: 'user', content: [{ type: 'file', mediaType: 'text/csv', data: 'YSxi' }] }],
      })
      .catch((thrown: unknown) => thrown);
    expect(InvalidRequestError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("Part 0 of message 0 is a file of media type 'text/csv'");
    expect(server.requests).toHaveLength(0);
  });

  it("the model's own thinking goes back as thinking chunks before the text; another provider's is left out and reported", async () => {
    const { wire, adjustments } = await send([
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: 'Checking.',
        toolCalls: [{ id: 'aB3dE5gH7', toolName: 'get_weather', arguments: '{"city":"Paris"}' }],
        reasoning: [
          { type: 'reasoning', provider: 'mistral', text: 'Paris first.', signature: 'c2ln' },
          { type: 'reasoning', provider: 'mistral', text: '', redactedData: 'd2l0aGhlbGQ=' },
          { type: 'reasoning', provider: 'anthropic', text: 'FOREIGN', signature: 'Zm9yZWlnbg==' },
        ],
      },
      { role: 'tool', toolCallId: 'aB3dE5gH7', toolName: 'get_weather', content: '18' },
    ]);
    expect(wire[1]?.content).toEqual([
      { type: 'thinking', thinking: [{ type: 'text', text: 'Paris first.' }], signature: 'c2ln' },
      { type: 'thinking', thinking: [], signature: 'd2l0aGhlbGQ=' },
      { type: 'text', text: 'Checking.' },
    ]);
    expect(server.requests[0]?.raw).not.toContain('FOREIGN');
    expect(adjustments).toEqual([
      expect.objectContaining({
        kind: 'history-rewritten',
        details: expect.objectContaining({ reason: 'foreign-reasoning-dropped' }),
      }),
    ]);
  });
});
