import { InvalidRequestError } from '@org/core';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { HISTORY_WITH_TOOL_MEDIA, PDF, PNG, USER_WITH_MEDIA } from '../content-fixtures.js';
import { startFakeOpenAIServer } from '../fake-openai-server.js';
import { withTestModel } from '../test-provider.js';

const TEXT = { type: 'response', text: 'Seen.', usage: { inputTokens: 9, outputTokens: 1 } } as const;

describe('chat: content parts on the wire', () => {
  it('user parts → text / image_url (data URL or URL) / file (file_data with its name)', async () => {
    await withTestModel({ api: 'chat' }, async ({ server, model }) => {
      server.enqueue(TEXT);
      const response = await model.generate({ messages: [USER_WITH_MEDIA] });
      expect(response.adjustments).toEqual([]);
      expect(server.received[0]?.body.messages).toEqual([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare these.' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
            { type: 'image_url', image_url: { url: 'https://example.com/radar.png' } },
            {
              type: 'file',
              file: { filename: 'report.pdf', file_data: `data:application/pdf;base64,${PDF}` },
            },
          ],
        },
      ]);
    });
  });

  it('a file by URL → InvalidRequestError (the Chat file part has no URL field), nothing sent', async () => {
    await withTestModel({ api: 'chat' }, async ({ server, model }) => {
      const error = await model
        .generate({
          messages: [
            {
              role: 'user',
              content: [{ type: 'file', url: 'https://example.com/a.pdf', mediaType: 'application/pdf' }],
            },
          ],
        })
        .then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
      expect(InvalidRequestError.isInstance(error)).toBe(true);
      expect((error as InvalidRequestError).providerCode).toBe('unsupported_content');
      expect(server.received).toHaveLength(0);
    });
  });

  for (const mode of ['generate', 'stream'] as const) {
    it(`a tool result's image: text in the tool message, the image in a labelled user message after the results, reported · ${mode}`, async () => {
      await withTestModel({ api: 'chat' }, async ({ server, model }) => {
        server.enqueue(TEXT);
        const request = { messages: HISTORY_WITH_TOOL_MEDIA };
        let adjustments: readonly unknown[] = [];
        if (mode === 'generate') adjustments = (await model.generate(request)).adjustments;
        else {
          for await (const part of model.stream(request))
            if (part.type === 'finish') adjustments = part.adjustments;
        }
        expect(server.received[0]?.body.messages).toEqual([
          { role: 'user', content: 'Chart and table for Paris?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call_chart',
                type: 'function',
                function: { name: 'render_chart', arguments: '{"city":"Paris"}' },
              },
              {
                id: 'call_table',
                type: 'function',
                function: { name: 'get_table', arguments: '{"city":"Paris"}' },
              },
            ],
          },
          {
            role: 'tool',
            tool_call_id: 'call_chart',
            content:
              'Chart rendered.\n[image image/png]\n[This attachment is in the user message after the tool results, under "tool call call_chart".]',
          },
          { role: 'tool', tool_call_id: 'call_table', content: 'Mon 18, Tue 20' },
          {
            role: 'user',
            content: [
              {
                type: 'text',
                text: 'Attachments of tool call call_chart (render_chart), sent here because a Chat Completions tool message takes text only:',
              },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
            ],
          },
          { role: 'user', content: 'Summarise.' },
        ]);
        expect(adjustments).toEqual([
          expect.objectContaining({
            kind: 'history-rewritten',
            details: { toolCallIds: ['call_chart'], parts: 1 },
          }),
        ]);
      });
    });
  }

  it('the fake server refuses an image inside a tool message, as OpenAI does (so the carrying is needed)', async () => {
    const server = await startFakeOpenAIServer();
    try {
      const client = new OpenAI({
        apiKey: 'sk-test-key-for-fake-server',
        baseURL: server.baseURL,
        maxRetries: 0,
      });
      const error = await client.chat.completions
        .create({
          model: 'gpt-test',
          messages: [
            {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
            },
            // The SDK's types forbid this too; the cast sends what a careless adapter would.
            {
              role: 'tool',
              tool_call_id: 'c',
              content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] as never,
            },
          ],
        })
        .then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
      expect((error as { status?: number }).status).toBe(400);
      expect(String((error as Error).message)).toContain("Supported values are: 'text'");
    } finally {
      await server.close();
    }
  });
});
