import {
  base64ByteLength,
  type ContentPart,
  contentPartProblem,
  type FileContentPart,
  type ImageContentPart,
  type MessageContent,
} from '@org/core';
import { InvalidToolOptionError } from './errors.js';

/** The media a tool result may carry beside its output: images and files. */
export type ToolMediaPart = ImageContentPart | FileContentPart;

/** Inline media of one tool result, in decoded bytes, beyond which the call fails (`content_too_large`). */
export const MAX_TOOL_CONTENT_BYTES = 20 * 1024 * 1024;

const CONTENT = Symbol.for('org.tools.withContent');

/** A tool result carrying images or files; created by `withContent`. */
export interface ToolOutputWithContent<Output = unknown> {
  readonly [CONTENT]: true;
  readonly output: Output;
  readonly content: readonly ToolMediaPart[];
}

/**
 * Returns a tool result with images or files the model sees beside `output` (a screenshot, a chart, a PDF): the tool
 * message carries them as content parts, which each provider maps to its wire form (or, where it cannot take media in
 * a tool result, moves or reports with an `Adjustment`). Each part is checked here (`InvalidToolOptionError`, naming
 * it); media of more than 20 MiB in one result end the call with `content_too_large`.
 *
 * @example
 * execute: async ({ url }) => withContent({ title: 'Home page' }, [{ type: 'image', mediaType: 'image/png', data: png }]),
 */
export function withContent<Output>(
  output: Output,
  content: readonly ToolMediaPart[],
): ToolOutputWithContent<Output> {
  if (!Array.isArray(content)) {
    throw new InvalidToolOptionError({
      option: 'content',
      reason: 'must be an array of image or file parts',
    });
  }
  content.forEach((part, index) => {
    const problem =
      contentPartProblem(part) ??
      ((part as ContentPart).type === 'text'
        ? 'text belongs in the output; content holds images and files.'
        : undefined);
    if (problem !== undefined) {
      throw new InvalidToolOptionError({ option: `content[${index}]`, reason: problem });
    }
  });
  return { [CONTENT]: true, output, content: Object.freeze([...content]) };
}

/** True for a value made by `withContent`. */
export function hasContent(value: unknown): value is ToolOutputWithContent {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[CONTENT] === true;
}

/** Decoded bytes of the inline media of a result (media by URL count nothing). */
export function contentBytes(content: readonly ToolMediaPart[]): number {
  return content.reduce((sum, part) => sum + (part.data === undefined ? 0 : base64ByteLength(part.data)), 0);
}

/**
 * The content of the tool message for a result: its text (what `formatObservationForModel` gives), followed by the
 * images and files the tool returned with `withContent`; plain text when it returned none.
 *
 * @example
 * { role: 'tool', toolCallId, toolName, content: toolMessageContent(text, observation.content) }
 */
export function toolMessageContent(
  text: string,
  content: readonly ToolMediaPart[] | undefined,
): MessageContent {
  if (content === undefined || content.length === 0) return text;
  return [{ type: 'text', text }, ...content];
}
