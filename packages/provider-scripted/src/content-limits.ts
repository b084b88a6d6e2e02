import type { ContentLimits } from '@org/core';

const MEBIBYTE = 1024 * 1024;

/**
 * The scripted model's size limits for inline (base64) images and files, in decoded bytes, as
 * `assertContentWithinLimits` of `@org/core` reads them: 5 MiB per image, 32 MiB per file and 32 MiB for all inline
 * media of one request. Round figures in the range of the hosted providers (Anthropic takes 5 MB of base64 per
 * image and 32 MB per request), so a request a provider would refuse for its size fails offline too. Media sent by
 * URL are not counted. Override per model with `createScriptedModel({ contentLimits })`.
 *
 * @example
 * createScriptedModel({ script, contentLimits: { ...SCRIPTED_CONTENT_LIMITS, maxImageBytes: 1024 } });
 */
export const SCRIPTED_CONTENT_LIMITS: ContentLimits = Object.freeze({
  maxImageBytes: 5 * MEBIBYTE,
  maxFileBytes: 32 * MEBIBYTE,
  maxTotalBytes: 32 * MEBIBYTE,
});

/**
 * The image media types the scripted model accepts: those OpenAI, Anthropic and Bedrock all take. Files may have
 * any media type (`type/subtype`): what each provider reads differs, and the scripted model reads none.
 */
export const SCRIPTED_IMAGE_MEDIA_TYPES: readonly string[] = Object.freeze([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
]);
