import {
  assertContentWithinLimits,
  type ContentLimits,
  type ContentPart,
  InvalidProviderOptionsError,
  InvalidRequestError,
  type Message,
} from '@org/core';

const MEGABYTE = 1024 * 1024;

/**
 * OpenAI's documented limits for inline images and files, in decoded bytes, checked before anything is sent.
 *
 * - Images: "Up to 50 MB total payload size per request" and PNG, JPEG, WEBP, non-animated GIF
 *   (https://platform.openai.com/docs/guides/images-vision#image-input-requirements); 20 MB per image (the same
 *   guide's earlier "image upload size is limited to 20 MB per image").
 * - Files: "up to 100 pages and 32 MB of total content in a single request"
 *   (https://platform.openai.com/docs/guides/pdf-files#usage-considerations).
 * - The 50 MB payload is the JSON body, where inline data travels as base64 (4 characters per 3 bytes): so at most
 *   37.5 MB of decoded media per request.
 *
 * Media sent by URL is fetched by OpenAI and not counted here.
 */
export const OPENAI_CONTENT_LIMITS: ContentLimits = Object.freeze({
  maxImageBytes: 20 * MEGABYTE,
  maxFileBytes: 32 * MEGABYTE,
  maxTotalBytes: Math.floor((50 * MEGABYTE * 3) / 4),
});

/** Image media types OpenAI accepts (same source as `OPENAI_CONTENT_LIMITS`). */
export const OPENAI_IMAGE_MEDIA_TYPES: ReadonlySet<string> = new Set([
  'image/png',
  'image/jpeg',
  'image/webp',
  'image/gif',
]);

/** "Up to 500 individual image inputs per request" (same source as `OPENAI_CONTENT_LIMITS`). */
export const OPENAI_MAX_IMAGES_PER_REQUEST = 500;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const URL_PROTOCOLS: ReadonlySet<string> = new Set(['http:', 'https:', 'data:']);

const LIMIT_KEYS = ['maxImageBytes', 'maxFileBytes', 'maxTotalBytes'] as const;

/**
 * A model's limits: `OPENAI_CONTENT_LIMITS` with the fields the `contentLimits` setting gives (an OpenAI-compatible
 * server has its own), each a positive whole number of bytes or an `InvalidProviderOptionsError` naming it.
 */
export function resolveContentLimits(
  limits: Partial<ContentLimits> | undefined,
  provider: string,
): ContentLimits {
  if (limits === undefined) return OPENAI_CONTENT_LIMITS;
  if (typeof limits !== 'object' || limits === null) {
    throw new InvalidProviderOptionsError({
      provider,
      option: 'settings.contentLimits',
      message: 'settings.contentLimits must be an object of byte limits.',
    });
  }
  for (const key of LIMIT_KEYS) {
    const value = limits[key];
    if (value !== undefined && !(Number.isSafeInteger(value) && value > 0)) {
      throw new InvalidProviderOptionsError({
        provider,
        option: `settings.contentLimits.${key}`,
        message: `settings.contentLimits.${key} must be a positive whole number of bytes, got ${JSON.stringify(value)}.`,
      });
    }
  }
  return Object.freeze({
    maxImageBytes: limits.maxImageBytes ?? OPENAI_CONTENT_LIMITS.maxImageBytes,
    maxFileBytes: limits.maxFileBytes ?? OPENAI_CONTENT_LIMITS.maxFileBytes,
    maxTotalBytes: limits.maxTotalBytes ?? (OPENAI_CONTENT_LIMITS.maxTotalBytes as number),
  });
}

/**
 * Checks every image and file of the request's user and tool messages before anything is sent: the size limits
 * (`ContentTooLargeError`), and an `InvalidRequestError` naming the message and part for an image type OpenAI does not
 * take, data that is not base64, a URL that is not http(s) or `data:`, or more than 500 images.
 */
export function assertContentAccepted(
  messages: readonly Message[],
  limits: ContentLimits,
  provider: string,
): void {
  let images = 0;
  messages.forEach((message, messageIndex) => {
    if ((message.role !== 'user' && message.role !== 'tool') || typeof message.content === 'string') return;
    if (!Array.isArray(message.content)) {
      throw new InvalidRequestError({
        provider,
        providerCode: 'invalid_content',
        message: `Message ${messageIndex}: content must be a string or a list of content parts.`,
      });
    }
    message.content.forEach((part, partIndex) => {
      const problem = partProblem(part);
      if (problem !== undefined) {
        throw new InvalidRequestError({
          provider,
          providerCode: 'invalid_content',
          message: `Message ${messageIndex}, part ${partIndex}: ${problem}`,
        });
      }
      if (part.type === 'image') images += 1;
    });
  });
  if (images > OPENAI_MAX_IMAGES_PER_REQUEST) {
    throw new InvalidRequestError({
      provider,
      providerCode: 'too_many_images',
      message: `The request holds ${images} images; OpenAI takes at most ${OPENAI_MAX_IMAGES_PER_REQUEST} per request.`,
    });
  }
  assertContentWithinLimits(messages, limits, provider);
}

function partProblem(part: ContentPart): string | undefined {
  if (typeof part !== 'object' || part === null) return 'a content part must be an object.';
  const type: unknown = (part as { readonly type?: unknown }).type;
  if (type !== 'text' && type !== 'image' && type !== 'file') {
    return `${JSON.stringify(type)} is not a content part type (text, image, file).`;
  }
  if (part.type === 'text')
    return typeof part.text === 'string' ? undefined : 'a text part needs a string text.';
  if (
    part.type === 'image' &&
    part.mediaType !== undefined &&
    !OPENAI_IMAGE_MEDIA_TYPES.has(part.mediaType)
  ) {
    return `the image type ${JSON.stringify(part.mediaType)} is not one OpenAI takes (${[...OPENAI_IMAGE_MEDIA_TYPES].join(', ')}).`;
  }
  if (part.type === 'file' && (typeof part.mediaType !== 'string' || part.mediaType === '')) {
    return 'a file part needs its mediaType (e.g. application/pdf).';
  }
  if (part.data !== undefined) {
    if (typeof part.data !== 'string' || part.data === '') return `the ${part.type} has no data.`;
    if (!BASE64.test(part.data)) {
      return `the ${part.type} data is not base64 (give the bare base64 text, not a data: URL).`;
    }
    return undefined;
  }
  if (typeof part.url !== 'string' || !hasAcceptedProtocol(part.url)) {
    return `the ${part.type} needs base64 data or an http(s) or data: URL.`;
  }
  return undefined;
}

function hasAcceptedProtocol(url: string): boolean {
  try {
    return URL_PROTOCOLS.has(new URL(url).protocol);
  } catch {
    return false;
  }
}
