import { parseJsonStrict } from '@org/core';

/** Longest argument literal read while a program streams; a longer one waits for the program like any call. */
const MAX_LITERAL_CHARACTERS = 16 * 1024;

/** Where a literal call's argument ends, and its value; `incomplete` when the text does not close it yet. */
export type LiteralScan =
  | { readonly kind: 'literal'; readonly value: Record<string, unknown>; readonly end: number }
  | { readonly kind: 'not-literal'; readonly end: number }
  | { readonly kind: 'incomplete' };

/**
 * Reads, at `start` (just after `name(`), an argument written as a literal object followed by `)`: keys bare or
 * quoted, values strings, numbers, `true`, `false`, `null`, arrays and objects of them. The literal becomes JSON
 * text, read by the strict reader of `@org/core`; anything else (a variable, an expression, a template, a spread)
 * is `not-literal`, and the call simply runs when the program makes it. Used only to start `eager` calls early,
 * never to decide what the program does.
 *
 * @example
 * scanLiteralArguments("{ id: 'o1', limit: 2 }); ...", 0); // { kind: 'literal', value: { id: 'o1', limit: 2 }, end: 23 }
 */
export function scanLiteralArguments(text: string, start: number): LiteralScan {
  let json = '';
  let position = start;
  // The open objects and arrays; an object expects a key after `{` and after each `,`.
  const open: { object: boolean; wantKey: boolean }[] = [];
  const skipSpace = (): void => {
    while (position < text.length && /\s/.test(text[position]!)) position++;
  };
  const notLiteral: LiteralScan = { kind: 'not-literal', end: start };
  while (true) {
    skipSpace();
    if (position >= text.length) return { kind: 'incomplete' };
    if (position - start > MAX_LITERAL_CHARACTERS) return notLiteral;
    const char = text[position]!;
    const top = open.at(-1);
    if (top?.wantKey === true && char !== '}') {
      const key = /^[A-Za-z_$][\w$]*/.exec(text.slice(position, position + 256));
      if (key !== null) {
        json += JSON.stringify(key[0]);
        position += key[0].length;
      } else if (char === '"' || char === "'") {
        const read = readString(text, position);
        if (read.kind !== 'string') return read.kind === 'incomplete' ? read : notLiteral;
        json += read.json;
        position = read.end;
      } else return notLiteral;
      skipSpace();
      if (position >= text.length) return { kind: 'incomplete' };
      if (text[position] !== ':') return notLiteral;
      json += ':';
      position++;
      top.wantKey = false;
      continue;
    }
    if (char === '{' || char === '[') {
      json += char;
      position++;
      open.push({ object: char === '{', wantKey: char === '{' });
      continue;
    }
    if (char === '}' || char === ']') {
      if (top === undefined || top.object !== (char === '}')) return notLiteral;
      // A trailing comma is JavaScript, not JSON.
      if (json.endsWith(',')) json = json.slice(0, -1);
      json += char;
      position++;
      open.pop();
      if (open.length > 0) continue;
      skipSpace();
      if (position >= text.length) return { kind: 'incomplete' };
      if (text[position] !== ')') return notLiteral;
      try {
        const value = parseJsonStrict(json);
        if (typeof value !== 'object' || value === null || Array.isArray(value)) return notLiteral;
        return { kind: 'literal', value: value as Record<string, unknown>, end: position + 1 };
      } catch {
        return notLiteral;
      }
    }
    if (top === undefined) return notLiteral;
    if (char === ',') {
      json += ',';
      position++;
      if (top.object) top.wantKey = true;
      continue;
    }
    if (char === '"' || char === "'") {
      const read = readString(text, position);
      if (read.kind !== 'string') return read.kind === 'incomplete' ? read : notLiteral;
      json += read.json;
      position = read.end;
      continue;
    }
    const word = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(
      text.slice(position, position + 64),
    );
    if (word === null) return notLiteral;
    const after = text[position + word[0].length];
    if (after === undefined) return { kind: 'incomplete' };
    if (/[\w$.]/.test(after)) return notLiteral;
    json += word[0];
    position += word[0].length;
  }
}

type StringRead =
  | { readonly kind: 'string'; readonly json: string; readonly end: number }
  | { readonly kind: 'incomplete' }
  | { readonly kind: 'not-literal' };

/** A quoted string at `start` as JSON text. Single-quoted strings with escapes are left to the program. */
function readString(text: string, start: number): StringRead {
  const quote = text[start];
  let position = start + 1;
  while (position < text.length) {
    const char = text[position]!;
    if (char === '\\') {
      if (quote === "'") return { kind: 'not-literal' };
      position += 2;
      continue;
    }
    if (char === '\n') return { kind: 'not-literal' };
    if (char === quote) {
      const body = text.slice(start + 1, position);
      return {
        kind: 'string',
        json: quote === '"' ? `"${body}"` : JSON.stringify(body),
        end: position + 1,
      };
    }
    position++;
  }
  return { kind: 'incomplete' };
}
