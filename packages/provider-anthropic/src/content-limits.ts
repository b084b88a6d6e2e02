import type { ContentLimits } from '@org/core';

// The figures below are Anthropic's documented limits, as of API version 2026-10-21:
// - Images: "API: Maximum 5 MB per image" (https://platform.claude.com/docs/en/build-with-claude/vision, "General
//   limits"). The API measures the base64 text, not the decoded image: its 400 reads
//   "messages.N.content.M.image.source.base64: image exceeds 5 MB maximum: 5272940 bytes > 5242880 bytes". 5 MiB of
//   base64 (5 242 880 characters) decode to at most 3 932 160 bytes.
// - Request: "Maximum request size: 32 MB", on "the entire request payload, including any other content sent
//   alongside PDFs" (https://platform.claude.com/docs/en/build-with-claude/pdf-support). 32 MiB of base64
//   (33 554 432 characters) decode to at most 25 165 824 bytes; that bounds one file and all inline media together
//   (the text of the request counts too, so a request just under it may still get the API's 413).

/** 5 MiB of base64 text, decoded. */
const MAX_IMAGE_BYTES = (5 * 1024 * 1024 * 3) / 4;
/** 32 MiB of base64 text, decoded. */
const MAX_REQUEST_MEDIA_BYTES = (32 * 1024 * 1024 * 3) / 4;

/**
 * Anthropic's size limits for inline (base64) images and files, in decoded bytes, as `assertContentWithinLimits` of
 * `@org/core` reads them: 3 932 160 bytes per image (the API's 5 MB of base64), 25 165 824 bytes per file and for
 * all inline media of one request (its 32 MB request size). Checked before anything is sent; a part over a limit
 * fails with `ContentTooLargeError`. Media sent by URL are fetched by Anthropic and not counted. Override per model
 * with `anthropic(modelId, { contentLimits })`, e.g. for a gateway with other limits.
 *
 * @example
 * import { ANTHROPIC_CONTENT_LIMITS } from '@org/provider-anthropic';
 *
 * if (png.byteLength > ANTHROPIC_CONTENT_LIMITS.maxImageBytes) png = await shrink(png);
 */
export const ANTHROPIC_CONTENT_LIMITS: ContentLimits = Object.freeze({
  maxImageBytes: MAX_IMAGE_BYTES,
  maxFileBytes: MAX_REQUEST_MEDIA_BYTES,
  maxTotalBytes: MAX_REQUEST_MEDIA_BYTES,
});

/** The image media types the Messages API accepts (`Base64ImageSource.media_type`). */
export const ANTHROPIC_IMAGE_MEDIA_TYPES: readonly string[] = Object.freeze([
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
]);

/**
 * The file media types the Messages API accepts as a `document` block: PDF (inline or by URL) and plain text
 * (inline, sent as a text source).
 */
export const ANTHROPIC_DOCUMENT_MEDIA_TYPES: readonly string[] = Object.freeze([
  'application/pdf',
  'text/plain',
]);
