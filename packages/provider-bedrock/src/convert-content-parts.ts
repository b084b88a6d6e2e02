import type { DocumentBlock, ImageBlock } from '@aws-sdk/client-bedrock-runtime';
import {
  base64ByteLength,
  type ContentPart,
  ContentTooLargeError,
  type FileContentPart,
  type ImageContentPart,
  InvalidMessageHistoryError,
  InvalidRequestError,
  type MessageContent,
} from '@org/core';
import { decodeBase64 } from './base64.js';
import {
  BEDROCK_CONTENT_LIMITS,
  BEDROCK_DOCUMENT_FORMATS,
  BEDROCK_IMAGE_FORMATS,
  mediaTypeEssence,
} from './content-limits.js';
import type { DocumentNamer } from './document-names.js';
import { BEDROCK_PROVIDER } from './map-error.js';

/**
 * One part on the wire. Converse uses the same members in a message (`ContentBlock`) and in a tool result
 * (`ToolResultContentBlock`), so one mapping serves both.
 */
export type WirePart = { text: string } | { image: ImageBlock } | { document: DocumentBlock };

/** Where the parts come from, for error messages and document names. */
export interface ContentPartsContext {
  readonly messageIndex: number;
  readonly documentNames: DocumentNamer;
}

/**
 * Converts a user message's or a tool result's content to Converse parts: a string is one text part; text parts
 * stay text; images become `image` blocks (`format` from the media type, `source.bytes`); files become `document`
 * blocks (`format`, a valid unique `name`, `source.bytes`), or `image` blocks when their media type is an image.
 * Converse takes images and documents inside a tool result natively, so nothing is moved or dropped.
 *
 * Sources Converse cannot take fail before anything is sent: a URL that is not `s3://` (Converse reads only bytes or
 * S3 objects, it fetches no URL) and a media type outside its formats are `InvalidRequestError`s; data that is not
 * base64 is an `InvalidMessageHistoryError`. An `s3://` URL becomes `source.s3Location` (the model must support S3
 * sources, and the caller's AWS identity must be able to read the object).
 *
 * @example
 * convertContentParts([{ type: 'text', text: 'What is this?' }, { type: 'image', mediaType: 'image/png', data }], context);
 * // [{ text: 'What is this?' }, { image: { format: 'png', source: { bytes } } }]
 */
export function convertContentParts(content: MessageContent, context: ContentPartsContext): WirePart[] {
  if (typeof content === 'string') return [{ text: content }];
  return content.map((part, partIndex) => convertPart(part, partIndex, context));
}

function convertPart(part: ContentPart, partIndex: number, context: ContentPartsContext): WirePart {
  switch (part.type) {
    case 'text':
      return { text: part.text };
    case 'image':
      return { image: imageBlock(part, partIndex, context) };
    case 'file': {
      const essence = mediaTypeEssence(part.mediaType);
      if (BEDROCK_IMAGE_FORMATS.has(essence)) return { image: imageBlock(part, partIndex, context) };
      const format = BEDROCK_DOCUMENT_FORMATS.get(essence);
      if (format === undefined) throw unsupportedMediaType(part, partIndex, context);
      return {
        document: {
          format,
          name: context.documentNames.nameFor(part.filename, {
            messageIndex: context.messageIndex,
            partIndex,
          }),
          source: source(part, partIndex, context),
        },
      };
    }
  }
}

function imageBlock(
  part: ImageContentPart | FileContentPart,
  partIndex: number,
  context: ContentPartsContext,
): ImageBlock {
  const wireSource = source(part, partIndex, context);
  if (part.mediaType === undefined) {
    throw new InvalidRequestError({
      provider: BEDROCK_PROVIDER,
      providerCode: 'unsupported_media_type',
      message:
        `The image at part ${partIndex} of message ${context.messageIndex} has no mediaType; Converse needs the ` +
        `format of an image it reads from S3 (${[...BEDROCK_IMAGE_FORMATS.keys()].join(', ')}).`,
    });
  }
  const format = BEDROCK_IMAGE_FORMATS.get(mediaTypeEssence(part.mediaType));
  if (format === undefined) throw unsupportedMediaType(part, partIndex, context);
  // A file of an image type is sent as an image, so the image limit applies (the core check counted it as a file).
  if (part.type === 'file' && part.data !== undefined) {
    const bytes = base64ByteLength(part.data);
    if (bytes > BEDROCK_CONTENT_LIMITS.maxImageBytes) {
      throw new ContentTooLargeError({
        provider: BEDROCK_PROVIDER,
        messageIndex: context.messageIndex,
        partIndex,
        kind: 'image',
        bytes,
        limit: BEDROCK_CONTENT_LIMITS.maxImageBytes,
      });
    }
  }
  return { format, source: wireSource };
}

/** `{ bytes }` for inline data, `{ s3Location }` for an `s3://` URL; any other URL is refused. */
function source(
  part: ImageContentPart | FileContentPart,
  partIndex: number,
  context: ContentPartsContext,
): { bytes: Uint8Array } | { s3Location: { uri: string } } {
  if (part.data !== undefined) {
    const bytes = decodeBase64(part.data);
    if (bytes === undefined) {
      throw new InvalidMessageHistoryError({
        message:
          `The ${part.type} at part ${partIndex} of message ${context.messageIndex} is not base64 data ` +
          '(standard alphabet, no whitespace); it is not sent.',
        messageIndex: context.messageIndex,
      });
    }
    return { bytes };
  }
  if (/^s3:\/\//i.test(part.url)) return { s3Location: { uri: part.url } };
  throw new InvalidRequestError({
    provider: BEDROCK_PROVIDER,
    providerCode: 'unsupported_content_url',
    message:
      `The ${part.type} at part ${partIndex} of message ${context.messageIndex} is given by URL ` +
      `(${describeUrl(part.url)}), and Converse fetches no URL: it takes the bytes or an s3:// object. Download it ` +
      'and pass the base64 as `data`, or store it in S3 and pass the s3:// URL.',
  });
}

function unsupportedMediaType(
  part: ImageContentPart | FileContentPart,
  partIndex: number,
  context: ContentPartsContext,
): InvalidRequestError {
  const accepted =
    part.type === 'image'
      ? [...BEDROCK_IMAGE_FORMATS.keys()]
      : [...BEDROCK_DOCUMENT_FORMATS.keys(), ...BEDROCK_IMAGE_FORMATS.keys()];
  return new InvalidRequestError({
    provider: BEDROCK_PROVIDER,
    providerCode: 'unsupported_media_type',
    message:
      `The ${part.type} at part ${partIndex} of message ${context.messageIndex} has media type ` +
      `'${part.mediaType}', which Converse does not take; accepted: ${accepted.join(', ')}.`,
  });
}

/** The scheme and host of a URL, never its credentials, path or query (a presigned URL carries a credential). */
function describeUrl(url: string): string {
  const match = /^([a-z][a-z0-9+.-]*):(?:\/\/(?:[^/?#@]*@)?([^/?#]*))?/i.exec(url);
  if (match === null) return 'not an absolute URL';
  return match[2] === undefined ? `a ${match[1]}: URL` : `${match[1]}://${match[2]}/…`;
}
