import { utf8ByteLength } from './bounded-text.js';
/**
 * The one strict JSON reader for text a model, a tool or a server wrote (RFC 8259, safe on untrusted text). Moved
 * here from `@org/tools` so that providers, which import only this package, read model text with the same rules as
 * every other package: duplicate keys with different values and numbers a double cannot hold exactly are refused,
 * never "last wins" or silently rounded; `__proto__` is an ordinary key; nesting is bounded before it can overflow
 * the stack. Plain `JSON.parse` is for text this library wrote itself.
 */

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

/** Own, enumerable data property: a key named `__proto__` never changes the object's prototype. */
function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `a.b`, `a["odd key"]`, `items[2]`: the path form tool argument issues use. */
function pathOf(segments: readonly (string | number)[]): string {
  let path = '';
  for (const segment of segments) path = appendSegment(path, segment);
  return path;
}

function appendSegment(path: string, segment: string | number): string {
  if (typeof segment === 'number') return `${path}[${segment}]`;
  if (IDENTIFIER.test(segment)) return path === '' ? segment : `${path}.${segment}`;
  return `${path}[${JSON.stringify(segment)}]`;
}

/** The nesting depth the parser allows when its caller names none: far below any stack limit. */
export const DEFAULT_STRICT_JSON_MAX_DEPTH = 1000;

/** Options of {@link parseJsonStrict}. */
export interface ParseJsonStrictOptions {
  /** Deepest nesting of arrays and objects; deeper text fails before the parser recurses further. Default 1000. */
  readonly maxDepth?: number;
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
 * - nesting deeper than `maxDepth` fails where it is found, before the parser recurses any further.
 *
 * Throws {@link JsonParseFailure}; never anything else, whatever the text.
 *
 * @example
 * parseJsonStrict('{"a": 1, "a": 2}'); // throws: the property "a" appears twice with different values
 */
export function parseJsonStrict(
  text: string,
  notes: string[] = [],
  options: ParseJsonStrictOptions = {},
): unknown {
  const maxDepth = options.maxDepth ?? DEFAULT_STRICT_JSON_MAX_DEPTH;
  let depth = 0;
  let position = 0;
  // The keys and indices leading to the value being parsed; turned into a path only when a failure needs one.
  const segments: (string | number)[] = [];

  const fail = (reason: string, at: number = position, path?: string): never => {
    throw new JsonParseFailure(reason, at, path);
  };
  /** `' in "ratio"'` for a value inside the object, `''` at the top level. */
  const where = (path: string): string =>
    path === '' ? '' : ` in '${path.length > 160 ? `${path.slice(0, 160)}…` : path}'`;

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
    // A number is quoted in a message at most 40 characters long: a model can send a megabyte of digits.
    const shown = found[0].length > 40 ? `${found[0].slice(0, 40)}…` : found[0];
    if (!Number.isFinite(value)) {
      const path = pathOf(segments);
      return fail(
        `the number ${shown}${where(path)} is out of range; send a smaller number or a string`,
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
        `the integer ${shown}${where(path)} has more digits than can be represented exactly; send it as a string`,
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
        if (++depth > maxDepth) fail(`nested more than ${maxDepth} levels deep`);
        position++;
        const object: Record<string, unknown> = {};
        skipWhitespace();
        if (text[position] === '}') {
          position++;
          depth--;
          return object;
        }
        for (;;) {
          skipWhitespace();
          if (text[position] !== '"') fail('expected a property name in double quotes');
          const keyPosition = position;
          const key = parseString();
          skipWhitespace();
          if (text[position] !== ':')
            fail(`expected ':' after the property name "${key.length > 80 ? `${key.slice(0, 80)}…` : key}"`);
          position++;
          segments.push(key);
          const value = parseValue();
          segments.pop();
          if (Object.hasOwn(object, key)) {
            if (!jsonEqual(object[key], value)) {
              const path = appendSegment(pathOf(segments), key);
              const name = key.length > 80 ? `${key.slice(0, 80)}…` : key;
              const at = path.length > 160 ? `${path.slice(0, 160)}…` : path;
              fail(
                `the property "${name}"${path === key ? '' : ` (at '${at}')`} appears twice with different values; send it once`,
                keyPosition,
                path,
              );
            }
            notes.push(
              `ignored a repeated property "${key.length > 80 ? `${key.slice(0, 80)}…` : key}" with the same value`,
            );
          } else defineOwn(object, key, value);
          skipWhitespace();
          const next = text[position];
          if (next === ',') {
            position++;
            continue;
          }
          if (next === '}') {
            position++;
            depth--;
            return object;
          }
          return fail(
            next === undefined ? 'unexpected end of input, expected , or }' : `unexpected '${next}'`,
          );
        }
      }
      case '[': {
        if (++depth > maxDepth) fail(`nested more than ${maxDepth} levels deep`);
        position++;
        const array: unknown[] = [];
        skipWhitespace();
        if (text[position] === ']') {
          position++;
          depth--;
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
            depth--;
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

/** What {@link readStrictJson} made of a text. */
export type StrictJsonResult =
  | { readonly ok: true; readonly value: unknown; readonly notes: readonly string[] }
  | {
      readonly ok: false;
      /** Why, for a message: the parser's reason, or the limit passed. */
      readonly reason: string;
      /** Where in the text (0 for a limit passed before reading). */
      readonly position: number;
      /** The field a failure is about, when it is about one value. */
      readonly path?: string;
      /** Set when a limit refused the text before it was read. */
      readonly limit?: 'bytes' | 'depth';
    };

/** Options of {@link readStrictJson}. */
export interface ReadStrictJsonOptions {
  /** Largest text accepted, in UTF-8 bytes; checked before reading. Default: no size limit. */
  readonly maxBytes?: number;
  /** Deepest nesting accepted. Default 1000. */
  readonly maxDepth?: number;
}

/** UTF-8 size of `text`, answering in O(1) when the length alone decides against `maximum`. */
function utf8BytesOver(text: string, maximum: number): number | undefined {
  if (text.length > maximum) return text.length;
  if (text.length * 3 <= maximum) return undefined;
  const bytes = utf8ByteLength(text);
  return bytes > maximum ? bytes : undefined;
}

/**
 * Reads JSON text a model, a tool or a server wrote with {@link parseJsonStrict}, never throwing: a value, or why not.
 * The size limit is checked before reading (in O(1) when the length decides); the depth limit as the parser meets it.
 * No repairs: `@org/tools`' `parseToolArguments` adds the safe ones for tool arguments.
 *
 * @example
 * readStrictJson('{"account": 12345678901234567891}');
 * // { ok: false, reason: 'the integer 12345678901234567891 in \'account\' has more digits than ...', ... }
 * readStrictJson('{"city": "Paris"}'); // { ok: true, value: { city: 'Paris' }, notes: [] }
 */
export function readStrictJson(text: string, options: ReadStrictJsonOptions = {}): StrictJsonResult {
  if (typeof text !== 'string')
    return { ok: false, reason: `expected text, got ${typeof text}`, position: 0 };
  if (options.maxBytes !== undefined) {
    const bytes = utf8BytesOver(text, options.maxBytes);
    if (bytes !== undefined) {
      return {
        ok: false,
        reason: `the text is ${bytes} bytes, more than the limit of ${options.maxBytes}`,
        position: 0,
        limit: 'bytes',
      };
    }
  }
  const notes: string[] = [];
  try {
    const value = parseJsonStrict(
      text,
      notes,
      options.maxDepth === undefined ? {} : { maxDepth: options.maxDepth },
    );
    return { ok: true, value, notes };
  } catch (error) {
    if (!(error instanceof JsonParseFailure)) throw error;
    return {
      ok: false,
      reason: error.reason,
      position: error.position,
      ...(error.path === undefined ? {} : { path: error.path }),
      ...(error.reason.startsWith('nested more than') ? { limit: 'depth' as const } : {}),
    };
  }
}
