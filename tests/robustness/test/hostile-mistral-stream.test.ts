/**
 * Hostile Mistral streams (issue 25): whatever chunks a server sends (valid, malformed, interleaved, cut), the
 * Mistral adapter, through the real @mistralai/mistralai SDK, yields a well-formed stream: it never throws, ends with
 * exactly one `finish` or `error` part, every `tool-call` part carries a whole JSON object once, and an incomplete
 * call never surfaces.
 */
import { readStrictJson, type StreamPart } from '@org/core';
import { createMistral } from '@org/provider-mistral';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeHttpServer, sseReply, startFakeHttpServer } from './support/fake-http-server.js';
import { NUM_RUNS, propertyTimeout } from './support/run-helpers.js';

const RUNS = Math.min(NUM_RUNS, 200);

let server: FakeHttpServer;
beforeAll(async () => {
  server = await startFakeHttpServer();
});
afterAll(async () => {
  await server.close();
});

const chunk = (delta: unknown, extra: Record<string, unknown> = {}): object => ({
  id: 'cmpl-fuzz',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta, finish_reason: null }],
  ...extra,
});

const id = fc.oneof(
  fc.stringMatching(/^[a-zA-Z0-9]{9}$/),
  fc.constantFrom('__proto__', 'constructor', 'null', ''),
);
const argumentText = fc.oneof(
  fc.json(),
  fc.string(),
  fc.constantFrom('{', '{"a":', '"}', '}', '{"x":1}', '{}', ' ', '[1]'),
);

const delta = fc.oneof(
  fc.record({ content: fc.string() }),
  fc.record({
    content: fc.array(
      fc.oneof(
        fc.record({ type: fc.constant('text'), text: fc.string() }),
        fc.record({
          type: fc.constant('thinking'),
          thinking: fc.array(fc.record({ type: fc.constant('text'), text: fc.string() }), { maxLength: 2 }),
          signature: fc.option(fc.string(), { nil: undefined }),
        }),
      ),
      { maxLength: 3 },
    ),
  }),
  fc.record({
    tool_calls: fc.array(
      fc.record({
        id,
        function: fc.record({ name: fc.constantFrom('get_weather', 'search', ''), arguments: argumentText }),
        index: fc.integer({ min: 0, max: 3 }),
      }),
      { minLength: 1, maxLength: 3 },
    ),
  }),
);

const event = fc.oneof(
  { weight: 6, arbitrary: delta.map((value) => chunk(value)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('stop', 'tool_calls', 'length', 'error', 'weird').map((finish) => ({
      ...chunk({ content: '' }),
      choices: [{ index: 0, delta: { content: '' }, finish_reason: finish }],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    })),
  },
  { weight: 1, arbitrary: fc.oneof(fc.string(), fc.json()) },
);

async function read(stream: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe('hostile Mistral streams', () => {
  it(
    'any sequence of chunks: one terminal part, last; a tool call once, whole unless the model finished with it so',
    async () => {
      const model = createMistral({ apiKey: 'fuzz-key', serverURL: server.baseURL, maxRetries: 0 })('m');
      await fc.assert(
        fc.asyncProperty(fc.array(event, { maxLength: 12 }), fc.boolean(), async (events, done) => {
          server.enqueue(sseReply(events, { done }));
          const parts = await read(model.stream({ messages: [{ role: 'user', content: 'go' }] }));
          const terminal = parts.filter((part) => part.type === 'finish' || part.type === 'error');
          expect(terminal).toHaveLength(1);
          expect(parts.at(-1)).toBe(terminal[0]);
          const seen = new Set<string>();
          const finished = terminal[0]?.type === 'finish';
          for (const part of parts) {
            if (part.type !== 'tool-call') continue;
            expect(seen.has(part.toolCall.id)).toBe(false);
            seen.add(part.toolCall.id);
            const read = readStrictJson(part.toolCall.arguments);
            const whole =
              read.ok && typeof read.value === 'object' && read.value !== null && !Array.isArray(read.value);
            // Only a stream that finished hands on a call that never became a whole object (the model's own text,
            // as generate() returns it); a cut stream never does.
            expect(whole || finished).toBe(true);
          }
        }),
        { numRuns: RUNS },
      );
    },
    propertyTimeout(20),
  );
});
