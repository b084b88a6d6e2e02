import type { ContentBlock, ReasoningContentBlock } from '@aws-sdk/client-bedrock-runtime';
import { InvalidMessageHistoryError, type ReasoningPart } from '@org/core';
import { decodeBase64, encodeBase64 } from './base64.js';
import { BEDROCK_PROVIDER } from './map-error.js';

/**
 * A Converse `reasoningContent` block as a core `ReasoningPart`: `reasoningText` gives its text and signature,
 * `redactedContent` (reasoning the model provider encrypted) its bytes as base64 in `redactedData`. `undefined` for a
 * member this SDK does not model.
 *
 * @example
 * reasoningPartOf({ reasoningText: { text: 'Let me count…', signature: 'EvYB…' } });
 * // { type: 'reasoning', provider: 'bedrock', text: 'Let me count…', signature: 'EvYB…' }
 */
export function reasoningPartOf(block: ReasoningContentBlock): ReasoningPart | undefined {
  if (block.reasoningText !== undefined) {
    const { text, signature } = block.reasoningText;
    return reasoningPart(text ?? '', signature, undefined);
  }
  if (block.redactedContent !== undefined) return reasoningPart('', undefined, block.redactedContent);
  return undefined;
}

/** A reasoning part from its pieces, as the stream assembler and `reasoningPartOf` build it. */
export function reasoningPart(
  text: string,
  signature: string | undefined,
  redacted: Uint8Array | undefined,
): ReasoningPart {
  return {
    type: 'reasoning',
    provider: BEDROCK_PROVIDER,
    text,
    ...(signature === undefined ? {} : { signature }),
    ...(redacted === undefined ? {} : { redactedData: encodeBase64(redacted) }),
  };
}

/**
 * A Bedrock reasoning part as the `reasoningContent` block it came from, to send back in its assistant turn:
 * `redactedData` as `redactedContent` bytes, otherwise the text with its signature, unmodified (Claude verifies the
 * signature, and rejects a turn whose reasoning was changed). Throws `InvalidMessageHistoryError` when
 * `redactedData` is not base64.
 *
 * @example
 * reasoningBlockOf({ type: 'reasoning', provider: 'bedrock', text: 'Let me count…', signature: 'EvYB…' }, 1);
 * // { reasoningContent: { reasoningText: { text: 'Let me count…', signature: 'EvYB…' } } }
 */
export function reasoningBlockOf(part: ReasoningPart, messageIndex: number): ContentBlock {
  if (part.redactedData !== undefined) {
    const bytes = decodeBase64(part.redactedData);
    if (bytes === undefined) {
      throw new InvalidMessageHistoryError({
        message:
          `The reasoning of assistant message ${messageIndex} has redactedData that is not base64; it is sent ` +
          'back to Bedrock as the bytes it was, so it must be the text the adapter returned.',
        messageIndex,
      });
    }
    return { reasoningContent: { redactedContent: bytes } };
  }
  return {
    reasoningContent: {
      reasoningText: {
        text: part.text,
        ...(part.signature === undefined ? {} : { signature: part.signature }),
      },
    },
  };
}
