import { ProviderError } from '@org/core';
import { PROVIDER } from './provider-name.js';

// The server's answer is untrusted input: every value is checked where it is read, and anything unexpected is a
// `ProviderError` with `providerCode: 'invalid_response'`, never a guess. Objects are read with `Object.hasOwn`, so
// a key like `__proto__` or `constructor` is never looked up through a prototype.

/** The error for an answer that breaks the protocol. */
export function invalidResponse(message: string): ProviderError {
  return new ProviderError({
    provider: PROVIDER,
    providerCode: 'invalid_response',
    message: `${PROVIDER}: ${message}`,
  });
}

/** `value` as a plain object, or an `invalid_response` error naming `what`. */
export function asRecord(value: unknown, what: string): Readonly<Record<string, unknown>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidResponse(`${what} is not an object.`);
  }
  return value as Readonly<Record<string, unknown>>;
}

/** An own field of `record`, `undefined` when absent. */
export function field(record: Readonly<Record<string, unknown>>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** An own string field, or an `invalid_response` error. */
export function stringField(record: Readonly<Record<string, unknown>>, key: string, what: string): string {
  const value = field(record, key);
  if (typeof value !== 'string') throw invalidResponse(`${what}.${key} is not a string.`);
  return value;
}

/** An own string field that may be absent. */
export function optionalStringField(
  record: Readonly<Record<string, unknown>>,
  key: string,
  what: string,
): string | undefined {
  const value = field(record, key);
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalidResponse(`${what}.${key} is not a string.`);
  return value;
}

/** An own array field (absent is empty), or an `invalid_response` error. */
export function arrayField(
  record: Readonly<Record<string, unknown>>,
  key: string,
  what: string,
): readonly unknown[] {
  const value = field(record, key);
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw invalidResponse(`${what}.${key} is not an array.`);
  return value;
}
