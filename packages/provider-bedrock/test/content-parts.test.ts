import {
  ContentTooLargeError,
  InvalidMessageHistoryError,
  InvalidRequestError,
  type Message,
  ToolChoice,
  type ToolSpec,
} from '@org/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeBedrockServer, type FakeResponse, startFakeBedrock } from './fake-bedrock-server.js';
import { createTestBedrock } from './test-provider.js';

const OK: FakeResponse = {
  json: {
    output: { message: { role: 'assistant', content: [{ text: 'A cat.' }] } },
    stopReason: 'end_turn',
    usage: { inputTokens: 9, outputTokens: 3, totalTokens: 12 },
  },
};
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]).toString('base64');
const PDF = Buffer.from('%PDF-1.7\n%fake\n').toString('base64');
const TOOL: ToolSpec = {
  name: 'take_screenshot',
  description: 'Screenshot of a page',
  inputSchema: { type: 'object', properties: { url: { type: 'string' } } },
};
const CALL = { id: 'tooluse_1', toolName: 'take_screenshot', arguments: '{"url":"https://example.com"}' };
const MIB = 1024 * 1024;

let server: FakeBedrockServer;
beforeEach(async () => {
  server = await startFakeBedrock();
});
afterEach(async () => {
  await server.close();
});

const model = () => createTestBedrock(server).provider('us.anthropic.claude-sonnet-4-20250514-v1:0');
type WireMessage = { role: string; content: Record<string, unknown>[] };
const wireMessages = (): WireMessage[] => (server.requests.at(-1)?.body.messages ?? []) as WireMessage[];

/** A tool turn whose result is `content`. */
function toolTurn(content: Message & { role: 'tool' } extends { content: infer C } ? C : never): Message[] {
  return [
    { role: 'user', content: 'Show me example.com' },
    { role: 'assistant', content: '', toolCalls: [CALL] },
    { role: 'tool', toolCallId: 'tooluse_1', toolName: 'take_screenshot', content },
  ];
}

describe('images and files in user messages', () => {
  it('text, image and PDF parts become text, image and document blocks, bytes as the SDK sends them', async () => {
    server.enqueue(OK);
    const response = await model().generate({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in these?' },
            { type: 'image', mediaType: 'image/png', data: PNG },
            { type: 'file', mediaType: 'application/pdf', data: PDF, filename: 'Q3 Report' },
          ],
        },
      ],
    });
    expect(response.adjustments).toEqual([]);
    expect(wireMessages()).toEqual([
      {
        role: 'user',
        content: [
          { text: 'What is in these?' },
          { image: { format: 'png', source: { bytes: PNG } } },
          { document: { format: 'pdf', name: 'Q3 Report', source: { bytes: PDF } } },
        ],
      },
    ]);
  });

  it('every Converse image and document format is mapped from its media type (parameters ignored)', async () => {
    const images = { 'image/gif': 'gif', 'image/jpeg': 'jpeg', 'image/png': 'png', 'image/webp': 'webp' };
    const documents = {
      'application/pdf': 'pdf',
      'text/csv': 'csv',
      'application/msword': 'doc',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
      'text/html': 'html',
      'text/markdown': 'md',
      'text/plain; charset=utf-8': 'txt',
      'application/vnd.ms-excel': 'xls',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
    };
    server.enqueue(OK);
    await model().generate({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Read all of them.' },
            ...Object.keys(images).map((mediaType) => ({ type: 'image' as const, mediaType, data: PNG })),
            ...Object.keys(documents).map((mediaType, index) => ({
              type: 'file' as const,
              mediaType,
              data: PDF,
              filename: `doc ${index}`,
            })),
          ],
        },
      ],
    });
    const blocks = wireMessages()[0]?.content ?? [];
    expect(
      blocks.flatMap((block) =>
        block.image === undefined ? [] : [(block.image as { format: string }).format],
      ),
    ).toEqual(Object.values(images));
    expect(
      blocks.flatMap((block) =>
        block.document === undefined ? [] : [(block.document as { format: string }).format],
      ),
    ).toEqual(Object.values(documents));
  });

  it('a file of an image type is sent as an image, under the image limit', async () => {
    server.enqueue(OK);
    await model().generate({
      messages: [
        { role: 'user', content: [{ type: 'file', mediaType: 'image/jpeg', data: PNG, filename: 'a.jpg' }] },
      ],
    });
    expect(wireMessages()[0]?.content).toEqual([{ image: { format: 'jpeg', source: { bytes: PNG } } }]);
    const large = 'A'.repeat(Math.ceil((3.75 * MIB * 4) / 3) + 8);
    const failure = await model()
      .generate({
        messages: [{ role: 'user', content: [{ type: 'file', mediaType: 'image/png', data: large }] }],
      })
      .catch((error: unknown) => error);
    expect(ContentTooLargeError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({ kind: 'image', limit: 3.75 * MIB, messageIndex: 0, partIndex: 0 });
  });

  it('an s3:// URL becomes an S3 source; the media type gives the format', async () => {
    server.enqueue(OK);
    await model().generate({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', url: 's3://my-bucket/cat.png', mediaType: 'image/png' },
            {
              type: 'file',
              url: 's3://my-bucket/contract.pdf',
              mediaType: 'application/pdf',
              filename: 'contract',
            },
            { type: 'text', text: 'Compare.' },
          ],
        },
      ],
    });
    expect(wireMessages()[0]?.content).toEqual([
      { image: { format: 'png', source: { s3Location: { uri: 's3://my-bucket/cat.png' } } } },
      {
        document: {
          format: 'pdf',
          name: 'contract',
          source: { s3Location: { uri: 's3://my-bucket/contract.pdf' } },
        },
      },
      { text: 'Compare.' },
    ]);
  });
});

describe('images and files in tool results (Converse takes them natively)', () => {
  it('the parts become the toolResult content: text, image and document blocks', async () => {
    server.enqueue(OK);
    const response = await model().generate({
      messages: toolTurn([
        { type: 'text', text: 'Screenshot taken.' },
        { type: 'image', mediaType: 'image/png', data: PNG },
        { type: 'file', mediaType: 'text/csv', data: PDF, filename: 'links.csv' },
      ]),
      tools: [TOOL],
    });
    expect(wireMessages()[2]).toEqual({
      role: 'user',
      content: [
        {
          toolResult: {
            toolUseId: 'tooluse_1',
            content: [
              { text: 'Screenshot taken.' },
              { image: { format: 'png', source: { bytes: PNG } } },
              { document: { format: 'csv', name: 'links-csv', source: { bytes: PDF } } },
            ],
          },
        },
      ],
    });
    expect(response.adjustments).toEqual([
      expect.objectContaining({
        kind: 'history-rewritten',
        details: {
          reason: 'document-names-mapped',
          documents: [{ messageIndex: 2, partIndex: 2, filename: 'links.csv', sentAs: 'links-csv' }],
        },
      }),
    ]);
  });

  it('with the tool history written as text (tool choice none, rewrite policy), the media follow the text', async () => {
    server.enqueue(OK);
    await createTestBedrock(server)
      .provider('m', { noneToolChoicePolicy: 'rewrite-history-as-text' })
      .generate({
        messages: toolTurn([
          { type: 'text', text: 'Screenshot taken.' },
          { type: 'image', mediaType: 'image/png', data: PNG },
        ]),
        tools: [TOOL],
        toolChoice: ToolChoice.none(),
      });
    expect(wireMessages()[2]).toEqual({
      role: 'user',
      content: [
        { text: '[Tool result for tooluse_1 (take_screenshot): Screenshot taken.]' },
        { image: { format: 'png', source: { bytes: PNG } } },
      ],
    });
  });
});

describe('document names (Converse: letters, digits, single spaces, - ( ) [ ], at most 200, unique)', () => {
  it('names Converse refuses are rewritten, repeats made unique, missing names given; changes reported', async () => {
    server.enqueue(OK);
    const file = (filename?: string) => ({
      type: 'file' as const,
      mediaType: 'application/pdf',
      data: PDF,
      ...(filename === undefined ? {} : { filename }),
    });
    const response = await model().generate({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Summarise.' },
            file('report.pdf'),
            file('REPORT-pdf'),
            file("John's  notes\t(v2).pdf"),
            file(),
            file(),
            file('Fine name [final]'),
          ],
        },
      ],
    });
    const names = (wireMessages()[0]?.content ?? []).flatMap((block) =>
      block.document === undefined ? [] : [(block.document as { name: string }).name],
    );
    expect(names).toEqual([
      'report-pdf',
      'REPORT-pdf (2)',
      'John-s notes (v2)-pdf',
      'document',
      'document (2)',
      'Fine name [final]',
    ]);
    expect(response.adjustments).toHaveLength(1);
    expect(response.adjustments[0]?.details).toEqual({
      reason: 'document-names-mapped',
      documents: [
        { messageIndex: 0, partIndex: 1, filename: 'report.pdf', sentAs: 'report-pdf' },
        { messageIndex: 0, partIndex: 2, filename: 'REPORT-pdf', sentAs: 'REPORT-pdf (2)' },
        {
          messageIndex: 0,
          partIndex: 3,
          filename: "John's  notes\t(v2).pdf",
          sentAs: 'John-s notes (v2)-pdf',
        },
      ],
    });
  });

  it('the fake server answers a name Converse refuses as Bedrock does (what the adapter prevents)', async () => {
    const { converseValidationError } = await import('./fake-converse-validation.js');
    const body = (...names: string[]) => ({
      messages: [{ role: 'user', content: names.map((name) => ({ document: { name } })) }],
    });
    expect(converseValidationError(body('report.pdf'))).toMatch(/^The document file name can only contain/);
    expect(converseValidationError(body('two  spaces'))).toMatch(/^The document file name can only contain/);
    expect(converseValidationError(body('Report', 'report'))).toMatch(/duplicate document names/);
    expect(converseValidationError(body('report-pdf', 'report-pdf (2)'))).toBeUndefined();
  });
});

describe('content Converse cannot take fails before sending, with a typed error', () => {
  const refused = async (messages: Message[]): Promise<unknown> => {
    const failure = await model()
      .generate({ messages })
      .catch((error: unknown) => error);
    expect(server.requests).toHaveLength(0);
    return failure;
  };

  it('an https URL: InvalidRequestError naming the way out, without the URL path or query', async () => {
    const failure = await refused([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look.' },
          { type: 'image', url: 'https://user:pw@cdn.example.com/private/cat.png?X-Amz-Signature=secret123' },
        ],
      },
    ]);
    expect(InvalidRequestError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({ provider: 'bedrock', providerCode: 'unsupported_content_url' });
    const message = (failure as Error).message;
    expect(message).toContain('part 1 of message 0');
    expect(message).toContain('https://cdn.example.com/');
    expect(message).toContain('s3://');
    for (const hidden of ['private', 'secret123', 'pw@']) expect(message).not.toContain(hidden);
  });

  it('a URL in a tool result or a file part, and a data: URL, are refused the same way', async () => {
    for (const messages of [
      toolTurn([{ type: 'image', url: 'https://example.com/a.png', mediaType: 'image/png' }]),
      [
        {
          role: 'user' as const,
          content: [{ type: 'file' as const, url: 'http://x/a.pdf', mediaType: 'application/pdf' }],
        },
      ],
      [{ role: 'user' as const, content: [{ type: 'image' as const, url: `data:image/png;base64,${PNG}` }] }],
    ]) {
      const failure = await refused(messages);
      expect(failure).toMatchObject({ code: 'invalid_request', providerCode: 'unsupported_content_url' });
    }
  });

  it('a media type outside Converse formats: InvalidRequestError listing the accepted ones', async () => {
    const image = await refused([
      { role: 'user', content: [{ type: 'image', mediaType: 'image/bmp', data: PNG }] },
    ]);
    expect(image).toMatchObject({ providerCode: 'unsupported_media_type' });
    expect((image as Error).message).toContain("'image/bmp'");
    expect((image as Error).message).toContain('image/webp');
    const file = await refused([
      {
        role: 'user',
        content: [{ type: 'file', mediaType: 'application/zip', data: PDF, filename: 'a.zip' }],
      },
    ]);
    expect(file).toMatchObject({ providerCode: 'unsupported_media_type' });
    expect((file as Error).message).toContain('application/pdf');
    const s3WithoutType = await refused([{ role: 'user', content: [{ type: 'image', url: 's3://b/cat' }] }]);
    expect(s3WithoutType).toMatchObject({ providerCode: 'unsupported_media_type' });
  });

  it('data that is not base64: InvalidMessageHistoryError naming the message', async () => {
    for (const data of ['not base64!', 'aGk=aGk=', 'aGk\n', 'a']) {
      const failure = await refused([
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello' },
        { role: 'user', content: [{ type: 'image', mediaType: 'image/png', data }] },
      ]);
      expect(InvalidMessageHistoryError.isInstance(failure)).toBe(true);
      expect(failure).toMatchObject({ messageIndex: 2 });
    }
  });

  it("sizes over Bedrock's documented limits: ContentTooLargeError (3.75 MiB an image, 4.5 MiB a document)", async () => {
    const bytesOf = (size: number) => 'A'.repeat(Math.ceil(size / 3) * 4);
    const image = await refused([
      { role: 'user', content: [{ type: 'image', mediaType: 'image/png', data: bytesOf(3.75 * MIB + 3) }] },
    ]);
    expect(ContentTooLargeError.isInstance(image)).toBe(true);
    expect(image).toMatchObject({ provider: 'bedrock', kind: 'image', limit: 3.75 * MIB });
    const document = await refused(
      toolTurn([
        { type: 'file', mediaType: 'application/pdf', data: bytesOf(4.5 * MIB + 3), filename: 'big' },
      ]),
    );
    expect(document).toMatchObject({
      code: 'content_too_large',
      kind: 'file',
      limit: 4.5 * MIB,
      messageIndex: 2,
    });
  });

  it('sizes at the limits are sent', async () => {
    server.enqueue(OK);
    const atLimit = 'A'.repeat((3.75 * MIB * 4) / 3);
    await model().generate({
      messages: [{ role: 'user', content: [{ type: 'image', mediaType: 'image/png', data: atLimit }] }],
    });
    expect(server.requests).toHaveLength(1);
  });
});
