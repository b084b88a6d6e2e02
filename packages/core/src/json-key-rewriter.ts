/**
 * Where the rewriter stands in a JSON document: which object keys are renamed here, and what applies to the values
 * below. `undefined` anywhere means "nothing to rename below this point": the text passes through untouched.
 */
export interface JsonKeyScope {
  /** The name to write for `key` (decoded) in an object at this position, and the scope of its value. */
  key(key: string): { readonly name: string; readonly scope: JsonKeyScope | undefined } | undefined;
  /** The scope of the elements of an array at this position. */
  items(): JsonKeyScope | undefined;
}

type Frame =
  | { readonly kind: 'object'; readonly scope: JsonKeyScope | undefined; state: ObjectState; child: Child }
  | { readonly kind: 'array'; readonly scope: JsonKeyScope | undefined; state: ArrayState };
type ObjectState = 'key-or-end' | 'key' | 'colon' | 'value' | 'comma-or-end';
type ArrayState = 'value-or-end' | 'value' | 'comma-or-end';
/** The scope of the value that follows the key just read. */
type Child = JsonKeyScope | undefined;

type Token =
  | { readonly kind: 'none' }
  /** A string; `key` when it is an object key (its raw text is held back until it is complete). */
  | { kind: 'string'; readonly key: boolean; escape: number; unicode: string; decoded: string; raw: string }
  /** A number or `true` / `false` / `null`, checked when it ends. */
  | { kind: 'bare'; text: string };

const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;
const SIMPLE_ESCAPES: ReadonlyMap<string, string> = new Map([
  ['"', '"'],
  ['\\', '\\'],
  ['/', '/'],
  ['b', '\b'],
  ['f', '\f'],
  ['n', '\n'],
  ['r', '\r'],
  ['t', '\t'],
]);

/**
 * Renames object keys of a JSON text as it arrives, chunk by chunk, without parsing it into values: every byte but
 * the renamed keys passes through unchanged, so numbers beyond 2^53, duplicate keys, `__proto__` and the exact
 * formatting reach the strict reader downstream exactly as the model wrote them.
 *
 * A small strict (RFC 8259), linear tokenizer tracks where it is; which keys are renamed is asked of a
 * `JsonKeyScope` (a Map lookup, never a property lookup on model-chosen names). Text is returned as soon as it is
 * known not to be part of a key still open, so concatenating every `push()` and `end()` result gives the rewritten
 * text whatever the chunking. Text that is not valid JSON is rewritten up to the first error and passed through
 * unchanged from there (`failed` turns true): the reader downstream reports the error, with its position.
 *
 * @example
 * const rewriter = new JsonKeyRewriter(scope);
 * const text = rewriter.push('{"ano_vehi') + rewriter.push('culo": 2021}') + rewriter.end();
 */
export class JsonKeyRewriter {
  readonly #stack: Frame[] = [];
  readonly #root: JsonKeyScope | undefined;
  #token: Token = { kind: 'none' };
  #rootState: 'value' | 'done' = 'value';
  #failed = false;

  constructor(scope: JsonKeyScope | undefined) {
    this.#root = scope;
  }

  /** Whether the text stopped being valid JSON; everything after that point was passed through unchanged. */
  get failed(): boolean {
    return this.#failed;
  }

  /** Reads the next piece of text and returns what can be released of it (and of the pieces before). */
  push(chunk: string): string {
    if (this.#failed) return chunk;
    let output = '';
    // Start of the text of this chunk not yet copied to the output.
    let copyFrom = 0;
    for (let index = 0; index < chunk.length; index++) {
      const token = this.#token;
      const char = chunk.charCodeAt(index);
      if (token.kind === 'string') {
        if (!this.#stringChar(token, chunk[index] as string, char))
          return output + this.#fail(chunk, copyFrom);
        if (token.kind === 'string' && this.#token !== token && token.key) {
          // The key ended at this character: write its new name in place of its raw text.
          token.raw += chunk.slice(copyFrom, index + 1);
          output += this.#keyText(token);
          copyFrom = index + 1;
        }
        continue;
      }
      if (token.kind === 'bare') {
        if (isBareChar(char)) {
          token.text += chunk[index];
          continue;
        }
        if (!this.#endBare(token)) return output + this.#fail(chunk, copyFrom);
      }
      if (!this.#structural(chunk, index, char)) return output + this.#fail(chunk, copyFrom);
      const started = this.#token;
      if (started.kind === 'string' && started.key) {
        output += chunk.slice(copyFrom, index);
        copyFrom = index;
      }
    }
    const open = this.#token;
    if (open.kind === 'string' && open.key) {
      open.raw += chunk.slice(copyFrom);
      return output;
    }
    return output + chunk.slice(copyFrom);
  }

  /** Ends the text: releases a key left open (unchanged, as it was cut off). */
  end(): string {
    const open = this.#token;
    if (open.kind === 'bare' && !this.#failed) this.#endBare(open);
    if (open.kind === 'string' && open.key) {
      this.#token = { kind: 'none' };
      return open.raw;
    }
    return '';
  }

  #fail(chunk: string, copyFrom: number): string {
    this.#failed = true;
    const open = this.#token;
    this.#token = { kind: 'none' };
    return (open.kind === 'string' && open.key ? open.raw : '') + chunk.slice(copyFrom);
  }

  /** One character inside a string. Returns false on an invalid escape or control character. */
  #stringChar(token: Extract<Token, { kind: 'string' }>, char: string, code: number): boolean {
    if (token.escape === 1) {
      if (char === 'u') {
        token.escape = 2;
        token.unicode = '';
        return true;
      }
      const simple = SIMPLE_ESCAPES.get(char);
      if (simple === undefined) return false;
      if (token.key) token.decoded += simple;
      token.escape = 0;
      return true;
    }
    if (token.escape === 2) {
      if (!isHexDigit(code)) return false;
      token.unicode += char;
      if (token.unicode.length === 4) {
        if (token.key) token.decoded += String.fromCharCode(Number.parseInt(token.unicode, 16));
        token.escape = 0;
      }
      return true;
    }
    if (code === 0x22) {
      this.#token = { kind: 'none' };
      return true;
    }
    if (code === 0x5c) {
      token.escape = 1;
      return true;
    }
    if (code < 0x20) return false;
    if (token.key) token.decoded += char;
    return true;
  }

  /** The text to write for a complete key, and the scope of the value that follows it. */
  #keyText(token: Extract<Token, { kind: 'string' }>): string {
    const frame = this.#stack[this.#stack.length - 1];
    const entry = frame?.kind === 'object' ? frame.scope?.key(token.decoded) : undefined;
    if (frame?.kind === 'object') frame.child = entry?.scope;
    if (entry === undefined || entry.name === token.decoded) return token.raw;
    return JSON.stringify(entry.name);
  }

  #endBare(token: Extract<Token, { kind: 'bare' }>): boolean {
    this.#token = { kind: 'none' };
    const text = token.text;
    return text === 'true' || text === 'false' || text === 'null' || NUMBER.test(text);
  }

  /** A character outside strings and bare tokens. Returns false when it breaks the grammar. */
  #structural(chunk: string, index: number, char: number): boolean {
    if (char === 0x20 || char === 0x0a || char === 0x0d || char === 0x09) return true;
    const frame = this.#stack[this.#stack.length - 1];
    if (frame === undefined) {
      if (this.#rootState === 'done') return false;
      return this.#value(chunk, index, char, this.#root);
    }
    if (frame.kind === 'object') {
      switch (frame.state) {
        case 'key-or-end':
        case 'key':
          if (char === 0x7d && frame.state === 'key-or-end') return this.#close();
          if (char !== 0x22) return false;
          frame.state = 'colon';
          this.#token = { kind: 'string', key: true, escape: 0, unicode: '', decoded: '', raw: '' };
          return true;
        case 'colon':
          if (char !== 0x3a) return false;
          frame.state = 'value';
          return true;
        case 'value':
          frame.state = 'comma-or-end';
          return this.#value(chunk, index, char, frame.child);
        case 'comma-or-end':
          if (char === 0x7d) return this.#close();
          if (char !== 0x2c) return false;
          frame.state = 'key';
          return true;
      }
    }
    switch (frame.state) {
      case 'value-or-end':
      case 'value':
        if (char === 0x5d && frame.state === 'value-or-end') return this.#close();
        frame.state = 'comma-or-end';
        return this.#value(chunk, index, char, frame.scope?.items());
      case 'comma-or-end':
        if (char === 0x5d) return this.#close();
        if (char !== 0x2c) return false;
        frame.state = 'value';
        return true;
    }
  }

  /** The first character of a value; its frame was already moved on to what follows the value. */
  #value(chunk: string, index: number, char: number, scope: JsonKeyScope | undefined): boolean {
    if (this.#stack.length === 0) this.#rootState = 'done';
    if (char === 0x7b) {
      this.#stack.push({ kind: 'object', scope, state: 'key-or-end', child: undefined });
      return true;
    }
    if (char === 0x5b) {
      this.#stack.push({ kind: 'array', scope, state: 'value-or-end' });
      return true;
    }
    if (char === 0x22) {
      this.#token = { kind: 'string', key: false, escape: 0, unicode: '', decoded: '', raw: '' };
      return true;
    }
    if (isBareChar(char)) {
      this.#token = { kind: 'bare', text: chunk[index] as string };
      return true;
    }
    return false;
  }

  #close(): boolean {
    this.#stack.pop();
    return true;
  }
}

/**
 * Renames the object keys of a complete JSON text (see `JsonKeyRewriter`); every other byte is kept.
 *
 * @example
 * rewriteJsonKeys('{"ano_vehiculo":12345678901234567890}', scope); // '{"año_vehiculo":12345678901234567890}'
 */
export function rewriteJsonKeys(text: string, scope: JsonKeyScope | undefined): string {
  const rewriter = new JsonKeyRewriter(scope);
  return rewriter.push(text) + rewriter.end();
}

function isHexDigit(char: number): boolean {
  return (char >= 0x30 && char <= 0x39) || (char >= 0x41 && char <= 0x46) || (char >= 0x61 && char <= 0x66);
}

/** Characters of numbers and of `true` / `false` / `null` (checked as a whole when the token ends). */
function isBareChar(char: number): boolean {
  return (
    (char >= 0x30 && char <= 0x39) ||
    (char >= 0x61 && char <= 0x7a) ||
    char === 0x2d ||
    char === 0x2b ||
    char === 0x2e ||
    char === 0x45
  );
}
