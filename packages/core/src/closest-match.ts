/**
 * Levenshtein distance between two strings, case-insensitive, with an early exit once `maximum` is exceeded.
 */
function editDistance(left: string, right: string, maximum: number): number {
  const a = left.toLowerCase();
  const b = right.toLowerCase();
  if (Math.abs(a.length - b.length) > maximum) return maximum + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMinimum = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + cost,
      );
      current.push(value);
      rowMinimum = Math.min(rowMinimum, value);
    }
    if (rowMinimum > maximum) return maximum + 1;
    previous = current;
  }
  return previous[b.length] ?? maximum + 1;
}

/**
 * The candidate closest to `input`, for "did you mean" messages: `loction` → `location`.
 * Returns `undefined` when nothing is close enough (by default, within a third of the input's length, at least 2
 * edits), so a suggestion is never a wild guess.
 *
 * @example
 * closestMatch('get_wether', ['get_weather', 'search']); // 'get_weather'
 */
export function closestMatch(
  input: string,
  candidates: Iterable<string>,
  options: { maxDistance?: number } = {},
): string | undefined {
  const maximum = options.maxDistance ?? Math.max(2, Math.floor(input.length / 3));
  let best: string | undefined;
  let bestDistance = maximum + 1;
  for (const candidate of candidates) {
    if (candidate === input) return candidate;
    const distance = editDistance(input, candidate, Math.min(maximum, bestDistance));
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
