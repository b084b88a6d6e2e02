import { describe, expect, it } from 'vitest';
import { collectStream } from './collect-stream.js';
import { ContentTooLargeError } from './errors.js';
import type { StreamPart } from './language-model.js';
import { assertContentWithinLimits, base64ByteLength, contentText, type Message } from './message.js';
import { EMPTY_USAGE } from './usage.js';

const png = (bytes: number): string => Buffer.alloc(bytes, 7).toString('base64');

describe('content parts', () => {
  it('counts decoded base64 bytes without decoding', () => {
    for (const bytes of [0, 1, 2, 3, 4, 5, 1000, 1001, 1002]) {
      expect(base64ByteLength(png(bytes))).toBe(bytes);
    }
  });

  it('describes media in text form', () => {
    expect(
      contentText([
        { type: 'text', text: 'What is this?' },
        { type: 'image', mediaType: 'image/png', data: png(3) },
        { type: 'file', mediaType: 'application/pdf', url: 'https://example.com/a.pdf', filename: 'a.pdf' },
        { type: 'image', url: 'https://example.com/cat.jpg' },
      ]),
    ).toBe('What is this?\n[image image/png]\n[file a.pdf application/pdf]\n[image from a URL]');
    expect(contentText('plain')).toBe('plain');
  });

  it('refuses a part over its limit with a typed error naming it, and a request over its total', () => {
    const messages: Message[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image', mediaType: 'image/png', data: png(10) },
        ],
      },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', toolName: 'shot', arguments: '{}' }] },
      {
        role: 'tool',
        toolCallId: 'c1',
        toolName: 'shot',
        content: [{ type: 'image', mediaType: 'image/png', data: png(11) }],
      },
    ];
    expect(() =>
      assertContentWithinLimits(messages, { maxImageBytes: 11, maxFileBytes: 1 }, 'p'),
    ).not.toThrow();
    let error: unknown;
    try {
      assertContentWithinLimits(messages, { maxImageBytes: 10, maxFileBytes: 1 }, 'p');
    } catch (thrown) {
      error = thrown;
    }
    expect(ContentTooLargeError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'content_too_large',
      messageIndex: 2,
      partIndex: 0,
      kind: 'image',
      bytes: 11,
      limit: 10,
    });
    expect(() =>
      assertContentWithinLimits(messages, { maxImageBytes: 100, maxFileBytes: 1, maxTotalBytes: 20 }, 'p'),
    ).toThrow(/limit of 20 bytes/);
  });

  it('refuses a malformed part with a typed error naming it', () => {
    const limits = { maxImageBytes: 100, maxFileBytes: 100 };
    const cases: [unknown, RegExp][] = [
      [{ type: 'image', mediaType: 'image/png', data: 42 }, /`data` must be a base64 string/],
      [{ type: 'image', mediaType: 'image/png' }, /either base64 `data` or a `url`/],
      [{ type: 'image', data: 'AAAA' }, /needs its `mediaType`/],
      [{ type: 'audio', data: 'AAAA' }, /unknown type "audio"/],
      [null, /not a content part object/],
      [{ type: 'text' }, /string `text`/],
    ];
    for (const [part, message] of cases) {
      const messages = [{ role: 'user', content: [part] }] as unknown as Message[];
      expect(() => assertContentWithinLimits(messages, limits, 'p')).toThrow(message);
    }
    expect(() =>
      assertContentWithinLimits([{ role: 'user', content: 7 }] as unknown as Message[], limits, 'p'),
    ).toThrow(/string or an array of content parts/);
  });

  it('collects reasoning parts from a stream', async () => {
    const parts: StreamPart[] = [
      { type: 'reasoning-delta', delta: 'Let me ' },
      { type: 'reasoning-delta', delta: 'think.' },
      {
        type: 'reasoning',
        reasoning: { type: 'reasoning', provider: 'anthropic', text: 'Let me think.', signature: 'sig' },
      },
      { type: 'text-delta', delta: 'Hi' },
      { type: 'finish', finishReason: 'stop', usage: EMPTY_USAGE, adjustments: [] },
    ];
    async function* stream(): AsyncGenerator<StreamPart> {
      yield* parts;
    }
    const response = await collectStream(stream());
    expect(response.text).toBe('Hi');
    expect(response.reasoning).toEqual([
      { type: 'reasoning', provider: 'anthropic', text: 'Let me think.', signature: 'sig' },
    ]);
  });
});
