import { forEachTokenSpan } from './token-counter.js';

/**
 * A text cut into spans that end on token boundaries: the tokenizer's pieces (a word with its leading space, a
 * number group, a punctuation run), over-long ones in the slices `countTokens` counts. Each span holds one or more
 * whole tokens, so a stream cut at span ends sends whole tokens.
 */
export interface TokenBoundaries {
  /** The end (UTF-16 index, exclusive) of each span, increasing; the last is the text's length. */
  readonly ends: readonly number[];
  /** The tokens from the start of the text through each span. */
  readonly tokensThrough: readonly number[];
  /** Every token of the text: `countTokens(text)`. */
  readonly totalTokens: number;
}

const EMPTY: TokenBoundaries = Object.freeze({ ends: [], tokensThrough: [], totalTokens: 0 });
// A benchmark streams the same answers many times: their spans are kept. Long texts are not, so the cache stays a
// few megabytes at most.
const CACHE_ENTRIES = 256;
const CACHE_MAX_CHARACTERS = 16_384;
const cache = new Map<string, TokenBoundaries>();

/**
 * The token boundaries of a text, computed once (linear in its length) so that a stream can time and cut every
 * part without tokenizing again.
 *
 * @example
 * tokenBoundaries('hello world'); // { ends: [5, 11], tokensThrough: [1, 2], totalTokens: 2 }
 */
export function tokenBoundaries(text: string): TokenBoundaries {
  if (text === '') return EMPTY;
  const cached = cache.get(text);
  if (cached !== undefined) return cached;
  const ends: number[] = [];
  const tokensThrough: number[] = [];
  let tokens = 0;
  forEachTokenSpan(text, (end, spanTokens) => {
    tokens += spanTokens;
    ends.push(end);
    tokensThrough.push(tokens);
  });
  const boundaries: TokenBoundaries = { ends, tokensThrough, totalTokens: tokens };
  if (text.length <= CACHE_MAX_CHARACTERS) {
    if (cache.size >= CACHE_ENTRIES) cache.clear();
    cache.set(text, boundaries);
  }
  return boundaries;
}

/**
 * The tokens generated once the text up to `index` (a code point boundary inside span `spanIndex`, or its end) is
 * out: whole spans before it, and of that span its share of the tokens rounded up (the token that holds the
 * character before `index` must be out).
 */
export function tokensUpTo(boundaries: TokenBoundaries, index: number, spanIndex: number): number {
  const { ends, tokensThrough } = boundaries;
  const end = ends[spanIndex] as number;
  const through = tokensThrough[spanIndex] as number;
  if (index >= end) return through;
  const start = spanIndex === 0 ? 0 : (ends[spanIndex - 1] as number);
  const before = spanIndex === 0 ? 0 : (tokensThrough[spanIndex - 1] as number);
  if (index <= start) return before;
  return before + Math.ceil(((through - before) * (index - start)) / (end - start));
}
