import type { ContentLimits } from '@org/core';

/**
 * The media Mistral's chat completions take inline, in decoded bytes (its documented 10 MB per image and 50 MB per
 * document), checked before sending (`assertContentWithinLimits`), so an oversized image fails with
 * `ContentTooLargeError` instead of a round trip.
 */
export const MISTRAL_CONTENT_LIMITS: ContentLimits = Object.freeze({
  maxImageBytes: 10 * 1024 * 1024,
  maxFileBytes: 50 * 1024 * 1024,
  maxTotalBytes: 50 * 1024 * 1024,
});

/** The image media types Mistral's vision models take (`image_url` chunks). */
export const MISTRAL_IMAGE_MEDIA_TYPES: readonly string[] = Object.freeze([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
]);

/** The document media types Mistral takes in a `document_url` chunk. */
export const MISTRAL_FILE_MEDIA_TYPES: readonly string[] = Object.freeze(['application/pdf']);
