/**
 * Names longer than this are never compared: a did-you-mean is for typos of names, and a model can send a name of a
 * megabyte. Such an input only matches a candidate equal to it.
 */
const MAX_COMPARED_LENGTH = 128;

/**
 * Cells of the edit-distance table one search may fill, over all candidates: bounds a search over a long list of
 * model-chosen candidates (step ids, keys) to a constant, so that callers searching once per input item stay linear.
 * The best match among the candidates compared so far is returned when it runs out.
 */
const MAX_CELLS_PER_SEARCH = 200_000;

/**
 * Levenshtein distance between two strings, case-insensitive, computed only in the diagonal band of width
 * `2 * maximum + 1` (cells outside it cannot lead to a distance within `maximum`), with an early exit once
 * `maximum` is exceeded. Returns `maximum + 1` for "too far"; `cells` receives the work done.
 */
function editDistance(left: string, right: string, maximum: number, cells: { count: number }): number {
  const a = left.toLowerCase();
  const b = right.toLowerCase();
  if (Math.abs(a.length - b.length) > maximum) return maximum + 1;
  const tooFar = maximum + 1;
  let previous = new Array<number>(b.length + 1);
  let current = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) previous[j] = j <= maximum ? j : tooFar;
  for (let i = 1; i <= a.length; i++) {
    const from = Math.max(1, i - maximum);
    const to = Math.min(b.length, i + maximum);
    current.fill(tooFar);
    current[0] = i <= maximum ? i : tooFar;
    let rowMinimum = current[0];
    for (let j = from; j <= to; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost, tooFar);
      current[j] = value;
      if (value < rowMinimum) rowMinimum = value;
    }
    cells.count += to - from + 1;
    if (rowMinimum > maximum) return tooFar;
    [previous, current] = [current, previous];
  }
  return Math.min(previous[b.length]!, tooFar);
}

/**
 * The candidate closest to `input`, for "did you mean" messages: `loction` → `location`.
 * Returns `undefined` when nothing is close enough (by default, within a third of the input's length, at least 2
 * edits), so a suggestion is never a wild guess. The work is bounded whatever the input (names over 128
 * characters are only matched exactly, and one search compares at most a fixed number of characters), so it is
 * safe on model-chosen names and candidate lists.
 *
 * @example
 * closestMatch('get_wether', ['get_weather', 'search']); // 'get_weather'
 */
export function closestMatch(
  input: string,
  candidates: Iterable<string>,
  options: { maxDistance?: number } = {},
): string | undefined {
  const comparable = typeof input === 'string' && input.length <= MAX_COMPARED_LENGTH;
  const maximum = options.maxDistance ?? Math.max(2, Math.floor((comparable ? input.length : 0) / 3));
  let best: string | undefined;
  let bestDistance = maximum + 1;
  const cells = { count: 0 };
  for (const candidate of candidates) {
    if (candidate === input) return candidate;
    if (!comparable || typeof candidate !== 'string' || candidate.length > MAX_COMPARED_LENGTH) continue;
    if (cells.count > MAX_CELLS_PER_SEARCH) continue; // still looking for an exact match, which costs nothing
    const distance = editDistance(input, candidate, Math.min(maximum, bestDistance), cells);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
