import {
  ContentTooLargeError,
  InvalidMessageHistoryError,
  InvalidRequestError,
  type Message,
  type StreamPart,
} from '@org/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ANTHROPIC_CONTENT_LIMITS, InvalidProviderOptionsError } from '../src/index.js';
import { type FakeAnthropicServer, startFakeAnthropicServer } from './fake-anthropic-server.js';
import { testProvider } from './test-provider.js';

// Images and files in user messages and tool results, mapped to Anthropic blocks, through the real SDK.

let server: FakeAnthropicServer;
beforeEach(async () => {
  server = await startFakeAnthropicServer();
});
afterEach(async () => {
  await server.close();
});

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const PDF = 'JVBERi0xLjQKJcfsj6IKMSAwIG9iago8PD4+CmVuZG9iagp0cmFpbGVyCjw8Pj4KJSVFT0YK';
const TEXT = btoa('Quarterly numbers: 4, 8, 15.');

const ok = () =>
  ({
    type: 'json',
    body: {
      type: 'message',
      role: 'assistant',
      id: 'msg_ok',
      model: 'm',
      content: [{ type: 'text', text: 'Seen.' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 5, output_tokens: 1 },
    },
  }) as const;

function sentMessages(): { role: string; content: unknown }[] {
  return server.requests[server.requests.length - 1]?.body.messages as { role: string; content: unknown }[];
}

async function fails(messages: readonly Message[]): Promise<unknown> {
  return testProvider(server)('m')
    .generate({ messages })
    .then(
      () => {
        throw new Error('the request was expected to fail');
      },
      (error: unknown) => error,
    );
}

/** Base64 text of `bytes` decoded bytes (a multiple of 3 gives no padding). */
const base64OfBytes = (bytes: number): string => 'A'.repeat(Math.ceil(bytes / 3) * 4);

describe('content parts of a user message', () => {
  it('maps text, images (base64 and URL) and files (PDF inline and by URL, plain text) in order', async () => {
    server.enqueue(ok());
    await testProvider(server)('m').generate({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare these.' },
            { type: 'image', mediaType: 'image/png', data: PNG },
            { type: 'image', url: 'https://example.com/cat.jpg' },
            { type: 'file', mediaType: 'application/pdf', data: PDF, filename: 'report.pdf' },
            { type: 'file', mediaType: 'application/pdf', url: 'https://example.com/spec.pdf' },
            { type: 'file', mediaType: 'text/plain; charset=utf-8', data: TEXT, filename: 'numbers.txt' },
          ],
        },
      ],
    });
    expect(sentMessages()).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare these.' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
          {
            type: 'document',
            source: { type: 'base64', media_type: 'application/pdf', data: PDF },
            title: 'report.pdf',
          },
          { type: 'document', source: { type: 'url', url: 'https://example.com/spec.pdf' } },
          {
            type: 'document',
            source: { type: 'text', media_type: 'text/plain', data: 'Quarterly numbers: 4, 8, 15.' },
            title: 'numbers.txt',
          },
        ],
      },
    ]);
  });

  it('compares media types as media types: case and parameters aside', async () => {
    server.enqueue(ok());
    await testProvider(server)('m').generate({
      messages: [{ role: 'user', content: [{ type: 'image', mediaType: 'Image/JPEG; q=1', data: PNG }] }],
    });
    expect(sentMessages()[0]?.content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: PNG } },
    ]);
  });

  it('leaves out empty text parts (the API refuses empty text) and refuses a message with nothing left', async () => {
    server.enqueue(ok());
    await testProvider(server)('m').generate({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: '' },
            { type: 'text', text: 'Only this.' },
          ],
        },
      ],
    });
    expect(sentMessages()).toEqual([{ role: 'user', content: 'Only this.' }]);
    const failure = await fails([{ role: 'user', content: [{ type: 'text', text: '' }] }]);
    expect(InvalidMessageHistoryError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({ messageIndex: 0 });
  });
});

describe('content parts of a tool result', () => {
  it('sends images and documents inside the tool_result, natively, with no adjustment', async () => {
    server.enqueue(ok());
    const response = await testProvider(server)('m').generate({
      messages: [
        { role: 'user', content: 'Take a screenshot.' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'toolu_1', toolName: 'screenshot', arguments: '{}' }],
        },
        {
          role: 'tool',
          toolCallId: 'toolu_1',
          toolName: 'screenshot',
          content: [
            { type: 'text', text: 'Here it is.' },
            { type: 'image', mediaType: 'image/png', data: PNG },
            { type: 'file', mediaType: 'application/pdf', data: PDF },
          ],
        },
      ],
    });
    expect(response.adjustments).toEqual([]);
    expect(sentMessages()[2]).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_1',
          content: [
            { type: 'text', text: 'Here it is.' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
            { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF } },
          ],
        },
      ],
    });
  });

  it('keeps the string shorthand for a single text part, and no content for empty parts', async () => {
    server.enqueue(ok());
    await testProvider(server)('m').generate({
      messages: [
        { role: 'user', content: 'Go.' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 'toolu_a', toolName: 'a', arguments: '{}' },
            { id: 'toolu_b', toolName: 'b', arguments: '{}' },
          ],
        },
        { role: 'tool', toolCallId: 'toolu_a', toolName: 'a', content: [{ type: 'text', text: 'done' }] },
        { role: 'tool', toolCallId: 'toolu_b', toolName: 'b', content: [] },
      ],
    });
    expect(sentMessages()[2]?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_a', content: 'done' },
      { type: 'tool_result', tool_use_id: 'toolu_b' },
    ]);
  });
});

describe('size limits', () => {
  it('declares the API’s documented limits in decoded bytes', () => {
    // 5 MiB of base64 per image; 32 MiB of base64 per request.
    expect(ANTHROPIC_CONTENT_LIMITS).toEqual({
      maxImageBytes: 3_932_160,
      maxFileBytes: 25_165_824,
      maxTotalBytes: 25_165_824,
    });
  });

  it('sends an image of exactly 5 MiB of base64, and refuses one a byte larger before sending', async () => {
    server.enqueue(ok());
    const atLimit = base64OfBytes(ANTHROPIC_CONTENT_LIMITS.maxImageBytes);
    expect(atLimit.length).toBe(5 * 1024 * 1024);
    await testProvider(server)('m').generate({
      messages: [{ role: 'user', content: [{ type: 'image', mediaType: 'image/png', data: atLimit }] }],
    });
    expect(server.requests).toHaveLength(1);

    const over = base64OfBytes(ANTHROPIC_CONTENT_LIMITS.maxImageBytes + 1);
    const failure = await fails([
      { role: 'user', content: 'First.' },
      { role: 'assistant', content: 'Ok.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look.' },
          { type: 'image', mediaType: 'image/png', data: over },
        ],
      },
    ]);
    expect(ContentTooLargeError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({
      code: 'content_too_large',
      provider: 'anthropic',
      messageIndex: 2,
      partIndex: 1,
      kind: 'image',
      limit: 3_932_160,
    });
    expect(server.requests).toHaveLength(1);
  });

  it('counts images and files of tool results too, and the total of a request', async () => {
    const eighteenMiB = base64OfBytes(18 * 1024 * 1024);
    const failure = await fails([
      { role: 'user', content: [{ type: 'file', mediaType: 'application/pdf', data: eighteenMiB }] },
      { role: 'assistant', content: '', toolCalls: [{ id: 'toolu_1', toolName: 'fetch', arguments: '{}' }] },
      {
        role: 'tool',
        toolCallId: 'toolu_1',
        toolName: 'fetch',
        content: [{ type: 'file', mediaType: 'application/pdf', data: eighteenMiB }],
      },
    ]);
    expect(failure).toMatchObject({
      code: 'content_too_large',
      kind: 'total',
      messageIndex: 2,
      partIndex: 0,
    });
    expect(server.requests).toHaveLength(0);
  });

  it('takes other limits per model, and refuses limits that are not positive integers', async () => {
    const small = testProvider(server)('m', { contentLimits: { maxImageBytes: 10 } });
    const failure = await small
      .generate({
        messages: [{ role: 'user', content: [{ type: 'image', mediaType: 'image/png', data: PNG }] }],
      })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'content_too_large', limit: 10 });
    expect(() => testProvider(server)('m', { contentLimits: { maxFileBytes: -1 } })).toThrow(
      InvalidProviderOptionsError,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('leaves media sent by URL to the API (it fetches them)', async () => {
    server.enqueue(ok());
    await testProvider(server)('m', { contentLimits: { maxImageBytes: 1 } }).generate({
      messages: [{ role: 'user', content: [{ type: 'image', url: 'https://example.com/huge.png' }] }],
    });
    expect(server.requests).toHaveLength(1);
  });
});

describe('parts the API cannot take', () => {
  const cases: { name: string; part: unknown; code: string; pattern: RegExp }[] = [
    {
      name: 'an SVG image',
      part: { type: 'image', mediaType: 'image/svg+xml', data: PNG },
      code: 'unsupported_media_type',
      pattern:
        /Part 1 of message 0 \(user\) is an image of media type "image\/svg\+xml".*image\/jpeg, image\/png/,
    },
    {
      name: 'an image by URL of a type it does not read',
      part: { type: 'image', url: 'https://example.com/a.tiff', mediaType: 'image/tiff' },
      code: 'unsupported_media_type',
      pattern: /image\/tiff/,
    },
    {
      name: 'a zip file',
      part: { type: 'file', mediaType: 'application/zip', data: PDF },
      code: 'unsupported_media_type',
      pattern: /a file of media type "application\/zip".*application\/pdf, text\/plain/,
    },
    {
      name: 'a text file by URL',
      part: { type: 'file', mediaType: 'text/plain', url: 'https://example.com/a.txt' },
      code: 'unsupported_media_type',
      pattern: /fetches only PDFs by URL/,
    },
    {
      name: 'a data URL given as base64',
      part: { type: 'image', mediaType: 'image/png', data: `data:image/png;base64,${PNG}` },
      code: 'invalid_content_part',
      pattern: /not standard base64.*pass only the base64 after the comma/,
    },
    {
      name: 'base64 with line breaks',
      part: { type: 'file', mediaType: 'application/pdf', data: `${PDF.slice(0, 8)}\n${PDF.slice(8)}` },
      code: 'invalid_content_part',
      pattern: /not standard base64/,
    },
    {
      name: 'a text file that is not UTF-8',
      part: { type: 'file', mediaType: 'text/plain', data: btoa('\xff\xfe\xfd') },
      code: 'invalid_content_part',
      pattern: /not UTF-8/,
    },
    {
      name: 'a file: URL',
      part: { type: 'image', url: 'file:///etc/passwd' },
      code: 'invalid_content_part',
      pattern: /a file: URL; the Anthropic API fetches http\(s\) URLs only/,
    },
  ];

  it('refuses a part of an unknown type with the core shape check, before sending', async () => {
    const failure = await fails([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look:' },
          { type: 'audio', mediaType: 'audio/wav', data: PNG },
        ] as never,
      },
    ]);
    expect(InvalidMessageHistoryError.isInstance(failure)).toBe(true);
    expect((failure as Error).message).toMatch(/unknown type "audio"/);
    expect(server.requests).toHaveLength(0);
  });

  it.each(cases)(
    'refuses $name with a typed error naming the part, before sending',
    async ({ part, code, pattern }) => {
      const failure = await fails([
        { role: 'user', content: [{ type: 'text', text: 'Look:' }, part] as never },
      ]);
      expect(InvalidRequestError.isInstance(failure)).toBe(true);
      expect(failure).toMatchObject({ code: 'invalid_request', provider: 'anthropic', providerCode: code });
      expect((failure as Error).message).toMatch(pattern);
      expect(server.requests).toHaveLength(0);
    },
  );

  it('names a tool result as such, and ends a stream with the same error as its one error part', async () => {
    const messages: Message[] = [
      { role: 'user', content: 'Go.' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'toolu_1', toolName: 'draw', arguments: '{}' }] },
      {
        role: 'tool',
        toolCallId: 'toolu_1',
        toolName: 'draw',
        content: [{ type: 'image', mediaType: 'image/bmp', data: PNG }],
      },
    ];
    const parts: StreamPart[] = [];
    for await (const part of testProvider(server)('m').stream({ messages })) parts.push(part);
    expect(parts).toHaveLength(1);
    const error = (parts[0] as { type: 'error'; error: Error }).error;
    expect(InvalidRequestError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(
      /Part 0 of message 2 \(a tool result\) is an image of media type "image\/bmp"/,
    );
    expect(server.requests).toHaveLength(0);
  });
});
