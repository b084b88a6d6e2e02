import o200kBase from 'js-tiktoken/ranks/o200k_base';

/**
 * o200k_base's byte-pair ranks, read for counting only. js-tiktoken's `Tiktoken` constructor builds two maps keyed by
 * decoded bytes joined with commas, through a 200k-key plain object: about 0.8 s on an idle machine (4 s on a busy
 * one) before a first count. Counting needs only "is this byte sequence a token, and at which rank", so the ranks
 * file (one line: a marker, the first rank, then each token's bytes in base64, in rank order) is decoded in one pass
 * into a byte pool and an open-addressing hash table over it: no string or object per token, a few milliseconds.
 */
interface RankTable {
  /** Every token's bytes, back to back; token `i` is `pool[starts[i], starts[i + 1])`. */
  readonly pool: Uint8Array;
  readonly starts: Int32Array;
  /** Hash slots holding `token index + 1` (0: empty); the rank is the first rank plus the token index. */
  readonly slots: Int32Array;
  readonly firstRank: number;
}

let table: RankTable | undefined;

const BASE64_VALUES = (() => {
  const values = new Int8Array(128).fill(-1);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let index = 0; index < alphabet.length; index++) values[alphabet.charCodeAt(index)] = index;
  return values;
})();

/** FNV-1a over `bytes[start, end)`. */
function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let index = start; index < end; index++) hash = Math.imul(hash ^ (bytes[index] ?? 0), 0x01000193);
  return hash >>> 0;
}

function loadTable(): RankTable {
  const text = o200kBase.bpe_ranks;
  const marker = text.indexOf(' ');
  const rankEnd = text.indexOf(' ', marker + 1);
  const firstRank = Number.parseInt(text.slice(marker + 1, rankEnd), 10);
  // Base64 takes 4 characters per 3 bytes: the pool never needs more than this.
  const pool = new Uint8Array(Math.ceil(((text.length - rankEnd) * 3) / 4));
  const starts: number[] = [];
  let size = 0;
  let bits = 0;
  let bitCount = 0;
  let inToken = false;
  for (let index = rankEnd + 1; index <= text.length; index++) {
    const code = index < text.length ? text.charCodeAt(index) : 32;
    if (code === 32 || code === 10) {
      // A token ends (its end is recorded); padding (`=`) needs nothing: leftover bits are never a whole byte.
      if (inToken) starts.push(size);
      inToken = false;
      bits = 0;
      bitCount = 0;
      continue;
    }
    inToken = true;
    const value = code < 128 ? (BASE64_VALUES[code] ?? -1) : -1;
    if (value < 0) continue;
    bits = (bits << 6) | value;
    bitCount += 6;
    if (bitCount >= 8) {
      bitCount -= 8;
      pool[size++] = (bits >> bitCount) & 0xff;
      bits &= (1 << bitCount) - 1;
    }
  }
  // `starts` now holds each token's end; shift to starts with a final sentinel.
  const tokenStarts = new Int32Array(starts.length + 1);
  for (let index = 0; index < starts.length; index++) tokenStarts[index + 1] = starts[index] ?? 0;
  let capacity = 1;
  while (capacity < starts.length * 2) capacity <<= 1;
  const slots = new Int32Array(capacity);
  const mask = capacity - 1;
  for (let token = 0; token < starts.length; token++) {
    let slot = hashBytes(pool, tokenStarts[token] ?? 0, tokenStarts[token + 1] ?? 0) & mask;
    while (slots[slot] !== 0) slot = (slot + 1) & mask;
    slots[slot] = token + 1;
  }
  return { pool, starts: tokenStarts, slots, firstRank };
}

/** The rank of `bytes[start, end)`, or -1 when it is not one token. */
function rankOf(ranks: RankTable, bytes: Uint8Array, start: number, end: number): number {
  const { pool, starts, slots } = ranks;
  const mask = slots.length - 1;
  const length = end - start;
  for (let slot = hashBytes(bytes, start, end) & mask; ; slot = (slot + 1) & mask) {
    const entry = slots[slot] ?? 0;
    if (entry === 0) return -1;
    const tokenStart = starts[entry - 1] ?? 0;
    if ((starts[entry] ?? 0) - tokenStart !== length) continue;
    let same = true;
    for (let offset = 0; offset < length; offset++) {
      if (pool[tokenStart + offset] !== bytes[start + offset]) {
        same = false;
        break;
      }
    }
    if (same) return ranks.firstRank + entry - 1;
  }
}

const utf8 = new TextEncoder();

/**
 * Tokens of one pre-token under o200k_base: tiktoken's byte-pair merge (repeatedly join the adjacent pair whose
 * joined bytes have the lowest rank, the leftmost on a tie) and the number of parts left. The same merges as
 * js-tiktoken's `encode`, so the same count; every single byte is a token in o200k_base, so no part is dropped.
 */
export function bytePairTokenCount(piece: string): number {
  table ??= loadTable();
  const ranks = table;
  const bytes = utf8.encode(piece);
  if (bytes.length === 0) return 0;
  if (bytes.length === 1 || rankOf(ranks, bytes, 0, bytes.length) >= 0) return 1;
  // starts[i] is where part i begins; the part ends where part i + 1 begins (starts holds a final sentinel).
  const starts: number[] = [];
  for (let index = 0; index <= bytes.length; index++) starts.push(index);
  const pairRank = (part: number): number => {
    if (part + 2 >= starts.length) return Number.POSITIVE_INFINITY;
    const rank = rankOf(ranks, bytes, starts[part] ?? 0, starts[part + 2] ?? 0);
    return rank < 0 ? Number.POSITIVE_INFINITY : rank;
  };
  const pairRanks: number[] = [];
  for (let part = 0; part + 2 < starts.length; part++) pairRanks.push(pairRank(part));
  while (pairRanks.length > 0) {
    let best = 0;
    for (let part = 1; part < pairRanks.length; part++) {
      if ((pairRanks[part] ?? Number.POSITIVE_INFINITY) < (pairRanks[best] ?? Number.POSITIVE_INFINITY))
        best = part;
    }
    if (pairRanks[best] === Number.POSITIVE_INFINITY) break;
    // Join parts best and best + 1: drop the boundary between them and the pair rank that spanned it.
    starts.splice(best + 1, 1);
    pairRanks.splice(best, 1);
    if (best < pairRanks.length) pairRanks[best] = pairRank(best);
    if (best > 0) pairRanks[best - 1] = pairRank(best - 1);
  }
  return starts.length - 1;
}

/** o200k_base's pre-tokenizer pattern. */
export const O200K_PATTERN: string = o200kBase.pat_str;
