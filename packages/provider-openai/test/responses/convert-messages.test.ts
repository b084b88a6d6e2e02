import { InvalidRequestError } from '@org/core';
import { describe, expect, it } from 'vitest';
import { HISTORY_WITH_TOOL_MEDIA, PDF, PNG, USER_WITH_MEDIA } from '../content-fixtures.js';
import { withTestModel } from '../test-provider.js';

const TEXT = { type: 'response', text: 'Seen.', usage: { inputTokens: 9, outputTokens: 1 } } as const;

describe('responses: content parts on the wire', () => {
  it('user parts → input_text / input_image (data URL or URL) / input_file (file_data with its name)', async () => {
    await withTestModel({ api: 'responses' }, async ({ server, model }) => {
      server.enqueue(TEXT);
      const response = await model.generate({ messages: [USER_WITH_MEDIA] });
      expect(response.adjustments).toEqual([]);
      expect(server.received[0]?.body.input).toEqual([
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Compare these.' },
            { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' },
            { type: 'input_image', image_url: 'https://example.com/radar.png', detail: 'auto' },
            { type: 'input_file', filename: 'report.pdf', file_data: `data:application/pdf;base64,${PDF}` },
          ],
        },
      ]);
    });
  });

  it('a file by URL → input_file with file_url; an unnamed inline file gets a name from its media type', async () => {
    await withTestModel({ api: 'responses' }, async ({ server, model }) => {
      server.enqueue(TEXT);
      await model.generate({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'file', url: 'https://example.com/a.pdf', mediaType: 'application/pdf' },
              { type: 'file', mediaType: 'application/pdf', data: PDF },
            ],
          },
        ],
      });
      expect((server.received[0]!.body.input as { content: unknown }[])[0]?.content).toEqual([
        { type: 'input_file', file_url: 'https://example.com/a.pdf' },
        { type: 'input_file', filename: 'file-2.pdf', file_data: `data:application/pdf;base64,${PDF}` },
      ]);
    });
  });

  it('a tool result with an image → function_call_output whose output is the list of parts, nothing reported', async () => {
    await withTestModel({ api: 'responses' }, async ({ server, model }) => {
      server.enqueue(TEXT);
      const response = await model.generate({ messages: HISTORY_WITH_TOOL_MEDIA });
      expect(response.adjustments).toEqual([]);
      const outputs = (server.received[0]!.body.input as { type?: string }[]).filter(
        (item) => item.type === 'function_call_output',
      );
      expect(outputs).toEqual([
        {
          type: 'function_call_output',
          call_id: 'call_chart',
          output: [
            { type: 'input_text', text: 'Chart rendered.' },
            { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' },
          ],
        },
        {
          type: 'function_call_output',
          call_id: 'call_table',
          output: [{ type: 'input_text', text: 'Mon 18, Tue 20' }],
        },
      ]);
    });
  });

  const BAD_PARTS = [
    [
      'an image type OpenAI does not take',
      { type: 'image', mediaType: 'image/tiff', data: PNG },
      'image/tiff',
    ],
    [
      'data given as a data: URL',
      { type: 'image', mediaType: 'image/png', data: `data:image/png;base64,${PNG}` },
      'not base64',
    ],
    ['an empty image', { type: 'image', mediaType: 'image/png', data: '' }, 'no data'],
    ['a URL that is not http(s) or data:', { type: 'image', url: 'file:///etc/passwd' }, 'http(s)'],
    ['a file without a media type', { type: 'file', data: PDF, mediaType: '' }, 'mediaType'],
    ['a part of unknown type', { type: 'audio', data: PDF }, 'not a content part type'],
    ['a part that is not an object', null, 'must be an object'],
  ] as const;
  for (const [name, part, fragment] of BAD_PARTS) {
    it(`${name} → InvalidRequestError naming the part, nothing sent`, async () => {
      await withTestModel({ api: 'responses' }, async ({ server, model }) => {
        const error = await model
          .generate({
            messages: [{ role: 'user', content: [{ type: 'text', text: 'Look.' }, part as never] }],
          })
          .then(
            () => undefined,
            (thrown: unknown) => thrown,
          );
        expect(InvalidRequestError.isInstance(error)).toBe(true);
        expect((error as Error).message).toContain('Message 0, part 1');
        expect((error as Error).message).toContain(fragment);
        expect(server.received).toHaveLength(0);
      });
    });
  }
});
