import { redactSecrets } from '@org/core';

/** Whitespace-separated words a secret pattern can span (`password : Bearer value`): never emitted early. */
const HELD_WORDS = 4;
/**
 * A run of text with no spaces (compact JSON) has no word to cut at: beyond this many characters it is cut this many
 * characters before its end instead, so a secret being written at the end is never emitted in part.
 */
const HELD_TAIL_CHARACTERS = 1_024;

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
    const wordCut = this.#safeCut();
    const cut = Math.max(
      wordCut,
      this.#pending.length - 2 * HELD_TAIL_CHARACTERS > 0 ? this.#pending.length - HELD_TAIL_CHARACTERS : -1,
    );
    if (cut <= 0) return '';
    const head = this.#pending.slice(0, cut);
    const tail = this.#pending.slice(cut);
    const redactedHead = redactSecrets(head);
    // A pattern that spans the cut would match differently on each side: hold on until the cut is clear of it.
    if (redactedHead + redactSecrets(tail) !== redactSecrets(this.#pending)) return '';
    this.#pending = tail;
    return redactedHead;
  }

  /**
   * The rest, redacted, at the end of a run of text (the answer's end, or a boundary such as a tool call the model
   * writes next); the redactor then starts a new run.
   */
  flush(): string {
    if (this.#pending === '') return '';
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
