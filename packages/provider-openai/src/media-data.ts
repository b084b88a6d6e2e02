import type { FileContentPart, ImageContentPart } from '@org/core';

/** Inline data as the `data:` URL both OpenAI APIs take for images and files. */
export function dataUrl(mediaType: string, data: string): string {
  return `data:${mediaType};base64,${data}`;
}

/** An image as the URL OpenAI fetches or decodes: its own URL, or its data as a `data:` URL. */
export function imageUrl(part: ImageContentPart): string {
  return part.data === undefined ? part.url : dataUrl(part.mediaType, part.data);
}

const EXTENSIONS: ReadonlyMap<string, string> = new Map([
  ['application/pdf', '.pdf'],
  ['text/plain', '.txt'],
  ['text/csv', '.csv'],
  ['text/markdown', '.md'],
  ['application/json', '.json'],
]);

/**
 * The file name sent with inline file data: the part's own, or `file-<n>` with the extension of its media type.
 * OpenAI wants a name beside `file_data`; it only names the document for the model.
 */
export function fileName(part: FileContentPart, position: number): string {
  return part.filename ?? `file-${position + 1}${EXTENSIONS.get(part.mediaType) ?? ''}`;
}
