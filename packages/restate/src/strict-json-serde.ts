import { readStrictJson } from '@org/core';
import type { Serde } from '@restatedev/restate-sdk';

/** Largest request body a handler of this package reads. */
export const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

const encoder = new TextEncoder();

/** UTF-8 text of `bytes`, or an `Error` saying they are not UTF-8. */
export function utf8Text(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

/**
 * The serde of this package's handlers: JSON out, and in, the strict reader of `@org/core` (bounded in size and
 * depth, no duplicate-key or precision surprises). A body that is empty reads as `undefined`. An unreadable body
 * throws, which the SDK answers with a 400 before the handler runs.
 */
export function strictJsonSerde<T>(maxBytes: number = MAX_REQUEST_BYTES): Serde<T> {
  return {
    contentType: 'application/json',
    serialize: (value: T): Uint8Array =>
      value === undefined ? new Uint8Array() : encoder.encode(JSON.stringify(value)),
    deserialize: (bytes: Uint8Array): T => {
      if (bytes.length === 0) return undefined as T;
      const read = readStrictJson(utf8Text(bytes), { maxBytes, maxDepth: 64 });
      if (!read.ok) throw new Error(`the body is not valid JSON: ${read.reason}`);
      return read.value as T;
    },
  };
}
