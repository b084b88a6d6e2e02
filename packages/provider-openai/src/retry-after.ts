/**
 * Reads how long a provider asked us to wait from response headers: `retry-after-ms` (OpenAI's own, milliseconds),
 * then `retry-after` in seconds or as an HTTP date. Returns `undefined` when absent or unreadable; never negative.
 *
 * @example
 * parseRetryAfterMs(new Headers({ 'retry-after': '2' })); // 2000
 */
export function parseRetryAfterMs(
  headers: Headers | undefined,
  now: () => number = Date.now,
): number | undefined {
  if (headers === undefined) return undefined;
  const milliseconds = headers.get('retry-after-ms');
  if (milliseconds !== null && /^\s*\d+(\.\d+)?\s*$/.test(milliseconds))
    return Math.ceil(Number(milliseconds));
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  // toFixed strips binary noise (65536.001 * 1000 = 65536001.00000001) before rounding up.
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.ceil(Number((Number(value) * 1000).toFixed(6)));
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now());
}
