import {
  collectStream,
  IncompleteToolCallError,
  ProviderError,
  StreamInterruptedError,
  type StreamPart,
  type ToolCall,
} from '@org/core';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeMistralServer, startFakeMistralServer } from './fake-mistral-server.js';
import { testProvider } from './test-provider.js';

const RUNS = Number(process.env.FC_NUM_RUNS ?? 40);
const MESSAGES = [{ role: 'user', content: 'Weather in Paris and Lyon?' }] as const;
const PARIS: ToolCall = { id: 'pAr1s0000', toolName: 'get_weather', arguments: '{"city":"Paris"}' };
const LYON: ToolCall = { id: 'lY0n00000', toolName: 'get_weather', arguments: '{"city":"Lyon"}' };

let server: FakeMistralServer;
beforeEach(async () => {
  server = await startFakeMistralServer();
});
afterEach(async () => {
  await server.close();
});

async function parts(): Promise<StreamPart[]> {
  const collected: StreamPart[] = [];
  for await (const part of testProvider(server)('mistral-large-latest').stream({ messages: MESSAGES })) {
    collected.push(part);
  }
  return collected;
}

/** One SSE `data:` line of a chunk with this delta (and finish reason / usage when given). */
function chunk(
  delta: Record<string, unknown>,
  extra: { finish?: string; usage?: Record<string, number> } = {},
): string {
  return `data: ${JSON.stringify({
    id: 'cmpl-raw',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'mistral-large-latest',
    choices: [{ index: 0, delta, finish_reason: extra.finish ?? null }],
    ...(extra.usage === undefined ? {} : { usage: extra.usage }),
  })}`;
}

const callDelta = (call: ToolCall, index: number, args = call.arguments): Record<string, unknown> => ({
  tool_calls: [{ id: call.id, function: { name: call.toolName, arguments: args }, index }],
});

const last = (collected: readonly StreamPart[]): StreamPart | undefined => collected.at(-1);
const errorOf = (collected: readonly StreamPart[]): unknown => {
  const part = last(collected);
  return part?.type === 'error' ? part.error : undefined;
};

describe('stream assembly', () => {
  it('parallel calls sent whole in one delta (as Mistral does): each emitted in order, before the next starts, with usage from the stream', async () => {
    server.enqueue({
      type: 'response',
      toolCalls: [PARIS, LYON],
      usage: { inputTokens: 21, outputTokens: 9 },
    });
    const collected = await parts();
    expect(collected.map((part) => part.type)).toEqual([
      'tool-call-start',
      'tool-call-delta',
      'tool-call',
      'tool-call-start',
      'tool-call-delta',
      'tool-call',
      'finish',
    ]);
    expect(collected.filter((part) => part.type === 'tool-call').map((part) => part.toolCall)).toEqual([
      PARIS,
      LYON,
    ]);
    const finish = last(collected);
    expect(finish?.type === 'finish' && finish.usage).toEqual({
      inputTokens: 21,
      outputTokens: 9,
      totalTokens: 30,
    });
    expect(finish?.type === 'finish' && finish.finishReason).toBe('tool-calls');
  });

  it('assembles arguments split over deltas and emits the call once they are a whole object', async () => {
    server.enqueue({ type: 'split', reply: { type: 'response', toolCalls: [PARIS, LYON] } });
    const collected = await parts();
    const calls = collected.filter((part) => part.type === 'tool-call').map((part) => part.toolCall);
    expect(calls).toEqual([PARIS, LYON]);
    const firstCall = collected.findIndex((part) => part.type === 'tool-call');
    const secondStart = collected.findIndex(
      (part) => part.type === 'tool-call-start' && part.toolCallId === LYON.id,
    );
    expect(firstCall).toBeLessThan(secondStart);
  });

  it('a stream cut before a call completes ends with IncompleteToolCallError, the call never emitted', async () => {
    server.enqueue({
      type: 'raw-stream',
      events: [chunk({ role: 'assistant', content: 'Checking ' }), chunk(callDelta(PARIS, 0, '{"city":"Pa'))],
    });
    const collected = await parts();
    expect(collected.some((part) => part.type === 'tool-call' || part.type === 'finish')).toBe(false);
    const error = errorOf(collected);
    expect(IncompleteToolCallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      toolCallId: PARIS.id,
      toolName: 'get_weather',
      partialArguments: '{"city":"Pa',
    });
  });

  it('a complete call before the cut goes out; the cut one is the IncompleteToolCallError', async () => {
    server.enqueue({
      type: 'raw-stream',
      events: [chunk(callDelta(PARIS, 0)), chunk(callDelta(LYON, 1, '{"ci'))],
    });
    const collected = await parts();
    expect(collected.filter((part) => part.type === 'tool-call').map((part) => part.toolCall)).toEqual([
      PARIS,
    ]);
    expect(errorOf(collected)).toMatchObject({ code: 'incomplete_tool_call', toolCallId: LYON.id });
  });

  it('a stream that ends without its finish reason and no open call is a StreamInterruptedError with the text', async () => {
    server.enqueue({ type: 'raw-stream', events: [chunk({ content: 'Half an ans' })] });
    const error = errorOf(await parts());
    expect(StreamInterruptedError.isInstance(error)).toBe(true);
    expect((error as StreamInterruptedError).partialText).toBe('Half an ans');
  });

  it('a length stop that cuts the last call off is an IncompleteToolCallError', async () => {
    server.enqueue({
      type: 'raw-stream',
      events: [chunk(callDelta(PARIS, 0, '{"city":"Par'), { finish: 'length' }), 'data: [DONE]'],
    });
    const error = errorOf(await parts());
    expect(error).toMatchObject({ code: 'incomplete_tool_call', finishReason: 'length' });
  });

  it('argument text after a call went out is a malformed stream, never a changed call', async () => {
    server.enqueue({
      type: 'raw-stream',
      events: [
        chunk(callDelta(PARIS, 0)),
        chunk({ tool_calls: [{ id: PARIS.id, function: { name: '', arguments: ',"x":1}' }, index: 0 }] }),
        chunk({ content: '' }, { finish: 'tool_calls' }),
        'data: [DONE]',
      ],
    });
    const error = errorOf(await parts());
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as ProviderError).providerCode).toBe('invalid_stream_event');
  });

  it('anything of the answer after the finish reason is a malformed stream', async () => {
    server.enqueue({
      type: 'raw-stream',
      events: [chunk({ content: 'Done.' }, { finish: 'stop' }), chunk(callDelta(PARIS, 0)), 'data: [DONE]'],
    });
    const collected = await parts();
    expect(collected.some((part) => part.type === 'tool-call')).toBe(false);
    expect((errorOf(collected) as ProviderError).providerCode).toBe('invalid_stream_event');
  });

  it('an event that is not a chunk ends the stream with a typed error', async () => {
    server.enqueue({
      type: 'raw-stream',
      events: [chunk({ content: 'Hi' }), 'data: {"object":"error","message":"boom"}'],
    });
    const error = errorOf(await parts());
    expect(StreamInterruptedError.isInstance(error)).toBe(true);
    expect((error as StreamInterruptedError).providerCode).toBe('invalid_stream_event');
  });

  it('property: however the arguments are split over deltas, the same calls come out', async () => {
    const argumentsText = fc
      .dictionary(
        fc.constantFrom('city', 'unit', 'days', 'note'),
        fc.oneof(fc.string(), fc.integer(), fc.boolean()),
        {
          minKeys: 1,
        },
      )
      .map((value) => JSON.stringify(value));
    await fc.assert(
      fc.asyncProperty(
        fc.array(argumentsText, { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 9 }),
        async (texts, size) => {
          const calls = texts.map((text, index) => ({
            id: `c${index}aaaaaaa`,
            toolName: 'get_weather',
            arguments: text,
          }));
          const events = calls.flatMap((call, index) => {
            const pieces = call.arguments.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? [];
            return pieces.map((piece, position) =>
              chunk({
                tool_calls: [
                  {
                    id: call.id,
                    function: { name: position === 0 ? call.toolName : '', arguments: piece },
                    index,
                  },
                ],
              }),
            );
          });
          server.enqueue({
            type: 'raw-stream',
            events: [...events, chunk({ content: '' }, { finish: 'tool_calls' }), 'data: [DONE]'],
          });
          const streamed = await collectStream(
            testProvider(server)('mistral-large-latest').stream({ messages: MESSAGES }),
          );
          expect(streamed.toolCalls).toEqual(calls);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
