import { type ContentLimits, ContentTooLargeError, type Message, type ToolCall } from '@org/core';
import { expect } from 'vitest';
import {
  type ConformanceCase,
  missingHarnessCapability,
  missingProjection,
  registerCases,
} from './conformance-case.js';
import { CONFORMANCE_TOOLS, HISTORY_WITHOUT_TOOL_CALLS } from './conformance-fixtures.js';
import { pngOfBytes, TINY_PDF_BASE64, TINY_PNG_BASE64 } from './content-fixtures.js';
import { type CallMode, callModel, errorOfCall } from './drive-model.js';
import { hasAdjustment, wireToolCallId } from './expectations.js';
import type { ConformanceHarness, WireContentPart, WireMessage } from './harness.js';
import { withFixture } from './with-fixture.js';

const CALL_MODES: readonly CallMode[] = ['generate', 'stream'];

const SYSTEM = HISTORY_WITHOUT_TOOL_CALLS[0]!;
const QUESTION = 'What is in this picture, and what does the report say?';

const USER_WITH_MEDIA: Message = {
  role: 'user',
  content: [
    { type: 'text', text: QUESTION },
    { type: 'image', mediaType: 'image/png', data: TINY_PNG_BASE64 },
    { type: 'file', mediaType: 'application/pdf', data: TINY_PDF_BASE64, filename: 'report.pdf' },
  ],
};

const RADAR_CALL: ToolCall = {
  id: 'call_radar',
  toolName: 'get_weather',
  arguments: '{"city":"Paris","unit":"celsius"}',
};

const HISTORY_WITH_TOOL_IMAGE: readonly Message[] = [
  SYSTEM,
  { role: 'user', content: 'Show me the weather radar for Paris.' },
  { role: 'assistant', content: '', toolCalls: [RADAR_CALL] },
  {
    role: 'tool',
    toolCallId: RADAR_CALL.id,
    toolName: RADAR_CALL.toolName,
    content: [
      { type: 'text', text: 'Radar image attached.' },
      { type: 'image', mediaType: 'image/png', data: TINY_PNG_BASE64 },
    ],
  },
];

const NEEDS =
  'the projection fills WireMessage.content of user and tool messages, and capabilities.contentParts.limits are the adapter media limits';

/** The content the wire carried for a message, which the declared harness must project. */
function contentOf(
  harness: ConformanceHarness,
  message: WireMessage | undefined,
  what: string,
): readonly WireContentPart[] {
  expect(message, `${what} on the wire`).toBeDefined();
  if (message?.content === undefined)
    throw missingProjection(harness, `WireMessage.content (${what})`, 'contentParts');
  return message.content;
}

/** A media part on the wire carries the request's data, and its media type where the wire names one. */
function expectMedia(
  part: WireContentPart | undefined,
  expected: { data: string; mediaType: string },
  label: string,
): void {
  if (part === undefined || part.type === 'text') {
    throw new Error(`${label}: expected a media part on the wire, got ${JSON.stringify(part)}.`);
  }
  expect(part.data, `${label}: the base64 data`).toBe(expected.data);
  if (part.mediaType !== undefined) expect(part.mediaType, `${label}: media type`).toBe(expected.mediaType);
}

/**
 * The content-part cases: a user message with an image and a file reaches the wire as parts, in order; a tool
 * result's image reaches the wire or is reported; an image over the adapter's limit fails with
 * `ContentTooLargeError` before anything is sent. Without `capabilities.contentParts` every case fails, naming it.
 */
export function contentPartCases(harness: ConformanceHarness): ConformanceCase[] {
  const declared = harness.capabilities?.contentParts;
  const withLimits = (run: (limits: ContentLimits) => Promise<void>) => async (): Promise<void> => {
    if (declared === undefined) throw missingHarnessCapability(harness, 'contentParts', NEEDS);
    await run(declared.limits);
  };
  const cases: ConformanceCase[] = [];
  for (const callMode of CALL_MODES) {
    cases.push({
      name: `a user message with text, an image and a file reaches the wire, in order · ${callMode}`,
      run: withLimits(async () => {
        await withFixture(harness, async (fixture) => {
          fixture.enqueue({
            type: 'response',
            text: 'A pixel, and an empty report.',
            usage: { inputTokens: 90, outputTokens: 8 },
          });
          const response = await callModel(fixture.model, { messages: [SYSTEM, USER_WITH_MEDIA] }, callMode);
          expect(response.text).toBe('A pixel, and an empty report.');
          const requests = fixture.requests();
          expect(requests, 'one request on the wire').toHaveLength(1);
          const user = requests[0]?.messages.filter((message) => message.role === 'user').at(-1);
          const content = contentOf(harness, user, 'the user message');
          expect(
            content.map((part) => part.type),
            'the parts of the user message on the wire',
          ).toEqual(['text', 'image', 'file']);
          expect(content[0], 'the text part').toEqual({ type: 'text', text: QUESTION });
          expectMedia(content[1], { data: TINY_PNG_BASE64, mediaType: 'image/png' }, 'the image');
          expectMedia(content[2], { data: TINY_PDF_BASE64, mediaType: 'application/pdf' }, 'the file');
        });
      }),
    });
    cases.push({
      name: `an image in a tool result reaches the wire in that result, or is reported · ${callMode}`,
      run: withLimits(async () => {
        await withFixture(harness, async (fixture) => {
          fixture.enqueue({
            type: 'response',
            text: 'Rain is coming.',
            usage: { inputTokens: 70, outputTokens: 4 },
          });
          const response = await callModel(
            fixture.model,
            { messages: HISTORY_WITH_TOOL_IMAGE, tools: CONFORMANCE_TOOLS },
            callMode,
          );
          expect(response.text).toBe('Rain is coming.');
          const requests = fixture.requests();
          expect(requests, 'one request on the wire').toHaveLength(1);
          const result = requests[0]?.messages.find(
            (message) =>
              message.role === 'tool' &&
              message.toolCallId === wireToolCallId(response.adjustments, RADAR_CALL.id),
          );
          if (result !== undefined && result.content === undefined) {
            throw missingProjection(
              harness,
              `WireMessage.content (the tool result of ${RADAR_CALL.id})`,
              'contentParts',
            );
          }
          const content = result?.content ?? [];
          const image = content.find((part) => part.type === 'image');
          if (image === undefined) {
            // Left out of the result, moved elsewhere, or the whole tool turn rewritten: acceptable only when reported.
            expect(
              hasAdjustment(response.adjustments, 'history-rewritten'),
              "an image that is not on the wire in its tool result is reported as a 'history-rewritten' Adjustment",
            ).toBe(true);
            return;
          }
          expectMedia(
            image,
            { data: TINY_PNG_BASE64, mediaType: 'image/png' },
            'the image of the tool result',
          );
          expect(
            content.some((part) => part.type === 'text' && part.text.includes('Radar image attached.')),
            'the text of the tool result on the wire',
          ).toBe(true);
        });
      }),
    });
    cases.push({
      name: `an image one byte over the limit fails with ContentTooLargeError, and nothing is sent · ${callMode}`,
      run: withLimits(async (limits) => {
        await withFixture(harness, async (fixture) => {
          const oversized: Message = {
            role: 'user',
            content: [
              { type: 'text', text: QUESTION },
              { type: 'image', mediaType: 'image/png', data: pngOfBytes(limits.maxImageBytes + 1) },
            ],
          };
          const error = await errorOfCall(fixture.model, { messages: [SYSTEM, oversized] }, callMode);
          expect(ContentTooLargeError.isInstance(error), `ContentTooLargeError, got ${String(error)}`).toBe(
            true,
          );
          const tooLarge = error as ContentTooLargeError;
          expect(tooLarge.kind, 'the part that is too large').toBe('image');
          expect([tooLarge.messageIndex, tooLarge.partIndex], 'where the part is').toEqual([1, 1]);
          expect(tooLarge.provider, 'the provider').toBe(fixture.model.provider);
          expect(fixture.requests(), 'nothing sent').toHaveLength(0);
        });
      }),
    });
  }
  return cases;
}

/** Registers the content-part cases. */
export function registerContentPartCases(harness: ConformanceHarness): void {
  registerCases('content parts', contentPartCases(harness));
}
