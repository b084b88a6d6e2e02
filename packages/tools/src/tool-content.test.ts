import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  defineTool,
  executeAction,
  InvalidToolOptionError,
  MAX_TOOL_CONTENT_BYTES,
  ToolRegistry,
  toolMessageContent,
  withContent,
} from './index.js';

const png = (bytes: number) => Buffer.alloc(bytes, 1).toString('base64');

function screenshotTool(bytes: number) {
  return defineTool({
    name: 'screenshot',
    description: 'Takes a screenshot of a page.',
    input: z.object({ url: z.string() }),
    execute: ({ url }) =>
      withContent({ url, title: 'Home' }, [{ type: 'image', mediaType: 'image/png', data: png(bytes) }]),
  });
}

describe('withContent: a tool result with images and files', () => {
  it('keeps the output as the text the model reads and the media on the observation', async () => {
    const registry = new ToolRegistry([screenshotTool(10)]);
    const observation = await executeAction(registry, {
      id: 'c1',
      toolName: 'screenshot',
      args: { url: 'https://a.example' },
    });
    expect(observation.status).toBe('success');
    expect(observation.output).toEqual({ url: 'https://a.example', title: 'Home' });
    expect(observation.content).toEqual([{ type: 'image', mediaType: 'image/png', data: png(10) }]);
    expect(toolMessageContent('{"title":"Home"}', observation.content)).toEqual([
      { type: 'text', text: '{"title":"Home"}' },
      { type: 'image', mediaType: 'image/png', data: png(10) },
    ]);
    expect(toolMessageContent('plain', undefined)).toBe('plain');
  });

  it('refuses a malformed part where the tool builds it, naming it', () => {
    const bad: [unknown, RegExp][] = [
      [{ type: 'image', data: 'AAAA' }, /content\[0\].*mediaType/],
      [{ type: 'text', text: 'hi' }, /text belongs in the output/],
      [{ type: 'image', mediaType: 'image/png', data: 7 }, /base64 string/],
    ];
    for (const [part, message] of bad) {
      expect(() => withContent('x', [part as never])).toThrow(message);
      try {
        withContent('x', [part as never]);
      } catch (error) {
        expect(InvalidToolOptionError.isInstance(error)).toBe(true);
      }
    }
  });

  it('ends a call whose media exceed the limit with content_too_large, not a cut image', async () => {
    const registry = new ToolRegistry([screenshotTool(MAX_TOOL_CONTENT_BYTES + 3)]);
    const observation = await executeAction(registry, {
      id: 'c1',
      toolName: 'screenshot',
      args: { url: 'u' },
    });
    expect(observation.status).toBe('error');
    expect(observation.error?.code).toBe('content_too_large');
    expect(observation.content).toBeUndefined();
  });
});
