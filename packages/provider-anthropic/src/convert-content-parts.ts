import type {
  DocumentBlockParam,
  ImageBlockParam,
  TextBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import { type ContentPart, InvalidRequestError } from '@org/core';
import { ANTHROPIC_DOCUMENT_MEDIA_TYPES, ANTHROPIC_IMAGE_MEDIA_TYPES } from './content-limits.js';

/** The blocks a user turn or a `tool_result` carries for content parts. */
export type ContentPartBlock = TextBlockParam | ImageBlockParam | DocumentBlockParam;

/** Where a part sits in the request, for error messages. */
export interface PartLocation {
  readonly messageIndex: number;
  readonly role: 'user' | 'tool';
}

type ImageMediaType = Extract<ImageBlockParam['source'], { type: 'base64' }>['media_type'];

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Maps content parts onto Messages API blocks, the same way in a user turn and in a `tool_result` (which takes
 * images and documents natively):
 *
 * | part | block |
 * | --- | --- |
 * | text | `text` (an empty one carries nothing and is left out: the API refuses empty text blocks) |
 * | image, base64 | `image` with a `base64` source (jpeg, png, gif, webp) |
 * | image, URL | `image` with a `url` source |
 * | file `application/pdf`, base64 or URL | `document` with a `base64` / `url` source, `filename` as its `title` |
 * | file `text/plain`, base64 | `document` with a `text` source (the data decoded as UTF-8) |
 *
 * A part the API cannot take (another media type, a URL that is not http(s), a `text/plain` file by URL, data that
 * is not base64 or not UTF-8) fails with `InvalidRequestError` (`providerCode` `unsupported_media_type` or
 * `invalid_content_part`) naming the message and the part: leaving it out would change what the model is asked
 * about. Sizes are checked before this, with `assertContentWithinLimits`.
 */
export function convertContentParts(
  parts: readonly ContentPart[],
  location: PartLocation,
): ContentPartBlock[] {
  const blocks: ContentPartBlock[] = [];
  parts.forEach((part, partIndex) => {
    const at = { ...location, partIndex };
    switch (part.type) {
      case 'text':
        if (typeof part.text !== 'string') throw invalidPart(at, 'a text part without a string text');
        if (part.text !== '') blocks.push({ type: 'text', text: part.text });
        return;
      case 'image':
        blocks.push(convertImage(part, at));
        return;
      case 'file':
        blocks.push(convertFile(part, at));
        return;
      default:
        throw invalidPart(at, `a part of unknown type ${JSON.stringify((part as { type?: unknown }).type)}`);
    }
  });
  return blocks;
}

interface At extends PartLocation {
  readonly partIndex: number;
}

function convertImage(part: Extract<ContentPart, { type: 'image' }>, at: At): ImageBlockParam {
  if (typeof part.data === 'string') {
    const mediaType = essenceOf(part.mediaType);
    if (!isImageMediaType(mediaType)) throw unsupportedMediaType(at, 'image', part.mediaType);
    assertBase64(part.data, at);
    return { type: 'image', source: { type: 'base64', media_type: mediaType, data: part.data } };
  }
  const url = checkUrl(part.url, at);
  if (part.mediaType !== undefined && !isImageMediaType(essenceOf(part.mediaType))) {
    throw unsupportedMediaType(at, 'image', part.mediaType);
  }
  return { type: 'image', source: { type: 'url', url } };
}

function convertFile(part: Extract<ContentPart, { type: 'file' }>, at: At): DocumentBlockParam {
  const mediaType = essenceOf(part.mediaType);
  const title = typeof part.filename === 'string' && part.filename !== '' ? { title: part.filename } : {};
  if (typeof part.data === 'string') {
    if (mediaType === 'application/pdf') {
      assertBase64(part.data, at);
      return {
        type: 'document',
        source: { type: 'base64', media_type: 'application/pdf', data: part.data },
        ...title,
      };
    }
    if (mediaType === 'text/plain') {
      return {
        type: 'document',
        source: { type: 'text', media_type: 'text/plain', data: decodeUtf8(part.data, at) },
        ...title,
      };
    }
    throw unsupportedMediaType(at, 'file', part.mediaType);
  }
  const url = checkUrl(part.url, at);
  if (mediaType === 'application/pdf') return { type: 'document', source: { type: 'url', url }, ...title };
  if (mediaType === 'text/plain') {
    throw new InvalidRequestError({
      provider: 'anthropic',
      providerCode: 'unsupported_media_type',
      message:
        `${describe(at)} is a text/plain file by URL; the Anthropic API fetches only PDFs by URL. ` +
        `Send the text inline (data, base64) or as a text part.`,
    });
  }
  throw unsupportedMediaType(at, 'file', part.mediaType);
}

/** The media type without parameters, lower-cased (`Image/PNG; x=1` is `image/png`), as media types compare. */
function essenceOf(mediaType: unknown): string {
  return typeof mediaType === 'string' ? (mediaType.split(';')[0] ?? '').trim().toLowerCase() : '';
}

function isImageMediaType(mediaType: string): mediaType is ImageMediaType {
  return ANTHROPIC_IMAGE_MEDIA_TYPES.includes(mediaType);
}

function assertBase64(data: string, at: At): void {
  if (data.length % 4 === 0 && BASE64.test(data)) return;
  const hint = data.startsWith('data:')
    ? ` It starts with 'data:': pass only the base64 after the comma.`
    : '';
  throw invalidPart(
    at,
    `data that is not standard base64 (A-Z, a-z, 0-9, +, /, '=' padding, no whitespace).${hint}`,
  );
}

function decodeUtf8(data: string, at: At): string {
  assertBase64(data, at);
  try {
    const bytes = Uint8Array.from(atob(data), (character) => character.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw invalidPart(at, 'a text/plain file whose data is not UTF-8 text');
  }
}

function checkUrl(url: unknown, at: At): string {
  if (typeof url !== 'string') throw invalidPart(at, 'neither base64 data nor a URL');
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    throw invalidPart(at, `a URL that does not parse (${JSON.stringify(url.slice(0, 80))})`);
  }
  if (protocol !== 'https:' && protocol !== 'http:') {
    throw invalidPart(
      at,
      `a ${protocol} URL; the Anthropic API fetches http(s) URLs only. Send the content inline (data and mediaType).`,
    );
  }
  return url;
}

function describe(at: At): string {
  return `Part ${at.partIndex} of message ${at.messageIndex} (${at.role === 'tool' ? 'a tool result' : 'user'})`;
}

function invalidPart(at: At, what: string): InvalidRequestError {
  return new InvalidRequestError({
    provider: 'anthropic',
    providerCode: 'invalid_content_part',
    message: `${describe(at)} has ${what}`,
  });
}

function unsupportedMediaType(at: At, kind: 'image' | 'file', mediaType: unknown): InvalidRequestError {
  const accepted = kind === 'image' ? ANTHROPIC_IMAGE_MEDIA_TYPES : ANTHROPIC_DOCUMENT_MEDIA_TYPES;
  return new InvalidRequestError({
    provider: 'anthropic',
    providerCode: 'unsupported_media_type',
    message:
      `${describe(at)} is ${kind === 'image' ? 'an image' : 'a file'} of media type ` +
      `${JSON.stringify(mediaType) ?? String(mediaType)}, which the Anthropic API does not accept ` +
      `(${accepted.join(', ')}). Convert it to one of those, or send its text as a text part.`,
  });
}
