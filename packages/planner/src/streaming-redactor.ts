import { redactSecrets } from '@org/core';

/** Whitespace-separated words a secret pattern can span (`password : Bearer value`): never emitted early. */
const HELD_WORDS = 4;
/** Text held without a safe cut: beyond this it is emitted redacted as it is (a run of text with no spaces). */
const MAX_HELD_CHARACTERS = 8_192;

/**
 * Redacts text that arrives in deltas, so a secret split across deltas is still caught. The last few words are held
 * back; a cut is emitted only where redacting the two sides apart gives exactly what redacting them together gives,
 * so nothing a pattern spanning the cut would match leaks. The concatenation of everything emitted (with `flush`)
 * equals `redactSecrets` of the whole text whenever no secret straddles a cut the check accepted.
 */
export class StreamingRedactor {
  #pending = '';

  /** Takes the next delta; returns the redacted text that is safe to emit now (often `''`). */
  push(delta: string): string {
    this.#pending += delta;
    const cut = this.#safeCut();
    if (cut === -1) {
      if (this.#pending.length <= MAX_HELD_CHARACTERS) return '';
      return this.flush();
    }
    const head = this.#pending.slice(0, cut);
    const tail = this.#pending.slice(cut);
    const redactedHead = redactSecrets(head);
    if (redactedHead + redactSecrets(tail) !== redactSecrets(this.#pending)) {
      return this.#pending.length <= MAX_HELD_CHARACTERS ? '' : this.flush();
    }
    this.#pending = tail;
    return redactedHead;
  }

  /** The rest, redacted, at the end of the text. */
  flush(): string {
    const rest = redactSecrets(this.#pending);
    this.#pending = '';
    return rest;
  }

  /** The index just after the whitespace that precedes the last `HELD_WORDS` words; -1 when there is none. */
  #safeCut(): number {
    const text = this.#pending;
    let words = 0;
    let inWord = false;
    for (let index = text.length - 1; index >= 0; index--) {
      const space = isSpace(text.charCodeAt(index));
      if (!space && !inWord) {
        inWord = true;
      } else if (space && inWord) {
        inWord = false;
        words++;
        if (words === HELD_WORDS) return index + 1;
      }
    }
    return -1;
  }
}

function isSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 9 || code === 13;
}
