import type { DocumentFormat, ImageFormat } from '@aws-sdk/client-bedrock-runtime';
import type { ContentLimits } from '@org/core';

const MIB = 1024 * 1024;

/**
 * The media limits of one Converse request, checked before sending (`assertContentWithinLimits`, which throws
 * `ContentTooLargeError`). Source: the Amazon Bedrock API reference, `Message` data type
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Message.html, also the JSDoc of
 * `Message.content` in `@aws-sdk/client-bedrock-runtime`): "Each image's size, height, and width must be no more
 * than 3.75 MB, 8000 px, and 8000 px" and "Each document's size must be no more than 4.5 MB". The megabytes are
 * binary: Bedrock checks an image's base64 form against 5 MiB ("image exceeds 5 MB maximum: … bytes > 5242880
 * bytes"), which is 3.75 MiB of bytes. Not checked here, left to Bedrock's own ValidationException: the counts
 * (20 images, 5 documents) and the pixel sizes, which need the image decoded.
 *
 * @example
 * assertContentWithinLimits(request.messages, BEDROCK_CONTENT_LIMITS, 'bedrock');
 */
export const BEDROCK_CONTENT_LIMITS: ContentLimits = Object.freeze({
  maxImageBytes: 3.75 * MIB,
  maxFileBytes: 4.5 * MIB,
});

/** The image media types Converse takes (`ImageFormat`: gif, jpeg, png, webp), by media type. */
export const BEDROCK_IMAGE_FORMATS: ReadonlyMap<string, ImageFormat> = new Map<string, ImageFormat>([
  ['image/gif', 'gif'],
  ['image/jpeg', 'jpeg'],
  ['image/png', 'png'],
  ['image/webp', 'webp'],
]);

/** The document media types Converse takes (`DocumentFormat`), by media type. */
export const BEDROCK_DOCUMENT_FORMATS: ReadonlyMap<string, DocumentFormat> = new Map<string, DocumentFormat>([
  ['application/pdf', 'pdf'],
  ['text/csv', 'csv'],
  ['application/msword', 'doc'],
  ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'docx'],
  ['text/html', 'html'],
  ['text/markdown', 'md'],
  ['text/plain', 'txt'],
  ['application/vnd.ms-excel', 'xls'],
  ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'xlsx'],
]);

/**
 * The essence of a media type, as the maps above are keyed: lower case, parameters cut (`text/plain; charset=utf-8`
 * is `text/plain`).
 */
export function mediaTypeEssence(mediaType: string): string {
  return (mediaType.split(';')[0] ?? '').trim().toLowerCase();
}
