// Standard base64 (RFC 4648 section 4), padded or not; no whitespace, no URL-safe alphabet.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The bytes of standard base64 text, or `undefined` when the text is not base64 (a character outside the alphabet,
 * misplaced padding, a length no encoding produces). Strict on purpose: Node's decoder skips what it does not
 * understand, and bytes guessed from broken text must never be sent as an image or as redacted reasoning.
 *
 * @example
 * decodeBase64('aGk='); // Uint8Array [104, 105]
 * decodeBase64('not base64!'); // undefined
 */
export function decodeBase64(text: string): Uint8Array | undefined {
  if (!BASE64.test(text)) return undefined;
  const unpadded = text.replace(/=+$/, '');
  if (unpadded.length % 4 === 1) return undefined;
  if (text.length !== unpadded.length && text.length % 4 !== 0) return undefined;
  const buffer = Buffer.from(unpadded, 'base64');
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/**
 * Standard, padded base64 of bytes (how redacted reasoning is kept in `ReasoningPart.redactedData`).
 *
 * @example
 * encodeBase64(new Uint8Array([104, 105])); // 'aGk='
 */
export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}
