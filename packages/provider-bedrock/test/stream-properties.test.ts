import { collectStream, type StreamPart } from '@org/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeBedrockServer, type StreamItem, startFakeBedrock } from './fake-bedrock-server.js';
import { createTestBedrock } from './test-provider.js';

let server: FakeBedrockServer;
beforeAll(async () => {
  server = await startFakeBedrock();
});
afterAll(async () => {
  await server.close();
});

const callArbitrary = fc.record({
  id: fc.stringMatching(/^tooluse_[A-Za-z0-9]{4,10}$/),
  name: fc.constantFrom('get_weather', 'search_docs', 'lookup'),
  args: fc.dictionary(
    fc.string({ minLength: 1, maxLength: 6 }),
    fc.oneof(fc.string(), fc.integer(), fc.boolean()),
  ),
  cuts: fc.array(fc.nat(), { maxLength: 5 }),
});

/** Splits `text` at the given cut points (taken modulo its length), keeping every character. */
function split(text: string, cuts: readonly number[]): string[] {
  const points = [...new Set(cuts.map((cut) => (text.length === 0 ? 0 : cut % text.length)))].sort(
    (a, b) => a - b,
  );
  const pieces: string[] = [];
  let start = 0;
  for (const point of points) {
    if (point > start) pieces.push(text.slice(start, point));
    start = Math.max(start, point);
  }
  pieces.push(text.slice(start));
  return pieces.filter((piece) => piece !== '');
}

describe('stream assembly through the SDK and binary frames (property)', () => {
  it('any split of text and tool inputs, any interleaving of blocks: the same text and calls come back', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 40 }),
        fc.array(fc.nat(), { maxLength: 5 }),
        fc.uniqueArray(callArbitrary, { maxLength: 3, selector: (call) => call.id }),
        fc.array(fc.nat(), { maxLength: 40 }),
        fc.boolean(),
        async (text, textCuts, calls, order, metadataFirst) => {
          const queues: StreamItem[][] = [
            split(text, textCuts).map((piece) => ({
              event: 'contentBlockDelta',
              payload: { contentBlockIndex: 0, delta: { text: piece } },
            })),
            ...calls.map((call, offset): StreamItem[] => [
              {
                event: 'contentBlockStart',
                payload: {
                  contentBlockIndex: offset + 1,
                  start: { toolUse: { toolUseId: call.id, name: call.name } },
                },
              },
              ...split(JSON.stringify(call.args), call.cuts).map((input) => ({
                event: 'contentBlockDelta',
                payload: { contentBlockIndex: offset + 1, delta: { toolUse: { input } } },
              })),
              { event: 'contentBlockStop', payload: { contentBlockIndex: offset + 1 } },
            ]),
          ];
          const items: StreamItem[] = [];
          for (const pick of order) {
            const open = queues.filter((queue) => queue.length > 0);
            if (open.length === 0) break;
            const next = open[pick % open.length]?.shift();
            if (next !== undefined) items.push(next);
          }
          for (const queue of queues) items.push(...queue.splice(0));
          const stop: StreamItem = {
            event: 'messageStop',
            payload: { stopReason: calls.length > 0 ? 'tool_use' : 'end_turn' },
          };
          const metadata: StreamItem = {
            event: 'metadata',
            payload: { usage: { inputTokens: 2, outputTokens: 3, totalTokens: 5 } },
          };
          items.push(...(metadataFirst ? [metadata, stop] : [stop, metadata]));
          server.enqueue({ stream: items });

          const model = createTestBedrock(server).provider('m');
          const parts: StreamPart[] = [];
          for await (const part of model.stream({ messages: [{ role: 'user', content: 'go' }] }))
            parts.push(part);
          const response = await collectStream(
            (async function* () {
              yield* parts;
            })(),
          );
          expect(response.text).toBe(text);
          expect(
            response.toolCalls.map((call) => ({ ...call, arguments: JSON.parse(call.arguments) as unknown })),
          ).toEqual(calls.map((call) => ({ id: call.id, toolName: call.name, arguments: call.args })));
          expect(response.usage.totalTokens).toBe(5);
          expect(parts.at(-1)?.type).toBe('finish');
        },
      ),
      { numRuns: 100 },
    );
    // One HTTP/2 request per run: allow for a busy machine (this is a bound, not a timed assertion).
  }, 120_000);
});
