/**
 * The strict JSON reader lives in `@org/core` (`parseJsonStrict`), shared with the providers, which import only core;
 * this module re-exports it for the files of this package, beside `defineOwn`.
 */
export { JsonParseFailure, jsonEqual, parseJsonStrict } from '@org/core';

/**
 * Assigns an own, enumerable data property. Unlike `object[key] = value`, a key named `__proto__` becomes an ordinary
 * property and never changes the object's prototype.
 */
export function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
