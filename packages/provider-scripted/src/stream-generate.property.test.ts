import { collectStream, type ModelRequest, type StreamPart, type ToolSpec } from '@org/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createScriptedModel,
  createVirtualClock,
  type LatencyProfile,
  type ScriptedModelOptions,
  type ScriptedTurn,
} from './index.js';

const numRuns = Number(process.env.FC_NUM_RUNS ?? 1000);
const timeout = Math.max(60_000, numRuns * 20);

const toolNames = ['get_weather', 'search', 'execute_tool_plan'] as const;
const tools: ToolSpec[] = toolNames.map((name) => ({
  name,
  description: `The ${name} tool.`,
  inputSchema: { type: 'object' },
}));
const request: ModelRequest = { messages: [{ role: 'user', content: 'Plan a trip.' }], tools };

const textArbitrary = fc.oneof(
  fc.lorem({ maxCount: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  fc.string({ unit: 'binary', maxLength: 60 }),
  // Lone surrogates, emoji and a long punctuation run (over 64 characters: counted in slices).
  fc.string({ unit: fc.constantFrom('\ud83d', '\ude00', '😀', 'a', ' ', '['), maxLength: 150 }),
);

// Shown blocks (text, maybe signed) and withheld ones (no text, redacted or encrypted data).
const reasoningArbitrary = fc.array(
  fc.oneof(
    fc.record(
      { text: textArbitrary, signature: fc.base64String({ maxLength: 24 }) },
      { requiredKeys: ['text'] },
    ),
    fc.record({ redactedData: fc.base64String({ maxLength: 24 }), id: fc.string({ maxLength: 8 }) }),
    fc.record({ text: fc.constant(''), encryptedContent: fc.base64String({ maxLength: 24 }) }),
  ),
  { maxLength: 3 },
);

const turnArbitrary: fc.Arbitrary<ScriptedTurn> = fc.record(
  {
    reasoning: reasoningArbitrary,
    text: textArbitrary,
    toolCalls: fc.array(
      fc.record({
        toolName: fc.constantFrom(...toolNames),
        arguments: fc.oneof(
          textArbitrary,
          fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }),
        ),
      }),
      { maxLength: 3 },
    ),
    usage: fc.record({ outputTokens: fc.nat({ max: 300 }) }),
  },
  { requiredKeys: ['text', 'toolCalls'] },
);

const latencyArbitrary: fc.Arbitrary<LatencyProfile> = fc.record({
  timeToFirstTokenMs: fc.double({ min: 0, max: 3000, noNaN: true }),
  perInputTokenMs: fc.double({ min: 0, max: 1, noNaN: true }),
  perOutputTokenMs: fc.double({ min: 0, max: 60, noNaN: true }),
});

const chunkingArbitrary: fc.Arbitrary<
  Pick<ScriptedModelOptions, 'streamChunkTokens' | 'streamChunkCharacters'>
> = fc.oneof(
  fc.constant({}),
  fc.record({ streamChunkTokens: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ streamChunkCharacters: fc.integer({ min: 1, max: 24 }) }),
);

interface TimedPart {
  readonly at: number;
  readonly part: StreamPart;
}

/**
 * The order a streaming consumer relies on: reasoning first, each block's deltas adding up to its text and its
 * `reasoning` part right after its last delta; then the text; then whole calls in order, each complete right after
 * its last delta.
 */
function expectWellOrdered(timed: readonly TimedPart[]): void {
  expect(timed.at(-1)?.part.type).toBe('finish');
  for (let index = 1; index < timed.length; index++) {
    expect(timed[index]?.at).toBeGreaterThanOrEqual(timed[index - 1]?.at as number);
  }
  let thinking: { text: string; lastAt: number | undefined } = { text: '', lastAt: undefined };
  let answerStarted = false;
  let open: { id: string; arguments: string; lastAt: number | undefined } | undefined;
  for (const { at, part } of timed) {
    if (part.type === 'reasoning-delta') {
      expect(answerStarted).toBe(false);
      expect(part.delta).not.toBe('');
      thinking = { text: thinking.text + part.delta, lastAt: at };
      continue;
    }
    if (part.type === 'reasoning') {
      expect(answerStarted).toBe(false);
      expect(part.reasoning.text).toBe(thinking.text);
      if (thinking.lastAt !== undefined) expect(at).toBe(thinking.lastAt);
      thinking = { text: '', lastAt: undefined };
      continue;
    }
    expect(thinking.text).toBe('');
    if (part.type !== 'finish') answerStarted = true;
    if (part.type === 'tool-call-start') {
      expect(open).toBeUndefined();
      open = { id: part.toolCallId, arguments: '', lastAt: undefined };
    } else if (part.type === 'tool-call-delta') {
      expect(part.toolCallId).toBe(open?.id);
      expect(part.argumentsDelta).not.toBe('');
      if (open !== undefined) open = { ...open, arguments: open.arguments + part.argumentsDelta, lastAt: at };
    } else if (part.type === 'tool-call') {
      expect(part.toolCall.id).toBe(open?.id);
      expect(part.toolCall.arguments).toBe(open?.arguments);
      if (open?.lastAt !== undefined) expect(at).toBe(open.lastAt);
      open = undefined;
    } else if (part.type === 'text-delta') {
      expect(open).toBeUndefined();
      expect(part.delta).not.toBe('');
    }
  }
  expect(open).toBeUndefined();
}

describe('stream and generate agree', () => {
  it(
    'property: collectStream(stream) equals generate, and the stream ends at the same virtual time',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          turnArbitrary,
          latencyArbitrary,
          chunkingArbitrary,
          fc.double({ min: 0, max: 1e6, noNaN: true }),
          async (turn, latency, chunking, startAt) => {
            const generateClock = createVirtualClock({ startAt });
            const streamClock = createVirtualClock({ startAt });
            const options = { script: [turn], latency, ...chunking };
            const generated = await createScriptedModel({ ...options, clock: generateClock }).generate(
              request,
            );
            const streaming = createScriptedModel({ ...options, clock: streamClock });
            const timed: TimedPart[] = [];
            const collected = await collectStream(
              (async function* record(): AsyncGenerator<StreamPart> {
                for await (const part of streaming.stream(request)) {
                  timed.push({ at: streamClock.now(), part });
                  yield part;
                }
              })(),
            );
            expect(collected).toEqual(generated);
            expect(generated.reasoning?.length ?? 0).toBe(turn.reasoning?.length ?? 0);
            expect(streamClock.now()).toBe(generateClock.now());
            expectWellOrdered(timed);
            const text = timed.map(({ part }) => (part.type === 'text-delta' ? part.delta : '')).join('');
            expect(text).toBe(generated.text);
          },
        ),
        { numRuns },
      );
    },
    timeout,
  );
});
