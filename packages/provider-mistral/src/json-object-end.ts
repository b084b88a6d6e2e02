const isJsonWhitespace = (char: number): boolean =>
  char === 0x20 || char === 0x0a || char === 0x0d || char === 0x09;

/**
 * Watches streamed argument text for the end of its top-level JSON object, reading each fragment once, so a call
 * split into many deltas costs linear time: `closed` turns true when the object's closing brace arrived with nothing
 * but whitespace after it. It tracks strings and nesting only; the strict reader of `@org/core` then decides whether
 * the text is valid JSON, once.
 *
 * @example
 * const end = new JsonObjectEnd();
 * end.push('{"city":"Par');
 * end.push('is"}');
 * end.closed; // true
 */
export class JsonObjectEnd {
  #state: 'before' | 'object' | 'after' | 'other' = 'before';
  #depth = 0;
  #inString = false;
  #escaped = false;

  /** Whether the top-level object closed, followed by whitespace at most. */
  get closed(): boolean {
    return this.#state === 'after';
  }

  /** Reads the next fragment of the text. */
  push(fragment: string): void {
    for (let index = 0; index < fragment.length && this.#state !== 'other'; index++) {
      const char = fragment.charCodeAt(index);
      if (this.#state === 'object') {
        this.#inside(char);
        continue;
      }
      if (isJsonWhitespace(char)) continue;
      if (this.#state === 'before' && char === 0x7b) {
        this.#state = 'object';
        this.#depth = 1;
      } else {
        this.#state = 'other';
      }
    }
  }

  #inside(char: number): void {
    if (this.#inString) {
      if (this.#escaped) this.#escaped = false;
      else if (char === 0x5c) this.#escaped = true;
      else if (char === 0x22) this.#inString = false;
      return;
    }
    if (char === 0x22) this.#inString = true;
    else if (char === 0x7b || char === 0x5b) this.#depth++;
    else if (char === 0x7d || char === 0x5d) {
      this.#depth--;
      if (this.#depth === 0) this.#state = 'after';
    }
  }
}
