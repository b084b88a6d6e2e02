import { redactRegisteredSecrets, redactSecrets } from './redact-secrets.js';

/**
 * The UTF-8 size of `text` in bytes, without encoding it (a lone surrogate counts 3 bytes, as `TextEncoder` writes
 * U+FFFD for it).
 */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        index++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** The longest prefix of `text` within `maxBytes` UTF-8 bytes, never splitting a surrogate pair. */
export function cutToUtf8Bytes(text: string, maxBytes: number): string {
  // Fast path: n UTF-16 units are at most 3n bytes.
  if (text.length * 3 <= maxBytes) return text;
  let bytes = 0;
  let index = 0;
  while (index < text.length) {
    const unit = text.charCodeAt(index);
    const next = index + 1 < text.length ? text.charCodeAt(index + 1) : 0;
    const pair = unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
    const size = unit < 0x80 ? 1 : unit < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + size > maxBytes) break;
    bytes += size;
    index += pair ? 2 : 1;
  }
  return text.slice(0, index);
}

/** Options of {@link truncateText}. */
export interface TruncateTextOptions {
  /** What was cut, named in the marker: `output`, `error message`, `reason`. Default `text`. */
  readonly what?: string;
  /** What the reader can do about it, appended to the marker, e.g. `ask for a narrower result to see more`. */
  readonly hint?: string;
  /**
   * The size of the whole text when `text` is already a prefix of it (a serialiser that stopped early); with
   * `totalIsLowerBound` the marker says "more than".
   */
  readonly totalBytes?: number;
  readonly totalIsLowerBound?: boolean;
  /**
   * Redact before cutting, so that a cut never leaves part of a secret: `'all'` (`redactSecrets`: registered secrets
   * and credential shapes, for error text) or `'registered'` (`redactRegisteredSecrets`, for a tool's data). Only
   * the part that can be shown (plus a margin longer than any secret) is redacted: the work stays bounded.
   */
  readonly redact?: 'all' | 'registered';
}

/** Characters kept past the cut before redacting: longer than any secret, so none straddles the cut unseen. */
const REDACTION_MARGIN = 65_536;

/**
 * The marker {@link truncateText} ends a cut text with: `\n[<what> truncated: showing the first <shown> of <total>
 * bytes; <hint>]`. Exported so that callers can recognise a cut text.
 */
export function truncationMarker(shown: number, total: number, options: TruncateTextOptions = {}): string {
  const of = options.totalIsLowerBound === true ? `of more than ${total}` : `of ${total}`;
  return `\n[${options.what ?? 'text'} truncated: showing the first ${shown} ${of} bytes${
    options.hint === undefined ? '' : `; ${options.hint}`
  }]`;
}

/**
 * Bounds text that goes into a model's context or an event: text within `maxBytes` UTF-8 bytes is returned as it
 * is; longer text is cut (never inside a character) and ends with a marker saying how much was left out, the
 * whole result within `maxBytes` (unless the marker alone is longer). The one bounding helper of the packages:
 * tool outputs, tool errors, plan summaries, validation messages, hook reasons and MCP errors all go through it.
 * Linear in the length of `text`.
 *
 * @example
 * truncateText('x'.repeat(2_000_000), 1_000, { what: 'error message' });
 * // 'xxx…x\n[error message truncated: showing the first 937 of 2000000 bytes]'
 */
export function truncateText(text: string, maxBytes: number, options: TruncateTextOptions = {}): string {
  if (options.redact !== undefined) {
    const redact = options.redact === 'all' ? redactSecrets : redactRegisteredSecrets;
    const limit = Number.isFinite(maxBytes) ? Math.max(0, maxBytes) + REDACTION_MARGIN : text.length;
    const { redact: _redact, ...rest } = options;
    if (text.length <= limit) return truncateText(redact(text), maxBytes, rest);
    return truncateText(redact(text.slice(0, limit)), maxBytes, {
      ...rest,
      totalBytes: options.totalBytes ?? utf8ByteLength(text),
    });
  }
  const known = options.totalBytes;
  if (known === undefined && text.length * 3 <= maxBytes) return text;
  const total = known ?? utf8ByteLength(text);
  if (total <= maxBytes && options.totalIsLowerBound !== true) return text;
  const room = Math.max(0, maxBytes - utf8ByteLength(truncationMarker(maxBytes, total, options)));
  const head = cutToUtf8Bytes(text, room);
  // `join` copies: a template literal would keep a slice of `text`, and with it all of a 20 MB message, alive.
  return [head, truncationMarker(utf8ByteLength(head), total, options)].join('');
}

/** Thrown inside a `JSON.stringify` replacer to stop a walk that went past its bound. */
const STOP = Symbol('stop');

/**
 * `JSON.stringify(value)` that gives up, instead of hanging or exhausting memory, once the text would pass
 * `maxBytes` (counted before escaping, so the text may be a little longer) or the walk passes `maxNodes` values:
 * an object whose sub-objects are shared (a DAG) is written path by path by `JSON.stringify`, exponentially.
 * Returns `undefined` when it gave up, or when `JSON.stringify` throws (a cycle, a BigInt, a throwing getter).
 *
 * @example
 * stringifyWithin(hostile, 100_000) ?? '[too large to show]';
 */
export function stringifyWithin(value: unknown, maxBytes: number, maxNodes = maxBytes): string | undefined {
  let bytes = 0;
  let nodes = 0;
  try {
    return JSON.stringify(value, (key: string, item: unknown) => {
      nodes += 1;
      bytes += key.length + 1 + (typeof item === 'string' ? item.length + 2 : 1);
      if (bytes > maxBytes || nodes > maxNodes) throw STOP;
      return item;
    });
  } catch {
    return undefined;
  }
}

/**
 * The start of `JSON.stringify(value)`, for a preview: the text is exact up to at least `maxBytes` bytes, and the
 * walk stops descending once it passes them (later values are left out), so a huge value or one whose parts are
 * shared (a DAG, exponential for `JSON.stringify`) costs time bounded by `maxBytes` and its own width. Cut the
 * result to `maxBytes` (`truncateText`). `undefined` when `JSON.stringify` throws or gives nothing.
 *
 * @example
 * truncateText(stringifyPrefix(value, 4096) ?? '', 4096);
 */
export function stringifyPrefix(value: unknown, maxBytes: number): string | undefined {
  let bytes = 0;
  try {
    return JSON.stringify(value, (key: string, item: unknown) => {
      if (bytes > maxBytes) return undefined;
      // A lower bound of what this value adds to the text: the text up to here is at least `bytes` long.
      bytes += key.length + (typeof item === 'string' ? item.length + 2 : 1);
      return item;
    });
  } catch {
    return undefined;
  }
}
