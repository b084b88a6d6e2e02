import {
  ContentTooLargeError,
  InvalidProviderOptionsError,
  InvalidRequestError,
  type Message,
} from '@org/core';
import { describe, expect, it } from 'vitest';
import { createOpenAI, OPENAI_CONTENT_LIMITS } from '../src/index.js';
import { PNG } from './content-fixtures.js';
import { startFakeOpenAIServer } from './fake-openai-server.js';
import { withTestModel } from './test-provider.js';

/** Base64 of exactly `bytes` decoded bytes. */
const base64OfBytes = (bytes: number): string => Buffer.alloc(bytes).toString('base64');

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error,
  );
}

describe("OpenAI's media limits, checked before sending", () => {
  it('the documented numbers: 20 MB per image, 32 MB per file, 50 MB of base64 payload (37.5 MB decoded)', () => {
    expect(OPENAI_CONTENT_LIMITS).toEqual({
      maxImageBytes: 20 * 1024 * 1024,
      maxFileBytes: 32 * 1024 * 1024,
      maxTotalBytes: Math.floor((50 * 1024 * 1024 * 3) / 4),
    });
  });

  for (const api of ['chat', 'responses'] as const) {
    it(`${api}: an image one byte over the limit, in a tool result → ContentTooLargeError naming it, nothing sent`, async () => {
      await withTestModel({ api }, async ({ server, model }) => {
        const messages: Message[] = [
          { role: 'user', content: 'Radar?' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'c1', toolName: 'radar', arguments: '{}' }] },
          {
            role: 'tool',
            toolCallId: 'c1',
            toolName: 'radar',
            content: [
              { type: 'text', text: 'Radar:' },
              {
                type: 'image',
                mediaType: 'image/png',
                data: base64OfBytes(OPENAI_CONTENT_LIMITS.maxImageBytes + 1),
              },
            ],
          },
        ];
        const error = await failure(model.generate({ messages }));
        expect(ContentTooLargeError.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ provider: 'openai', messageIndex: 2, partIndex: 1, kind: 'image' });
        expect(server.received).toHaveLength(0);
      });
    });
  }

  it('files that are each within the limit but together over the payload → ContentTooLargeError (total)', async () => {
    await withTestModel({ api: 'responses' }, async ({ server, model }) => {
      const file = base64OfBytes(20 * 1024 * 1024);
      const error = await failure(
        model.generate({
          messages: [
            {
              role: 'user',
              content: [
                { type: 'file', mediaType: 'application/pdf', data: file },
                { type: 'file', mediaType: 'application/pdf', data: file },
              ],
            },
          ],
        }),
      );
      expect(ContentTooLargeError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ kind: 'total', partIndex: 1 });
      expect(server.received).toHaveLength(0);
    });
  });

  it('more than 500 images in one request → InvalidRequestError, nothing sent', async () => {
    await withTestModel({ api: 'chat' }, async ({ server, model }) => {
      const images = Array.from({ length: 501 }, () => ({
        type: 'image' as const,
        mediaType: 'image/png',
        data: PNG,
      }));
      const error = await failure(model.generate({ messages: [{ role: 'user', content: images }] }));
      expect(InvalidRequestError.isInstance(error)).toBe(true);
      expect((error as InvalidRequestError).providerCode).toBe('too_many_images');
      expect(server.received).toHaveLength(0);
    });
  });

  it('media by URL is not counted (OpenAI fetches it)', async () => {
    await withTestModel({ api: 'responses' }, async ({ server, model }) => {
      server.enqueue({ type: 'response', text: 'Seen.' });
      const response = await model.generate({
        messages: [{ role: 'user', content: [{ type: 'image', url: 'https://example.com/huge.png' }] }],
      });
      expect(response.text).toBe('Seen.');
      expect(server.received).toHaveLength(1);
    });
  });

  it('a compatible server with other limits: settings.contentLimits, field by field; a bad value refused at once', async () => {
    const server = await startFakeOpenAIServer();
    try {
      const provider = createOpenAI({
        apiKey: 'sk-limits-test-0000',
        baseURL: server.baseURL,
        maxRetries: 0,
      });
      const model = provider('local-vision', { api: 'chat', contentLimits: { maxImageBytes: 10 } });
      const error = await failure(
        model.generate({
          messages: [
            { role: 'user', content: [{ type: 'image', mediaType: 'image/png', data: base64OfBytes(11) }] },
          ],
        }),
      );
      expect(error).toMatchObject({ kind: 'image', bytes: 11, limit: 10 });
      expect(server.received).toHaveLength(0);
      expect(() => provider('local-vision', { contentLimits: { maxFileBytes: 0 } })).toThrow(
        InvalidProviderOptionsError,
      );
    } finally {
      await server.close();
    }
  });
});
