import { collectStream, type ModelRequest, type StreamPart } from '@org/core';
import { describe, expect, it } from 'vitest';
import { CONFORMANCE_TOOLS, HISTORY_WITH_TOOL_CALLS } from './conformance-fixtures.js';
import { readStream } from './drive-model.js';
import { expectToolCalls } from './expectations.js';
import type { ConformanceHarness, ResponseReply } from './harness.js';
import { withFixture } from './with-fixture.js';

const REQUEST: ModelRequest = { messages: HISTORY_WITH_TOOL_CALLS, tools: CONFORMANCE_TOOLS };

const REPLIES: readonly (readonly [string, ResponseReply])[] = [
  [
    'text only',
    {
      type: 'response',
      text: 'Paris: 18 °C and sunny. No rain policy found.',
      usage: { inputTokens: 31, outputTokens: 14 },
    },
  ],
  [
    'text and two tool calls',
    {
      type: 'response',
      text: 'Checking both.',
      toolCalls: [
        { id: 'call_a', toolName: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
        {
          id: 'call_b',
          toolName: 'search_docs',
          arguments: '{"query":"rain \\"policy\\" ünïcødé","limit":2}',
        },
      ],
      usage: { inputTokens: 52, outputTokens: 33 },
    },
  ],
  [
    'a tool call without arguments',
    {
      type: 'response',
      toolCalls: [{ id: 'call_empty', toolName: 'search_docs', arguments: '{}' }],
      usage: { inputTokens: 20, outputTokens: 4 },
    },
  ],
  [
    'cut off by the token limit',
    {
      type: 'response',
      text: 'The weather in Paris is',
      finishReason: 'length',
      usage: { inputTokens: 9, outputTokens: 5 },
    },
  ],
];

/** The stream's structure, and `stream()` collected equals `generate()` for the same answer. */
export function registerStreamCases(harness: ConformanceHarness): void {
  describe('stream and generate agree', () => {
    for (const [name, reply] of REPLIES) {
      it(`${name}: collectStream(stream()) equals generate()`, async () => {
        await withFixture(harness, async (fixture) => {
          fixture.enqueue(reply);
          fixture.enqueue(reply);
          const generated = await fixture.model.generate(REQUEST);
          const streamed = await collectStream(fixture.model.stream(REQUEST));
          for (const response of [generated, streamed]) {
            expect(response.text).toBe(reply.text ?? '');
            expectToolCalls(response.toolCalls, reply.toolCalls ?? []);
            expect(response.finishReason).toBe(
              reply.finishReason ?? ((reply.toolCalls?.length ?? 0) > 0 ? 'tool-calls' : 'stop'),
            );
            expect(response.usage.inputTokens).toBe(reply.usage?.inputTokens);
            expect(response.usage.outputTokens).toBe(reply.usage?.outputTokens);
          }
          expect(streamed.toolCalls).toEqual(generated.toolCalls);
          expect(streamed.adjustments.map((item) => item.kind)).toEqual(
            generated.adjustments.map((item) => item.kind),
          );
          expect(fixture.requests().map((request) => request.stream)).toEqual([false, true]);
        });
      });

      it(`${name}: the stream is well formed`, async () => {
        await withFixture(harness, async (fixture) => {
          fixture.enqueue(reply);
          const { parts, threw, thrown } = await readStream(fixture.model.stream(REQUEST));
          expect(threw, `stream() threw: ${String(thrown)}`).toBe(false);
          expectWellFormed(parts);
        });
      });
    }
  });
}

/**
 * One `finish` part, last; every `tool-call` part once per id, after its `tool-call-start` (when one was sent), with
 * arguments equal to the concatenated deltas of that id (when any non-empty deltas were sent).
 */
function expectWellFormed(parts: readonly StreamPart[]): void {
  expect(
    parts.filter((part) => part.type === 'finish'),
    'one finish part',
  ).toHaveLength(1);
  expect(parts.at(-1)?.type, 'finish is last').toBe('finish');
  expect(
    parts.some((part) => part.type === 'error'),
    'no error part',
  ).toBe(false);
  const started = new Set<string>();
  const deltas = new Map<string, string>();
  const completed = new Set<string>();
  for (const part of parts) {
    if (part.type === 'tool-call-start') {
      expect(started.has(part.toolCallId), `one start for ${part.toolCallId}`).toBe(false);
      started.add(part.toolCallId);
    } else if (part.type === 'tool-call-delta') {
      expect(completed.has(part.toolCallId), `no delta after ${part.toolCallId} completed`).toBe(false);
      deltas.set(part.toolCallId, (deltas.get(part.toolCallId) ?? '') + part.argumentsDelta);
    } else if (part.type === 'tool-call') {
      const { id } = part.toolCall;
      expect(completed.has(id), `one tool-call part for ${id}`).toBe(false);
      completed.add(id);
      const streamed = deltas.get(id) ?? '';
      // Some providers stream nothing for an empty argument object and complete it as `{}`.
      if (streamed !== '') expect(part.toolCall.arguments, `deltas of ${id} add up`).toBe(streamed);
    }
  }
}
