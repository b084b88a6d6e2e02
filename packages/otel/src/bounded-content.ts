import { redactSecrets, redactSecretsDeep } from '@org/core';

/** The default cap of one captured content attribute (arguments, a result, the model's output), in UTF-8 bytes. */
export const DEFAULT_MAX_CONTENT_BYTES = 4096;

/** The cap of an error message in a span status or an event attribute, in UTF-8 bytes. */
export const MAX_MESSAGE_BYTES = 1024;

/** What ends a value cut to its cap; the cut value, marker included, fits the cap. */
export const TRUNCATION_MARKER = '…[truncated]';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const MARKER_BYTES = encoder.encode(TRUNCATION_MARKER).length;

/**
 * Cuts `text` to at most `maxBytes` UTF-8 bytes, marker included, never inside a character. Text that fits is
 * returned unchanged.
 */
export function boundText(text: string, maxBytes: number): string {
  // Fast path: a string of n UTF-16 units is at most 3n UTF-8 bytes.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  const room = Math.max(0, maxBytes - MARKER_BYTES);
  // A cut inside a multi-byte character decodes to U+FFFD: drop it.
  const head = decoder.decode(bytes.subarray(0, room)).replace(/\uFFFD+$/u, '');
  return `${head}${TRUNCATION_MARKER}`;
}

/** A message for a status or an event: redacted of secrets, then bounded. */
export function boundMessage(message: string): string {
  return boundText(redactSecrets(message), MAX_MESSAGE_BYTES);
}

/**
 * A captured value as an attribute: redacted of secrets (registered ones and credential-shaped strings, deep),
 * serialised as JSON (a string as is), redacted again as text, and bounded to `maxBytes`.
 */
export function boundContent(value: unknown, maxBytes: number): string {
  let text: string;
  try {
    const redacted = redactSecretsDeep(value);
    text = typeof redacted === 'string' ? redacted : (JSON.stringify(redacted) ?? String(redacted));
  } catch {
    text = '[unserialisable]';
  }
  return boundText(redactSecrets(text), maxBytes);
}
