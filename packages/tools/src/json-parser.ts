import { childPath, pathOf } from './argument-path.js';

/** Where and why strict JSON parsing failed. */
export class JsonParseFailure {
  readonly reason: string;
  readonly position: number;
  /** The field the failure is about (`ratio`, `items[2].value`), for failures about one value. */
  readonly path: string | undefined;

  constructor(reason: string, position: number, path?: string) {
    this.reason = reason;
    this.position = position;
    this.path = path;
  }
}

/**
 * Assigns an own, enumerable data property. Unlike `object[key] = value`, a key named `__proto__` becomes an ordinary
 * property and never changes the object's prototype.
 */
export function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Structural equality of two parsed JSON values. */
export function jsonEqual(left: unknown, right: unknown): boolean {
  if (Object.is(left, right)) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  if (Array.isArray(left) && Array.isArray(right)) {
    return left.length === right.length && left.every((item, index) => jsonEqual(item, right[index]));
  }
  const leftKeys = Object.keys(left);
  const rightRecord = right as Record<string, unknown>;
  if (leftKeys.length !== Object.keys(right).length) return false;
  return leftKeys.every(
    (key) =>
      Object.hasOwn(rightRecord, key) && jsonEqual((left as Record<string, unknown>)[key], rightRecord[key]),
  );
}

const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/**
 * A strict JSON parser (RFC 8259) that is safe on untrusted text:
 * - keys are defined as own properties, so `__proto__` never changes a prototype;
 * - a key repeated with the same value is accepted (noted), with a different value it is an error, never "last wins";
 * - a number that does not fit a double (`1e400`) or an integer a double cannot hold exactly is an error, never
 *   silently rounded.
 * Recursion depth is bounded by the caller's depth scan, which runs first.
 */
export function parseJsonStrict(text: string, notes: string[]): unknown {
  let position = 0;
  // The keys and indices leading to the value being parsed; turned into a path only when a failure needs one.
  const segments: (string | number)[] = [];

  const fail = (reason: string, at: number = position, path?: string): never => {
    throw new JsonParseFailure(reason, at, path);
  };
  /** `' in "ratio"'` for a value inside the object, `''` at the top level. */
  const where = (path: string): string => (path === '' ? '' : ` in '${path}'`);

  const skipWhitespace = (): void => {
    while (position < text.length) {
      const char = text.charCodeAt(position);
      if (char === 0x20 || char === 0x0a || char === 0x0d || char === 0x09) position++;
      else break;
    }
  };

  const parseString = (): string => {
    position++; // opening quote
    let result = '';
    let chunkStart = position;
    while (position < text.length) {
      const char = text.charCodeAt(position);
      if (char === 0x22) {
        result += text.slice(chunkStart, position);
        position++;
        return result;
      }
      if (char === 0x5c) {
        result += text.slice(chunkStart, position);
        const escaped = text[position + 1];
        if (escaped === undefined) fail('unterminated string');
        if (escaped === 'u') {
          const hex = text.slice(position + 2, position + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('invalid \\u escape in a string');
          result += String.fromCharCode(Number.parseInt(hex, 16));
          position += 6;
        } else {
          const replacement = ESCAPES[escaped as string];
          if (replacement === undefined) fail(`invalid escape '\\${escaped}' in a string`);
          result += replacement;
          position += 2;
        }
        chunkStart = position;
        continue;
      }
      if (char < 0x20) fail('unescaped control character in a string');
      position++;
    }
    return fail('unterminated string');
  };

  const parseNumber = (): number => {
    const start = position;
    const match = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
    match.lastIndex = position;
    const found = match.exec(text);
    if (found === null || found[0] === '' || found[0] === '-') return fail('invalid number', start);
    position = start + found[0].length;
    const value = Number(found[0]);
    if (!Number.isFinite(value)) {
      const path = pathOf(segments);
      return fail(
        `the number ${found[0]}${where(path)} is out of range; send a smaller number or a string`,
        start,
        path === '' ? undefined : path,
      );
    }
    if (
      found[1] === undefined &&
      found[2] === undefined &&
      !Number.isSafeInteger(value) &&
      String(value) !== found[0] &&
      BigInt(found[0]) !== BigInt(value)
    ) {
      const path = pathOf(segments);
      return fail(
        `the integer ${found[0]}${where(path)} has more digits than can be represented exactly; send it as a string`,
        start,
        path === '' ? undefined : path,
      );
    }
    return value;
  };

  const parseValue = (): unknown => {
    skipWhitespace();
    const char = text[position];
    switch (char) {
      case '{': {
        position++;
        const object: Record<string, unknown> = {};
        skipWhitespace();
        if (text[position] === '}') {
          position++;
          return object;
        }
        for (;;) {
          skipWhitespace();
          if (text[position] !== '"') fail('expected a property name in double quotes');
          const keyPosition = position;
          const key = parseString();
          skipWhitespace();
          if (text[position] !== ':') fail(`expected ':' after the property name "${key}"`);
          position++;
          segments.push(key);
          const value = parseValue();
          segments.pop();
          if (Object.hasOwn(object, key)) {
            if (!jsonEqual(object[key], value)) {
              const path = childPath(pathOf(segments), key);
              fail(
                `the property "${key}"${path === key ? '' : ` (at '${path}')`} appears twice with different values; send it once`,
                keyPosition,
                path,
              );
            }
            notes.push(`ignored a repeated property "${key}" with the same value`);
          } else defineOwn(object, key, value);
          skipWhitespace();
          const next = text[position];
          if (next === ',') {
            position++;
            continue;
          }
          if (next === '}') {
            position++;
            return object;
          }
          return fail(
            next === undefined ? 'unexpected end of input, expected , or }' : `unexpected '${next}'`,
          );
        }
      }
      case '[': {
        position++;
        const array: unknown[] = [];
        skipWhitespace();
        if (text[position] === ']') {
          position++;
          return array;
        }
        for (;;) {
          segments.push(array.length);
          array.push(parseValue());
          segments.pop();
          skipWhitespace();
          const next = text[position];
          if (next === ',') {
            position++;
            continue;
          }
          if (next === ']') {
            position++;
            return array;
          }
          return fail(
            next === undefined ? 'unexpected end of input, expected , or ]' : `unexpected '${next}'`,
          );
        }
      }
      case '"':
        return parseString();
      case 't':
        if (text.startsWith('true', position)) {
          position += 4;
          return true;
        }
        return fail('invalid literal');
      case 'f':
        if (text.startsWith('false', position)) {
          position += 5;
          return false;
        }
        return fail('invalid literal');
      case 'n':
        if (text.startsWith('null', position)) {
          position += 4;
          return null;
        }
        return fail('invalid literal');
      case undefined:
        return fail('unexpected end of input');
      default:
        if (char === '-' || (char >= '0' && char <= '9')) return parseNumber();
        return fail(`unexpected '${char}'`);
    }
  };

  const value = parseValue();
  skipWhitespace();
  if (position < text.length) fail(`unexpected '${text[position]}' after the JSON value`);
  return value;
}
