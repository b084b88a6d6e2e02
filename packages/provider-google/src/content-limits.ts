import type { ContentLimits } from '@org/core';

/**
 * What the Gemini API takes inline, in decoded bytes: a request is at most 20 MB in all
 * (https://ai.google.dev/gemini-api/docs/image-understanding), larger media go through the Files API (`fileData` with
 * a URI). Checked before sending (`assertContentWithinLimits`), so an oversized image fails with
 * `ContentTooLargeError` instead of a round trip.
 */
export const GOOGLE_CONTENT_LIMITS: ContentLimits = Object.freeze({
  maxImageBytes: 20 * 1024 * 1024,
  maxFileBytes: 20 * 1024 * 1024,
  maxTotalBytes: 20 * 1024 * 1024,
});

/** The image media types Gemini accepts. */
export const GOOGLE_IMAGE_MEDIA_TYPES: readonly string[] = Object.freeze([
  'image/png',
  'image/jpeg',
  'image/webp',
  'image/heic',
  'image/heif',
]);

/** The document and media types Gemini accepts as files (PDF, plain text and code, audio, video). */
export const GOOGLE_FILE_MEDIA_TYPES: readonly string[] = Object.freeze([
  'application/pdf',
  'text/plain',
  'text/html',
  'text/css',
  'text/csv',
  'text/markdown',
  'text/xml',
  'application/json',
  'audio/wav',
  'audio/mp3',
  'audio/mpeg',
  'audio/aac',
  'audio/ogg',
  'audio/flac',
  'video/mp4',
  'video/mpeg',
  'video/webm',
  'video/quicktime',
]);
