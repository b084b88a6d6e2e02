import {
  collectStream,
  type ModelRequest,
  ProviderError,
  StreamInterruptedError,
  type StreamPart,
  ToolChoice,
} from '@org/core';
import { describe, expect, it } from 'vitest';
import { sseReply } from './fake-openai-server.js';
import { SEARCH_TOOL, USER_ONLY, WEATHER_TOOL, withTestModel } from './test-provider.js';

// A call's `tool-call` part comes as soon as the wire shows the call complete, while the model still writes the rest
// of its answer, so that an agent loop can start an eager tool early (issue #15). Through the real SDK.

const REQUEST: ModelRequest = { messages: USER_ONLY, tools: [WEATHER_TOOL, SEARCH_TOOL] };

const TWO_CALLS = {
  type: 'response',
  toolCalls: [
    { id: 'call_a', toolName: 'get_weather', arguments: '{"city":"Paris"}' },
    { id: 'call_b', toolName: 'search_docs', arguments: '{"query":"rain policy"}' },
  ],
  usage: { inputTokens: 9, outputTokens: 6 },
} as const;

async function read(stream: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

/** `start call_a`, `call call_a`, ... for the tool parts; the other part types as they are. */
const outline = (parts: readonly StreamPart[]): string[] =>
  parts.flatMap((part) => {
    if (part.type === 'tool-call-start') return [`start ${part.toolCallId}`];
    if (part.type === 'tool-call') return [`call ${part.toolCall.id}`];
    return part.type === 'tool-call-delta' ? [] : [part.type];
  });

const chunk = (toolCall: object): object => ({
  id: 'chatcmpl-early',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'gpt-test',
  choices: [{ index: 0, delta: { tool_calls: [toolCall] }, finish_reason: null }],
});

describe('tool calls complete early in the stream', () => {
  for (const api of ['chat', 'responses'] as const) {
    it(`${api}: the first call goes out before the second starts, and the stream still collects to generate()`, async () => {
      await withTestModel({ api, toolCallOrder: 'sequential' }, async ({ server, model }) => {
        server.enqueue(TWO_CALLS, TWO_CALLS);
        const parts = await read(model.stream(REQUEST));
        expect(outline(parts)).toEqual([
          'start call_a',
          'call call_a',
          'start call_b',
          'call call_b',
          'finish',
        ]);
        const generated = await model.generate(REQUEST);
        const streamed = await collectStream(
          (async function* () {
            yield* parts;
          })(),
        );
        expect(streamed.toolCalls).toEqual(generated.toolCalls);
        expect(streamed.finishReason).toBe(generated.finishReason);
      });
    });

    it(`${api}: a call the emulated choice rejects never shows, and the accepted ones still go out early`, async () => {
      await withTestModel(
        {
          api,
          toolCallOrder: 'sequential',
          capabilities: { toolChoice: { tool: 'emulated', required: 'emulated' } },
        },
        async ({ server, model }) => {
          server.enqueue({
            type: 'response',
            toolCalls: [
              { id: 'call_other', toolName: 'search_docs', arguments: '{"query":"umbrella"}' },
              { id: 'call_paris', toolName: 'get_weather', arguments: '{"city":"Paris"}' },
              { id: 'call_oslo', toolName: 'get_weather', arguments: '{"city":"Oslo"}' },
            ],
          });
          const parts = await read(model.stream({ ...REQUEST, toolChoice: ToolChoice.tool('get_weather') }));
          expect(outline(parts)).toEqual([
            'start call_paris',
            'call call_paris',
            'start call_oslo',
            'call call_oslo',
            'finish',
          ]);
          // Reported on the finish part only.
          expect(JSON.stringify(parts.slice(0, -1))).not.toContain('call_other');
          const finish = parts.at(-1);
          expect(finish?.type === 'finish' ? finish.adjustments.map((item) => item.kind) : []).toContain(
            'tool-calls-rejected',
          );
        },
      );
    });
  }

  it('chat: with the argument deltas of calls interleaved, each call goes out once its object is whole, in order', async () => {
    await withTestModel({ api: 'chat', toolCallOrder: 'interleaved' }, async ({ server, model }) => {
      server.enqueue(TWO_CALLS, TWO_CALLS);
      const parts = await read(model.stream(REQUEST));
      const early = parts.findIndex((part) => part.type === 'tool-call');
      // call_a ("{"city":"Paris"}") is whole before call_b's last delta: it goes out while call_b still streams.
      expect(parts[early]).toMatchObject({ toolCall: { id: 'call_a' } });
      expect(
        parts.slice(early).some((part) => part.type === 'tool-call-delta' && part.toolCallId === 'call_b'),
      ).toBe(true);
      const streamed = await collectStream(
        (async function* () {
          yield* parts;
        })(),
      );
      expect(streamed.toolCalls).toEqual((await model.generate(REQUEST)).toolCalls);
    });
  });

  it('chat: a server sending more arguments for a call already emitted ends the stream with a typed error', async () => {
    await withTestModel({ api: 'chat' }, async ({ server, model }) => {
      server.enqueue(
        sseReply([
          chunk({
            index: 0,
            id: 'call_a',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          }),
          chunk({
            index: 1,
            id: 'call_b',
            type: 'function',
            function: { name: 'search_docs', arguments: '{"query":' },
          }),
          chunk({ index: 0, function: { arguments: ',"unit":"celsius"}' } }),
          chunk({ index: 1, function: { arguments: '"rain"}' } }),
        ]),
      );
      const parts = await read(model.stream(REQUEST));
      expect(outline(parts)).toEqual(['start call_a', 'call call_a', 'start call_b', 'error']);
      const last = parts.at(-1);
      const error = last?.type === 'error' ? last.error : undefined;
      expect(ProviderError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ providerCode: 'invalid_stream_event' });
    });
  });

  it('chat: a stream that breaks after a call went out still ends with its error part', async () => {
    await withTestModel({ api: 'chat' }, async ({ server, model }) => {
      server.enqueue(
        sseReply(
          [
            chunk({
              index: 0,
              id: 'call_a',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            }),
            chunk({
              index: 1,
              id: 'call_b',
              type: 'function',
              function: { name: 'search_docs', arguments: '{"que' },
            }),
          ],
          { destroy: true },
        ),
      );
      const parts = await read(model.stream(REQUEST));
      expect(outline(parts)).toEqual(['start call_a', 'call call_a', 'start call_b', 'error']);
      const last = parts.at(-1);
      expect(StreamInterruptedError.isInstance(last?.type === 'error' ? last.error : undefined)).toBe(true);
    });
  });
});
