import {
  type ContentLimits,
  ContentTooLargeError,
  InvalidMessageHistoryError,
  InvalidRequestError,
  type Message,
  type ModelRequest,
  type StreamPart,
  type ToolSpec,
} from '@org/core';
import { describe, expect, it } from 'vitest';
import {
  countTokens,
  createScriptedModel,
  FILE_PART_TOKENS,
  IMAGE_PART_TOKENS,
  InvalidScriptError,
  MESSAGE_OVERHEAD_TOKENS,
  REQUEST_OVERHEAD_TOKENS,
  SCRIPTED_CONTENT_LIMITS,
} from './index.js';

// A 1×1 PNG and a minimal PDF, base64.
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const PDF = 'JVBERi0xLjQKJSVFT0YK';

const call = { id: 'call_radar', toolName: 'radar', arguments: '{"city":"Paris"}' };
const withMedia: Message[] = [
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What is on this radar, and in the report?' },
      { type: 'image', mediaType: 'image/png', data: PNG },
      { type: 'file', mediaType: 'application/pdf', data: PDF, filename: 'report.pdf' },
      { type: 'image', url: 'https://example.com/radar.webp' },
    ],
  },
  {
    role: 'assistant',
    content: '',
    toolCalls: [call],
    reasoning: [{ type: 'reasoning', provider: 'scripted', text: 'Ask the radar.', signature: 'c2ln' }],
  },
  {
    role: 'tool',
    toolCallId: call.id,
    toolName: call.toolName,
    content: [
      { type: 'text', text: 'Radar image attached.' },
      { type: 'image', mediaType: 'image/png', data: PNG },
    ],
  },
];
const radar: ToolSpec = { name: 'radar', description: 'Weather radar.', inputSchema: { type: 'object' } };

/** The error a refused call ends with, checking that no turn was taken and the refusal was recorded. */
async function errorOf(
  request: ModelRequest,
  method: 'generate' | 'stream',
  contentLimits: ContentLimits = SCRIPTED_CONTENT_LIMITS,
): Promise<unknown> {
  const model = createScriptedModel({ script: [{ text: 'never' }], contentLimits });
  let error: unknown;
  if (method === 'generate') {
    error = await model.generate(request).then(
      () => expect.fail('expected a rejection'),
      (thrown: unknown) => thrown,
    );
  } else {
    const parts: StreamPart[] = [];
    for await (const part of model.stream(request)) parts.push(part);
    expect(parts.map((part) => part.type)).toEqual(['error']);
    error = parts[0]?.type === 'error' ? parts[0].error : undefined;
  }
  expect(model.remainingTurns, 'no turn taken').toBe(1);
  expect(model.calls).toEqual([expect.objectContaining({ callIndex: undefined, error })]);
  return error;
}

/** A history with one message replaced by a malformed one (cast: the shapes a stored history can hold). */
function withMessage(index: number, message: unknown): Message[] {
  const messages: unknown[] = [...withMedia];
  messages[index] = message;
  return messages as Message[];
}

describe('request checks: content parts and reasoning', () => {
  it('accepts images and files in user messages and tool results, and reasoning on assistant messages', async () => {
    let seen: ModelRequest | undefined;
    const model = createScriptedModel({
      script: (request) => {
        seen = request;
        return { text: 'A radar with rain, and an empty report.' };
      },
    });
    const response = await model.generate({ messages: withMedia, tools: [radar] });
    expect(response.text).toBe('A radar with rain, and an empty report.');
    expect(seen?.messages).toBe(withMedia);
    expect(response.adjustments).toEqual([]);
  });

  it('counts each image and file at a fixed cost, plus the text parts and the reasoning text', async () => {
    const model = createScriptedModel({ script: [{ text: 'ok' }] });
    const response = await model.generate({ messages: withMedia, tools: [radar] });
    const toolTokens = countTokens(
      JSON.stringify({ name: radar.name, description: radar.description, parameters: radar.inputSchema }),
    );
    expect(response.usage.inputTokens).toBe(
      REQUEST_OVERHEAD_TOKENS +
        toolTokens +
        // user: text, an inline image, a file, an image by URL
        MESSAGE_OVERHEAD_TOKENS +
        countTokens('What is on this radar, and in the report?') +
        2 * IMAGE_PART_TOKENS +
        FILE_PART_TOKENS +
        // assistant: reasoning text, then the call (framing 3, name, arguments)
        MESSAGE_OVERHEAD_TOKENS +
        countTokens('Ask the radar.') +
        3 +
        countTokens('radar') +
        countTokens('{"city":"Paris"}') +
        // tool: text and an image
        MESSAGE_OVERHEAD_TOKENS +
        countTokens('Radar image attached.') +
        IMAGE_PART_TOKENS,
    );
  });

  it.each(['generate', 'stream'] as const)(
    'refuses an image over the limit with ContentTooLargeError before taking a turn · %s',
    async (method) => {
      // The PNG is 70 bytes: over a 60-byte image limit; the PDF is within the file limit.
      const error = await errorOf({ messages: withMedia, tools: [radar] }, method, {
        maxImageBytes: 60,
        maxFileBytes: 1024,
      });
      expect(ContentTooLargeError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({
        provider: 'scripted',
        kind: 'image',
        messageIndex: 0,
        partIndex: 1,
        bytes: 70,
        limit: 60,
      });
    },
  );

  it.each([
    ['an unknown role', withMessage(0, { role: 'developer', content: 'x' }), /role "developer"/],
    [
      'assistant content that is not a string',
      withMessage(1, { role: 'assistant', content: [] }),
      /content must be a string/,
    ],
    [
      'a reasoning part without its provider',
      withMessage(1, { ...withMedia[1], reasoning: [{ type: 'reasoning', text: 'x' }] }),
      /reasoning part 0 needs the name of the provider/,
    ],
    [
      'a reasoning part with a non-string signature',
      withMessage(1, {
        ...withMedia[1],
        reasoning: [{ type: 'reasoning', provider: 'scripted', text: '', signature: 7 }],
      }),
      /`signature` must be a string/,
    ],
    [
      'reasoning that is not an array',
      withMessage(1, { ...withMedia[1], reasoning: { type: 'reasoning' } }),
      /`reasoning` must be an array/,
    ],
    [
      'a tool call without arguments text',
      withMessage(1, {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'call_radar', toolName: 'radar' }],
      }),
      /tool call 0 needs/,
    ],
    [
      'a tool result without its call id',
      withMessage(2, { role: 'tool', toolName: 'radar', content: 'x' }),
      /`toolCallId` and `toolName`/,
    ],
    [
      'an image part with both data and a URL',
      withMessage(0, {
        role: 'user',
        content: [{ type: 'image', mediaType: 'image/png', data: PNG, url: 'https://x' }],
      }),
      /either base64 `data` or a `url`/,
    ],
    [
      'an image of a media type no provider takes',
      withMessage(0, { role: 'user', content: [{ type: 'image', mediaType: 'image/tiff', data: PNG }] }),
      /image\/tiff/,
    ],
    [
      'a file without a type/subtype media type',
      withMessage(0, { role: 'user', content: [{ type: 'file', mediaType: 'pdf', data: PDF }] }),
      /not a type\/subtype/,
    ],
    [
      'data that is a data URL rather than base64',
      withMessage(0, {
        role: 'user',
        content: [{ type: 'image', mediaType: 'image/png', data: `data:image/png;base64,${PNG}` }],
      }),
      /is not base64/,
    ],
    [
      'empty data',
      withMessage(0, { role: 'user', content: [{ type: 'file', mediaType: 'text/plain', data: '' }] }),
      /empty `data`/,
    ],
    [
      'a URL that is not http(s)',
      withMessage(0, { role: 'user', content: [{ type: 'image', url: 'file:///etc/passwd' }] }),
      /must be http\(s\)/,
    ],
  ])('refuses %s with InvalidMessageHistoryError naming the message', async (_name, messages, pattern) => {
    for (const method of ['generate', 'stream'] as const) {
      const error = await errorOf({ messages, tools: [radar] }, method);
      expect(InvalidMessageHistoryError.isInstance(error), String(error)).toBe(true);
      expect((error as Error).message).toMatch(pattern);
    }
  });

  it('refuses a request without a messages array with InvalidRequestError', async () => {
    const error = await errorOf({ messages: 'hello' } as unknown as ModelRequest, 'generate');
    expect(InvalidRequestError.isInstance(error)).toBe(true);
  });

  it('rejects malformed content limits with InvalidScriptError naming the field', () => {
    expect(() =>
      createScriptedModel({ script: [], contentLimits: { maxImageBytes: -1, maxFileBytes: 10 } }),
    ).toThrow(expect.objectContaining({ path: 'contentLimits.maxImageBytes' }));
    expect(() =>
      createScriptedModel({
        script: [],
        contentLimits: { maxImageBytes: 1, maxFileBytes: 1, maxTotalBytes: Number.NaN },
      }),
    ).toThrow(InvalidScriptError);
  });
});
