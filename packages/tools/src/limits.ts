import { LimitExceededError, limitValueProblem, utf8ByteLength } from '@org/core';
import { InvalidToolOptionError } from './errors.js';

/** Size limits applied to model-produced arguments before any recursive walk. */
export interface ArgumentLimits {
  /** Maximum UTF-8 size of the argument text, in bytes. Default 1 MiB. */
  readonly maxBytes?: number;
  /** Maximum nesting depth of arrays and objects. Default 64. */
  readonly maxDepth?: number;
  /** Strings longer than this are never tested against a schema `pattern`. Default 10 000 characters. */
  readonly maxPatternInputLength?: number;
}

/** The defaults of `ArgumentLimits`. */
export const DEFAULT_ARGUMENT_LIMITS: Readonly<Required<ArgumentLimits>> = Object.freeze({
  maxBytes: 1024 * 1024,
  maxDepth: 64,
  maxPatternInputLength: 10_000,
});

const LIMIT_KEYS = ['maxBytes', 'maxDepth', 'maxPatternInputLength'] as const;

/**
 * Fills the defaults in, after checking each given value with the shared rule of `@org/core` (`limitValueProblem`):
 * a whole number of at least 1 (`maxPatternInputLength` may be 0: no pattern is ever tested). `NaN`, a negative
 * number or a fraction would switch the limit off (`actual > NaN` is never true), so it throws an
 * `InvalidToolOptionError` naming `limits.<key>` instead.
 */
export function resolveLimits(limits: ArgumentLimits | undefined): Required<ArgumentLimits> {
  if (limits === undefined) return { ...DEFAULT_ARGUMENT_LIMITS };
  if (typeof limits !== 'object' || limits === null) {
    throw new InvalidToolOptionError({ option: 'limits', reason: 'must be an object of argument limits' });
  }
  for (const key of LIMIT_KEYS) {
    const value = limits[key];
    if (value === undefined) continue;
    const problem = limitValueProblem(value, { minimum: key === 'maxPatternInputLength' ? 0 : 1 });
    if (problem !== undefined) throw new InvalidToolOptionError({ option: `limits.${key}`, reason: problem });
  }
  return {
    maxBytes: limits.maxBytes ?? DEFAULT_ARGUMENT_LIMITS.maxBytes,
    maxDepth: limits.maxDepth ?? DEFAULT_ARGUMENT_LIMITS.maxDepth,
    maxPatternInputLength: limits.maxPatternInputLength ?? DEFAULT_ARGUMENT_LIMITS.maxPatternInputLength,
  };
}

/**
 * How many values `value` holds (each container and each entry of it; a shared sub-object once per path), stopping
 * once `maximum` is reached (the caller has bounded the depth already). One iterative pass whose work is bounded by
 * `maximum` plus the size of one container: the schema walker's work budget is sized from it.
 */
export function countValues(value: unknown, maximum: number): number {
  if (value === null || typeof value !== 'object') return 1;
  const stack: object[] = [value];
  let count = 0;
  while (stack.length > 0 && count < maximum) {
    const current = stack.pop()!;
    const children = Array.isArray(current) ? current : Object.values(current);
    count += 1 + children.length;
    for (let index = 0; index < children.length; index++) {
      const child: unknown = children[index];
      if (child !== null && typeof child === 'object') stack.push(child);
    }
  }
  return Math.min(count, maximum);
}

/**
 * Checks the size and the nesting depth of JSON text with one linear, non-recursive scan (strings are skipped, so
 * brackets inside them do not count). Throws `LimitExceededError`.
 */
export function assertTextWithinLimits(text: string, limits: Required<ArgumentLimits>): void {
  // Every UTF-16 unit is at least one UTF-8 byte, so a long enough string is over the limit without counting.
  const bytes = text.length > limits.maxBytes ? text.length : utf8ByteLength(text);
  if (bytes > limits.maxBytes) {
    throw new LimitExceededError({
      limit: 'argumentsBytes',
      maximum: limits.maxBytes,
      actual: bytes,
      message: `The arguments are ${bytes} bytes, more than the limit of ${limits.maxBytes} bytes. Send smaller arguments.`,
    });
  }
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c) index++;
      else if (char === 0x22) inString = false;
      continue;
    }
    if (char === 0x22) inString = true;
    else if (char === 0x7b || char === 0x5b) {
      depth++;
      if (depth > limits.maxDepth) {
        throw new LimitExceededError({
          limit: 'jsonDepth',
          maximum: limits.maxDepth,
          actual: depth,
          message: `The arguments are nested more than ${limits.maxDepth} levels deep. Send flatter arguments.`,
        });
      }
    } else if (char === 0x7d || char === 0x5d) depth = Math.max(0, depth - 1);
  }
}

/**
 * Checks the nesting depth of an in-memory value. The walk is recursive but bounded: it stops at `maxDepth`, so it
 * cannot overflow the stack, and a cycle exceeds any depth. A shared sub-object is visited once per path, with the
 * total number of visits capped so that a small graph with many shared references cannot make the walk explode.
 * Throws `LimitExceededError`.
 */
export function assertValueWithinLimits(value: unknown, limits: Required<ArgumentLimits>): void {
  if (value === null || typeof value !== 'object') return;
  const maximumVisits = limits.maxBytes;
  let visits = 0;
  const visit = (current: object, depth: number): void => {
    if (depth > limits.maxDepth) {
      throw new LimitExceededError({
        limit: 'jsonDepth',
        maximum: limits.maxDepth,
        actual: depth,
        message: `The arguments are nested more than ${limits.maxDepth} levels deep (or contain a cycle). Send flatter arguments.`,
      });
    }
    if (++visits > maximumVisits) {
      throw new LimitExceededError({
        limit: 'argumentsNodes',
        maximum: maximumVisits,
        actual: visits,
        message: `The arguments contain more than ${maximumVisits} nested values. Send smaller arguments.`,
      });
    }
    if (Array.isArray(current)) {
      for (let index = 0; index < current.length; index++) {
        const child: unknown = current[index];
        if (child !== null && typeof child === 'object') visit(child, depth + 1);
      }
      return;
    }
    const record = current as Record<string, unknown>;
    for (const key in record) {
      const child = record[key];
      if (child !== null && typeof child === 'object') visit(child, depth + 1);
    }
  };
  visit(value, 1);
}
