import { readStrictJson, utf8ByteLength } from '@org/core';
import { Tokenizer, TokenParser, TokenType } from '@streamparser/json';

/** A key or an index on the way from the root of a JSON text to one of its values. */
export type JsonPathSegment = string | number;

/**
 * A value of the text, complete: read by the strict reader of `@org/core` from its exact text (so a key repeated
 * with another value or an integer a double cannot hold is refused, never "last wins" or rounded), or why not.
 */
export type IncrementalJsonValue =
  | {
      readonly path: readonly JsonPathSegment[];
      readonly ok: true;
      readonly value: unknown;
      readonly text: string;
    }
  | { readonly path: readonly JsonPathSegment[]; readonly ok: false; readonly reason: string };

/** Why a text being read is not JSON (or passed a limit); nothing more is read after it. */
export interface IncrementalJsonFailure {
  readonly reason: string;
  readonly limit?: 'bytes' | 'depth';
}

/** Options of {@link IncrementalJsonReader}. */
export interface IncrementalJsonReaderOptions {
  /**
   * The objects and arrays to report as soon as each is complete, as selectors: `$.steps.*` (every member of
   * `steps`), `$.a.b`, `$.*`. Keys and `*` only (the `@streamparser/json` selector syntax).
   */
  readonly paths: readonly string[];
  /** Largest text accepted, in UTF-8 bytes. */
  readonly maxBytes: number;
  /** Deepest nesting of objects and arrays accepted. */
  readonly maxDepth: number;
  /** Receives each selected value once it is complete, in the order they complete (inner before outer). */
  readonly onValue: (value: IncrementalJsonValue) => void;
}

/** An open object or array: where it started, and the key or index of the member being read in it. */
interface OpenContainer {
  readonly char: number;
  readonly object: boolean;
  /** Object: the next string is a key. */
  expectKey: boolean;
  /** Object: where the key being read starts (a character index). */
  keyStart: number;
  /** Object: the current member's key, read strictly from its text. Array: the current member's index. */
  member: JsonPathSegment;
}

interface CompletedContainer {
  readonly path: readonly JsonPathSegment[];
  readonly start: number;
  readonly end: number;
}

/**
 * Reads JSON text that arrives in fragments (a model's streamed tool-call arguments), reporting each selected
 * object or array the moment its closing bracket arrives. The tokenizer and grammar are `@streamparser/json`'s
 * (strict RFC 8259, fragments split anywhere, even inside a character); every reported value is read again from its
 * exact text by the one strict reader of `@org/core`. Size and depth are bounded as the text arrives: past a limit,
 * or at the first character that cannot be JSON, the reader stops (`failure`) and ignores what follows. Memory is the
 * text itself, within `maxBytes`.
 *
 * @example
 * const reader = new IncrementalJsonReader({
 *   paths: ['$.steps.*'],
 *   maxBytes: 1 << 20,
 *   maxDepth: 64,
 *   onValue: (step) => console.log(step.path, step.ok ? step.value : step.reason),
 * });
 * for await (const fragment of input) reader.write(fragment); // each step is reported as soon as it is complete
 * const whole = reader.end(); // the whole text, read strictly
 */
export class IncrementalJsonReader {
  readonly #options: IncrementalJsonReaderOptions;
  readonly #tokenizer: Tokenizer;
  readonly #parser: TokenParser;
  /** The text so far, as the fragments arrived (joining them on each write would copy the text each time). */
  readonly #chunks: string[] = [];
  /** Character index at which each chunk starts. */
  readonly #chunkStarts: number[] = [];
  #length = 0;
  #bytes = 0;
  /** Maps byte offsets (the tokenizer's) to character indexes; both only move forward. */
  #cursorChunk = 0;
  #cursorIndex = 0;
  #cursorChar = 0;
  #cursorByte = 0;
  readonly #open: OpenContainer[] = [];
  /** The container whose closing bracket the parser is reading: its text's range and its path. */
  #closing: CompletedContainer | undefined;
  #completed: CompletedContainer[] = [];
  #failure: IncrementalJsonFailure | undefined;
  #ended = false;

  constructor(options: IncrementalJsonReaderOptions) {
    this.#options = options;
    this.#tokenizer = new Tokenizer();
    // Only the selected values are kept while they are read (`keepStack: false`): the rest is dropped as it completes.
    this.#parser = new TokenParser({ paths: [...options.paths], keepStack: false });
    this.#tokenizer.onToken = (token) => this.#onToken(token.token, token.offset, token);
    this.#tokenizer.onError = (error) => this.#fail(error.message);
    this.#parser.onError = (error) => this.#fail(error.message);
    // The parser decides what is selected; where it is and its path come from the reader's own account of the text,
    // whose keys are read strictly (the parser's keys lose lone surrogates).
    this.#parser.onValue = ({ value }) => {
      // Only objects and arrays are reported early; the root is read whole at `end`.
      if (value === null || typeof value !== 'object' || this.#closing === undefined) return;
      this.#completed.push(this.#closing);
    };
  }

  /** Why the text is not JSON, once that is known. */
  get failure(): IncrementalJsonFailure | undefined {
    return this.#failure;
  }

  /** The text read so far. */
  get text(): string {
    return this.#chunks.join('');
  }

  /** Reads one more fragment, reporting the selected values it completes. Ignored after a failure or `end`. */
  write(fragment: string): void {
    if (this.#failure !== undefined || this.#ended || fragment === '') return;
    this.#bytes += utf8ByteLength(fragment);
    if (this.#bytes > this.#options.maxBytes) {
      this.#fail(`the text is more than ${this.#options.maxBytes} bytes`, 'bytes');
      return;
    }
    if (this.#length === 0 && fragment.charCodeAt(0) === 0xfeff) {
      // The tokenizer would skip a byte order mark; JSON text never starts with one.
      this.#fail("unexpected '\\ufeff' (a byte order mark) at the start");
      return;
    }
    this.#chunkStarts.push(this.#length);
    this.#chunks.push(fragment);
    this.#length += fragment.length;
    try {
      this.#tokenizer.write(fragment);
    } catch (error) {
      this.#fail(error instanceof Error ? error.message : String(error));
    }
    this.#deliver();
  }

  /**
   * Ends the text: the whole of it, read by the strict reader (limits included), or why not. A text that failed while
   * it arrived fails here with the same reason.
   */
  end(): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: string } {
    if (!this.#ended && this.#failure === undefined) {
      this.#ended = true;
      try {
        this.#tokenizer.end();
      } catch (error) {
        this.#fail(error instanceof Error ? error.message : String(error));
      }
      if (this.#failure === undefined && !this.#parser.isEnded) this.#fail('unexpected end of the text');
      this.#deliver();
    }
    this.#ended = true;
    if (this.#failure !== undefined) return { ok: false, reason: this.#failure.reason };
    const read = readStrictJson(this.text, {
      maxBytes: this.#options.maxBytes,
      maxDepth: this.#options.maxDepth,
    });
    return read.ok ? { ok: true, value: read.value } : { ok: false, reason: read.reason };
  }

  #onToken(token: TokenType, offset: number, info: Parameters<TokenParser['write']>[0]): void {
    if (this.#failure !== undefined) return;
    const open = this.#open;
    const current = open[open.length - 1];
    switch (token) {
      case TokenType.LEFT_BRACE:
      case TokenType.LEFT_BRACKET: {
        if (open.length >= this.#options.maxDepth) {
          this.#fail(`nested more than ${this.#options.maxDepth} levels deep`, 'depth');
          return;
        }
        const object = token === TokenType.LEFT_BRACE;
        open.push({
          char: this.#charAt(offset),
          object,
          expectKey: object,
          keyStart: 0,
          member: object ? '' : 0,
        });
        break;
      }
      case TokenType.RIGHT_BRACE:
      case TokenType.RIGHT_BRACKET: {
        const start = open.pop();
        if (start === undefined) break;
        const path = open.map((container) => container.member);
        // One past the closing bracket, a one-byte character.
        this.#closing = { path, start: start.char, end: this.#charAt(offset) + 1 };
        break;
      }
      case TokenType.STRING:
        if (current?.expectKey === true) {
          current.expectKey = false;
          current.keyStart = this.#charAt(offset);
        }
        break;
      case TokenType.COLON:
        if (current?.object === true) {
          const keyText = this.#slice(current.keyStart, this.#charAt(offset));
          const key = readStrictJson(keyText);
          current.member = key.ok && typeof key.value === 'string' ? key.value : String(info.value);
        }
        break;
      case TokenType.COMMA:
        if (current === undefined) break;
        if (current.object) current.expectKey = true;
        else current.member = (current.member as number) + 1;
        break;
      default:
        break;
    }
    this.#parser.write(info);
    this.#closing = undefined;
  }

  /** Reports what the last fragment completed, outside the parser's own calls (a listener cannot break it). */
  #deliver(): void {
    if (this.#completed.length === 0) return;
    const completed = this.#completed;
    this.#completed = [];
    for (const { path, start, end } of completed) {
      const text = this.#slice(start, end);
      const read = readStrictJson(text, { maxDepth: this.#options.maxDepth });
      this.#options.onValue(
        read.ok ? { path, ok: true, value: read.value, text } : { path, ok: false, reason: read.reason },
      );
    }
  }

  #fail(reason: string, limit?: 'bytes' | 'depth'): void {
    if (this.#failure !== undefined) return;
    this.#failure = limit === undefined ? { reason } : { reason, limit };
    this.#completed = [];
  }

  /**
   * The character index of a byte offset of the UTF-8 text, as the tokenizer counts: 1 to 3 bytes per UTF-16 unit, 4
   * for a surrogate pair, 3 for a lone surrogate (which the encoder writes as U+FFFD). Offsets asked only grow.
   */
  #charAt(byteOffset: number): number {
    let chunk = this.#cursorChunk;
    let index = this.#cursorIndex;
    let char = this.#cursorChar;
    let byte = this.#cursorByte;
    while (byte < byteOffset && chunk < this.#chunks.length) {
      let text = this.#chunks[chunk]!;
      if (index >= text.length) {
        chunk++;
        index = 0;
        continue;
      }
      const code = text.charCodeAt(index);
      let units = 1;
      if (code < 0x80) byte += 1;
      else if (code < 0x800) byte += 2;
      else if (code >= 0xd800 && code <= 0xdbff) {
        // The pair may straddle two fragments.
        let next = index + 1 < text.length ? text.charCodeAt(index + 1) : Number.NaN;
        if (Number.isNaN(next) && chunk + 1 < this.#chunks.length) {
          text = this.#chunks[chunk + 1]!;
          next = text.charCodeAt(0);
        }
        if (next >= 0xdc00 && next <= 0xdfff) {
          byte += 4;
          units = 2;
        } else byte += 3;
      } else byte += 3;
      for (let unit = 0; unit < units; unit++) {
        index++;
        char++;
        if (index >= this.#chunks[chunk]!.length && chunk + 1 < this.#chunks.length) {
          chunk++;
          index = 0;
        }
      }
    }
    this.#cursorChunk = chunk;
    this.#cursorIndex = index;
    this.#cursorChar = char;
    this.#cursorByte = byte;
    return char;
  }

  /** The text between two character indexes, from the chunks that hold it. */
  #slice(start: number, end: number): string {
    const starts = this.#chunkStarts;
    // Binary search for the chunk holding `start`.
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= start) low = middle;
      else high = middle - 1;
    }
    let text = '';
    for (let chunk = low; chunk < this.#chunks.length && starts[chunk]! < end; chunk++) {
      const chunkStart = starts[chunk]!;
      const piece = this.#chunks[chunk]!;
      text += piece.slice(Math.max(0, start - chunkStart), Math.min(piece.length, end - chunkStart));
    }
    return text;
  }
}
