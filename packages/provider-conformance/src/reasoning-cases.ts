import type { Message, ModelRequest, ReasoningPart, StreamPart, ToolCall } from '@org/core';
import { expect } from 'vitest';
import {
  type ConformanceCase,
  missingHarnessCapability,
  missingProjection,
  registerCases,
} from './conformance-case.js';
import { CONFORMANCE_TOOLS, HISTORY_WITHOUT_TOOL_CALLS } from './conformance-fixtures.js';
import { type CallMode, callModel, readStream } from './drive-model.js';
import { expectToolCalls, hasAdjustment, wireToolCallId } from './expectations.js';
import type {
  ConformanceFixture,
  ConformanceHarness,
  ResponseReply,
  ScriptedReasoning,
  WireMessage,
  WireReasoning,
  WireRequest,
} from './harness.js';
import { withFixture } from './with-fixture.js';

const CALL_MODES: readonly CallMode[] = ['generate', 'stream'];

/** A block shown to the caller and signed (or encrypted) by the provider. */
const SIGNED: ScriptedReasoning = {
  text: 'The user asks about Paris. get_weather answers that; call it in celsius.',
  signature: 'c2lnbmF0dXJlLWNvbmZvcm1hbmNlLTE=',
  id: 'rs_conformance_1',
  encryptedContent: 'ZW5jcnlwdGVkLWNvbmZvcm1hbmNlLTE=',
};

/** A block the provider withheld: no text, only data to send back. */
const WITHHELD: ScriptedReasoning = {
  text: '',
  redactedData: 'cmVkYWN0ZWQtY29uZm9ybWFuY2UtMg==',
  id: 'rs_conformance_2',
  encryptedContent: 'ZW5jcnlwdGVkLWNvbmZvcm1hbmNlLTI=',
};

const REASONED_CALL: ToolCall = {
  id: 'call_reasoned',
  toolName: 'get_weather',
  arguments: '{"city":"Paris","unit":"celsius"}',
};

const REPLIES: readonly (readonly [string, ResponseReply])[] = [
  [
    'a signed reasoning block, then text and a tool call',
    {
      type: 'response',
      reasoning: [SIGNED],
      text: 'Checking the weather.',
      toolCalls: [REASONED_CALL],
      usage: { inputTokens: 40, outputTokens: 60 },
    },
  ],
  [
    'a signed and a withheld reasoning block, then text',
    {
      type: 'response',
      reasoning: [SIGNED, WITHHELD],
      text: 'Paris is sunny, 18 °C.',
      usage: { inputTokens: 40, outputTokens: 80 },
    },
  ],
];

const REQUEST: ModelRequest = { messages: HISTORY_WITHOUT_TOOL_CALLS, tools: CONFORMANCE_TOOLS };

const FOREIGN_TEXT = 'FOREIGN-THOUGHT: another provider reasoned here and must not be quoted.';
const FOREIGN_SIGNATURE = 'Zm9yZWlnbi1zaWduYXR1cmUtbXVzdC1zdGF5LW9mZi10aGUtd2lyZQ==';

/** The scripted block as a `ReasoningPart` the model under test produced, as it comes back in a history. */
function ownPart(provider: string, block: ScriptedReasoning): ReasoningPart {
  return { type: 'reasoning', provider, ...block };
}

/** A tool turn whose assistant message carries `reasoning`, answered by its result: the model continues from it. */
function historyWithReasoning(reasoning: readonly ReasoningPart[]): Message[] {
  return [
    ...HISTORY_WITHOUT_TOOL_CALLS,
    { role: 'assistant', content: '', toolCalls: [REASONED_CALL], reasoning },
    {
      role: 'tool',
      toolCallId: REASONED_CALL.id,
      toolName: REASONED_CALL.toolName,
      content: '{"temperature":18,"sky":"sunny"}',
    },
  ];
}

const OPAQUE_FIELDS = ['signature', 'redactedData', 'id', 'encryptedContent'] as const;

/**
 * A returned or sent-back block matches its scripted source: every opaque field present is the scripted one, and
 * it keeps what the provider needs to take it back (the signature or the encrypted form for a shown block, the
 * redacted data or the encrypted form for a withheld one).
 */
function expectSameBlock(actual: WireReasoning, expected: ScriptedReasoning, label: string): void {
  for (const field of OPAQUE_FIELDS) {
    if (actual[field] !== undefined) expect(actual[field], `${label}: ${field}`).toBe(expected[field]);
  }
  const keeps =
    expected.text === ''
      ? actual.redactedData === expected.redactedData || actual.encryptedContent === expected.encryptedContent
      : actual.signature === expected.signature || actual.encryptedContent === expected.encryptedContent;
  expect(
    keeps,
    `${label} keeps what the provider needs to take it back (${expected.text === '' ? 'redactedData or encryptedContent' : 'signature or encryptedContent'}), got ${JSON.stringify(actual)}`,
  ).toBe(true);
}

/** The response's reasoning is the scripted blocks, in order, marked as this model's provider's. */
function expectReasoning(
  actual: readonly ReasoningPart[] | undefined,
  expected: readonly ScriptedReasoning[],
  provider: string,
): void {
  expect(actual?.length ?? 0, 'reasoning parts in the response').toBe(expected.length);
  expected.forEach((block, index) => {
    const part = actual?.[index];
    const label = `reasoning part ${index}`;
    expect(part?.type, `${label}: type`).toBe('reasoning');
    expect(part?.provider, `${label}: provider (the model's own)`).toBe(provider);
    expect(part?.text, `${label}: text`).toBe(block.text);
    if (part !== undefined) expectSameBlock(part, block, label);
  });
}

/**
 * Reasoning streams first: each block's `reasoning-delta` parts add up to its text and are followed by one
 * `reasoning` part, all before the answer's text and tool calls; no delta is left without its block.
 */
function expectReasoningStream(
  parts: readonly StreamPart[],
  expected: readonly ScriptedReasoning[],
  provider: string,
): void {
  const completed: ReasoningPart[] = [];
  let pending = '';
  let answerStarted = false;
  for (const part of parts) {
    if (part.type === 'reasoning-delta' || part.type === 'reasoning') {
      expect(answerStarted, `the ${part.type} part comes before the answer's text and tool calls`).toBe(
        false,
      );
    }
    if (part.type === 'reasoning-delta') pending += part.delta;
    else if (part.type === 'reasoning') {
      expect(
        pending,
        `the reasoning-delta parts before reasoning part ${completed.length} add up to its text`,
      ).toBe(part.reasoning.text);
      pending = '';
      completed.push(part.reasoning);
    } else if (part.type !== 'finish' && part.type !== 'error') {
      answerStarted = true;
    }
  }
  expect(pending, 'no reasoning-delta after the last reasoning part').toBe('');
  expectReasoning(completed, expected, provider);
}

/** The one request of a case, with `rawBody` required. */
function onlyRequest(fixture: ConformanceFixture, harness: ConformanceHarness): WireRequest {
  const requests = fixture.requests();
  expect(requests, 'one request on the wire').toHaveLength(1);
  const wire = requests[0]!;
  if (wire.rawBody === undefined) throw missingProjection(harness, 'WireRequest.rawBody', 'reasoning');
  return wire;
}

function assistantCarrying(wire: WireRequest, toolCallId: string): WireMessage {
  const message = wire.messages.find(
    (candidate) => candidate.role === 'assistant' && (candidate.toolCallIds ?? []).includes(toolCallId),
  );
  expect(message, `the assistant message carrying ${toolCallId} on the wire`).toBeDefined();
  return message!;
}

/** Reasoning that must stay off the wire: no reasoning on the message, nothing of it in the body, reported. */
async function expectLeftOutAndReported(
  harness: ConformanceHarness,
  parts: (provider: string) => readonly ReasoningPart[],
  callMode: CallMode,
): Promise<void> {
  await withFixture(harness, async (fixture) => {
    const reasoning = parts(fixture.model.provider);
    fixture.enqueue({ type: 'response', text: 'Paris: 18 °C.', usage: { inputTokens: 30, outputTokens: 5 } });
    const response = await callModel(
      fixture.model,
      { messages: historyWithReasoning(reasoning), tools: CONFORMANCE_TOOLS },
      callMode,
    );
    expect(response.text).toBe('Paris: 18 °C.');
    const wire = onlyRequest(fixture, harness);
    expect(
      assistantCarrying(wire, wireToolCallId(response.adjustments, REASONED_CALL.id)).reasoning ?? [],
      'no reasoning on the wire',
    ).toEqual([]);
    for (const part of reasoning) {
      for (const value of [part.text, part.signature, part.redactedData, part.encryptedContent]) {
        if (value === undefined || value === '') continue;
        expect(wire.rawBody?.includes(value), `'${value}' appears nowhere in the request body`).toBe(false);
      }
    }
    expect(
      hasAdjustment(response.adjustments, 'history-rewritten'),
      "the reasoning left out is reported as a 'history-rewritten' Adjustment",
    ).toBe(true);
  });
}

const ROUND_TRIP_NEEDS =
  'the fake server renders ResponseReply.reasoning, and the projection fills WireMessage.reasoning and WireRequest.rawBody';

/**
 * The reasoning cases: reasoning in a reply comes back as `ModelResponse.reasoning` and as `reasoning-delta` +
 * `reasoning` parts; the model's own reasoning in the history is sent back; another provider's is left out and
 * reported. With `capabilities.reasoning: 'not-on-wire'` (an API without reasoning) only the last checks run, for
 * both kinds of reasoning; without `capabilities.reasoning` every case fails, naming it.
 */
export function reasoningCases(harness: ConformanceHarness): ConformanceCase[] {
  const support = harness.capabilities?.reasoning;
  const cases: ConformanceCase[] = [];
  const needsRoundTrip = (run: () => Promise<void>) => async (): Promise<void> => {
    if (support === undefined) throw missingHarnessCapability(harness, 'reasoning', ROUND_TRIP_NEEDS);
    await run();
  };
  const foreignParts = (): readonly ReasoningPart[] => [
    {
      type: 'reasoning',
      provider: 'conformance-other-provider',
      text: FOREIGN_TEXT,
      signature: FOREIGN_SIGNATURE,
    },
  ];

  if (support !== 'not-on-wire') {
    for (const [name, reply] of REPLIES) {
      for (const callMode of CALL_MODES) {
        cases.push({
          name: `${name} comes back as ModelResponse.reasoning · ${callMode}`,
          run: needsRoundTrip(async () => {
            await withFixture(harness, async (fixture) => {
              fixture.enqueue(reply);
              const response = await callModel(fixture.model, REQUEST, callMode);
              expect(response.text).toBe(reply.text ?? '');
              expectToolCalls(response.toolCalls, reply.toolCalls ?? []);
              expectReasoning(response.reasoning, reply.reasoning ?? [], fixture.model.provider);
            });
          }),
        });
      }
      cases.push({
        name: `${name}: the stream gives reasoning-delta parts, then one reasoning part per block, before the answer`,
        run: needsRoundTrip(async () => {
          await withFixture(harness, async (fixture) => {
            fixture.enqueue(reply);
            const { parts, threw, thrown } = await readStream(fixture.model.stream(REQUEST));
            expect(threw, `stream() threw: ${String(thrown)}`).toBe(false);
            expect(parts.at(-1)?.type, 'the stream finishes').toBe('finish');
            expectReasoningStream(parts, reply.reasoning ?? [], fixture.model.provider);
          });
        }),
      });
    }
    for (const callMode of CALL_MODES) {
      cases.push({
        name: `the model's own reasoning in the history is sent back with its tool call · ${callMode}`,
        run: needsRoundTrip(async () => {
          await withFixture(harness, async (fixture) => {
            const sent = [SIGNED, WITHHELD];
            fixture.enqueue({
              type: 'response',
              text: 'Paris: 18 °C.',
              usage: { inputTokens: 30, outputTokens: 5 },
            });
            const messages = historyWithReasoning(
              sent.map((block) => ownPart(fixture.model.provider, block)),
            );
            const response = await callModel(fixture.model, { messages, tools: CONFORMANCE_TOOLS }, callMode);
            expect(response.text).toBe('Paris: 18 °C.');
            const wire = onlyRequest(fixture, harness);
            const onWire =
              assistantCarrying(wire, wireToolCallId(response.adjustments, REASONED_CALL.id)).reasoning ?? [];
            expect(onWire.length, 'reasoning blocks sent back with the tool call, in order').toBe(
              sent.length,
            );
            sent.forEach((block, index) => {
              const label = `reasoning block ${index} on the wire`;
              const part = onWire[index]!;
              if (part.text !== '') expect(part.text, `${label}: text`).toBe(block.text);
              expectSameBlock(part, block, label);
            });
          });
        }),
      });
    }
  } else {
    for (const callMode of CALL_MODES) {
      cases.push({
        name: `the model's own reasoning stays off a wire without reasoning, and is reported · ${callMode}`,
        run: () =>
          expectLeftOutAndReported(
            harness,
            (provider) => [SIGNED, WITHHELD].map((block) => ownPart(provider, block)),
            callMode,
          ),
      });
    }
  }
  for (const callMode of CALL_MODES) {
    cases.push({
      name: `reasoning of another provider is not sent, not even as text, and is reported · ${callMode}`,
      run: needsRoundTrip(() => expectLeftOutAndReported(harness, foreignParts, callMode)),
    });
  }
  return cases;
}

/** Registers the reasoning cases. */
export function registerReasoningCases(harness: ConformanceHarness): void {
  registerCases('reasoning', reasoningCases(harness));
}
