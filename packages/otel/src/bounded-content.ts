import { cutToUtf8Bytes, redactSecrets, redactSecretsDeep, stringifyPrefix, utf8ByteLength } from '@org/core';

/** The default cap of one captured content attribute (arguments, a result, the model's output), in UTF-8 bytes. */
export const DEFAULT_MAX_CONTENT_BYTES = 4096;

/** The cap of an error message in a span status or an event attribute, in UTF-8 bytes. */
export const MAX_MESSAGE_BYTES = 1024;

/** What ends a value cut to its cap; the cut value, marker included, fits the cap. */
export const TRUNCATION_MARKER = '…[truncated]';

const MARKER_BYTES = utf8ByteLength(TRUNCATION_MARKER);
/** Characters kept past the cap before redacting: longer than any secret, so none straddles the cut unseen. */
const REDACTION_MARGIN = 65_536;

/**
 * Cuts `text` to at most `maxBytes` UTF-8 bytes, marker included, never inside a character. Text that fits is
 * returned unchanged. (The span attributes' own marker; the cut itself is `cutToUtf8Bytes` of `@org/core`.)
 */
export function boundText(text: string, maxBytes: number): string {
  // Fast path: a string of n UTF-16 units is at most 3n UTF-8 bytes.
  if (text.length * 3 <= maxBytes) return text;
  if (utf8ByteLength(text) <= maxBytes) return text;
  // `join` copies: a template literal would keep a slice of `text`, and with it the whole text, alive.
  return [cutToUtf8Bytes(text, Math.max(0, maxBytes - MARKER_BYTES)), TRUNCATION_MARKER].join('');
}

/** Redacts only the part of `text` that can be shown (plus a margin), then bounds it: linear in the cap, not the text. */
function redactAndBound(text: string, maxBytes: number): string {
  if (text.length <= maxBytes + REDACTION_MARGIN) return boundText(redactSecrets(text), maxBytes);
  const head = redactSecrets(text.slice(0, maxBytes + REDACTION_MARGIN));
  return [cutToUtf8Bytes(head, Math.max(0, maxBytes - MARKER_BYTES)), TRUNCATION_MARKER].join('');
}

/** A message for a status or an event: redacted of secrets, then bounded. */
export function boundMessage(message: string): string {
  return redactAndBound(message, MAX_MESSAGE_BYTES);
}

/**
 * A captured value as an attribute: redacted of secrets (registered ones and credential-shaped strings, deep),
 * serialised as JSON (a string as is; only as much as the cap can show, so a huge or shared value costs bounded
 * work), redacted again as text, and bounded to `maxBytes`.
 */
export function boundContent(value: unknown, maxBytes: number): string {
  let text: string;
  try {
    // Both walks are bounded: the redacted copy keeps shared parts shared (linear), and only the start of its JSON
    // text is written (a DAG's text is exponential).
    const redacted = redactSecretsDeep(value);
    text =
      typeof redacted === 'string' ? redacted : (stringifyPrefix(redacted, maxBytes) ?? String(redacted));
  } catch {
    text = '[unserialisable]';
  }
  return redactAndBound(text, maxBytes);
}
