import type { ModelRequest, StreamPart, ToolCall } from '@org/core';
import { expect } from 'vitest';
import { type ConformanceCase, missingHarnessCapability, registerCases } from './conformance-case.js';
import { CONFORMANCE_TOOLS, HISTORY_WITHOUT_TOOL_CALLS } from './conformance-fixtures.js';
import { readStream } from './drive-model.js';
import { expectToolCalls } from './expectations.js';
import type { ConformanceHarness, ResponseReply } from './harness.js';
import { withFixture } from './with-fixture.js';

const REQUEST: ModelRequest = { messages: HISTORY_WITHOUT_TOOL_CALLS, tools: CONFORMANCE_TOOLS };

const FIRST: ToolCall = {
  id: 'call_first',
  toolName: 'get_weather',
  arguments: '{"city":"Paris","unit":"celsius"}',
};
const SECOND: ToolCall = {
  id: 'call_second',
  toolName: 'search_docs',
  arguments: '{"query":"rain policy","limit":3}',
};

const TWO_CALLS: ResponseReply = {
  type: 'response',
  toolCalls: [FIRST, SECOND],
  usage: { inputTokens: 40, outputTokens: 30 },
};

/** The parts' order, for a failure message: `tool-call-start call_first, tool-call-delta call_first, ...`. */
function describeOrder(parts: readonly StreamPart[]): string {
  return parts
    .flatMap((part) => {
      if (part.type === 'tool-call-start' || part.type === 'tool-call-delta')
        return [`${part.type} ${part.toolCallId}`];
      if (part.type === 'tool-call') return [`tool-call ${part.toolCall.id}`];
      return part.type === 'finish' || part.type === 'error' ? [part.type] : [];
    })
    .filter((entry, position, list) => entry !== list[position - 1])
    .join(', ');
}

/**
 * The early-completion case: with a reply of two tool calls, the first call's `tool-call` part comes before the
 * second call's `tool-call-start`, because a call is complete as soon as the wire says so, and an agent loop starts
 * an eager tool then, while the model still writes the rest of its answer. The case needs a stream that shows the
 * calls one after the other: where the order fails and the harness does not declare
 * `capabilities.sequentialToolCalls`, it fails naming that capability (a fake server that interleaves calls cannot
 * show the order); a model without a network, which renders the calls in order, needs nothing.
 */
export function earlyToolCallCases(harness: ConformanceHarness): ConformanceCase[] {
  return [
    {
      name: "two tool calls: the first call's tool-call part comes before the second call's tool-call-start",
      run: async () => {
        await withFixture(harness, async (fixture) => {
          fixture.enqueue(TWO_CALLS);
          const { parts, threw, thrown } = await readStream(fixture.model.stream(REQUEST));
          expect(threw, `stream() threw: ${String(thrown)}`).toBe(false);
          expect(parts.at(-1)?.type, `the stream ends with finish: ${describeOrder(parts)}`).toBe('finish');
          const calls = parts.flatMap((part) => (part.type === 'tool-call' ? [part.toolCall] : []));
          expectToolCalls(calls, [FIRST, SECOND]);
          const firstComplete = parts.findIndex(
            (part) => part.type === 'tool-call' && part.toolCall.id === FIRST.id,
          );
          const secondStart = parts.findIndex(
            (part) => part.type === 'tool-call-start' && part.toolCallId === SECOND.id,
          );
          expect(secondStart, `a tool-call-start part for ${SECOND.id}`).toBeGreaterThanOrEqual(0);
          if (firstComplete < secondStart) return;
          if (harness.capabilities?.sequentialToolCalls !== true) {
            throw missingHarnessCapability(
              harness,
              'sequentialToolCalls',
              "a stream of a reply's tool calls one after the other (each call's start, argument deltas and end " +
                `before the next call begins), as the provider sends them; the stream gave: ${describeOrder(parts)}`,
            );
          }
          expect.fail(
            `The tool-call part of ${FIRST.id} must come as soon as the wire shows the call complete, before ` +
              `${SECOND.id} starts, so an agent loop can start it early; the stream gave: ${describeOrder(parts)}`,
          );
        });
      },
    },
  ];
}

/** Registers the early-completion case. */
export function registerEarlyToolCallCases(harness: ConformanceHarness): void {
  registerCases('tool calls complete early', earlyToolCallCases(harness));
}
