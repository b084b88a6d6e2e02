import o200kBase from 'js-tiktoken/ranks/o200k_base';

/**
 * o200k_base's byte-pair ranks, read for counting only. js-tiktoken's `Tiktoken` constructor builds two maps keyed
 * by decoded bytes joined with commas through a 200k-key plain object, which took about a second (4 s on a busy
 * machine) before a first count. Counting needs only "is this byte sequence a token, and at which rank": a map from
 * the ranks file's own base64 keys to ranks is built in one pass over the text, with no decoding, in about a tenth of
 * the time, and a byte sequence is looked up by its base64 text.
 */
let ranks: Map<string, number> | undefined;

function loadRanks(): Map<string, number> {
  const map = new Map<string, number>();
  const text = o200kBase.bpe_ranks;
  // Each line: `<prefix> <first rank> <token> <token> ...`, the tokens' ranks counting up from the first rank.
  let lineStart = 0;
  while (lineStart < text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd === -1) lineEnd = text.length;
    const fields = text.slice(lineStart, lineEnd).split(' ');
    const first = Number.parseInt(fields[1] ?? '', 10);
    for (let index = 2; index < fields.length; index++) {
      const token = fields[index];
      if (token !== undefined && token !== '') map.set(token, first + index - 2);
    }
    lineStart = lineEnd + 1;
  }
  return map;
}

const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Standard padded base64 of `bytes[start, end)`: the ranks file's key for that byte sequence. */
function base64(bytes: Uint8Array, start: number, end: number): string {
  let out = '';
  let index = start;
  for (; index + 2 < end; index += 3) {
    const triple = ((bytes[index] ?? 0) << 16) | ((bytes[index + 1] ?? 0) << 8) | (bytes[index + 2] ?? 0);
    out +=
      BASE64_ALPHABET[triple >> 18] +
      (BASE64_ALPHABET[(triple >> 12) & 63] ?? '') +
      (BASE64_ALPHABET[(triple >> 6) & 63] ?? '') +
      (BASE64_ALPHABET[triple & 63] ?? '');
  }
  const left = end - index;
  if (left === 1) {
    const value = (bytes[index] ?? 0) << 16;
    out += `${BASE64_ALPHABET[value >> 18]}${BASE64_ALPHABET[(value >> 12) & 63]}==`;
  } else if (left === 2) {
    const value = ((bytes[index] ?? 0) << 16) | ((bytes[index + 1] ?? 0) << 8);
    out += `${BASE64_ALPHABET[value >> 18]}${BASE64_ALPHABET[(value >> 12) & 63]}${BASE64_ALPHABET[(value >> 6) & 63]}=`;
  }
  return out;
}

/** The rank of `bytes[start, end)`, or undefined when it is not one token. */
function rankOf(
  table: Map<string, number>,
  bytes: Uint8Array,
  start: number,
  end: number,
): number | undefined {
  return table.get(base64(bytes, start, end));
}

const utf8 = new TextEncoder();

/**
 * Tokens of one pre-token under o200k_base: tiktoken's byte-pair merge (repeatedly join the adjacent pair whose
 * joined bytes have the lowest rank, the leftmost on a tie) and the number of parts left. The same merges as
 * js-tiktoken's `encode`, so the same count; every single byte is a token in o200k_base, so no part is dropped.
 */
export function bytePairTokenCount(piece: string): number {
  ranks ??= loadRanks();
  const table = ranks;
  const bytes = utf8.encode(piece);
  if (bytes.length <= 1 || rankOf(table, bytes, 0, bytes.length) !== undefined)
    return bytes.length === 0 ? 0 : 1;
  // starts[i] is where part i begins; the part ends where part i + 1 begins (starts holds a final sentinel).
  const starts: number[] = [];
  for (let index = 0; index <= bytes.length; index++) starts.push(index);
  const pairRank = (part: number): number =>
    part + 2 < starts.length
      ? (rankOf(table, bytes, starts[part] ?? 0, starts[part + 2] ?? 0) ?? Number.POSITIVE_INFINITY)
      : Number.POSITIVE_INFINITY;
  const pairRanks: number[] = [];
  for (let part = 0; part + 1 < starts.length - 1; part++) pairRanks.push(pairRank(part));
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
