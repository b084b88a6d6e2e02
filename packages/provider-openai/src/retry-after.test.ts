import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRetryAfterMs } from './retry-after.js';

const RUNS = Number(process.env.FC_NUM_RUNS ?? 1000);

describe('parseRetryAfterMs', () => {
  it('seconds (integer or decimal) → milliseconds, rounded up', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 999 }),
        (seconds, thousandths) => {
          const value = `${seconds}.${String(thousandths).padStart(3, '0')}`;
          expect(parseRetryAfterMs(new Headers({ 'retry-after': value }))).toBe(seconds * 1000 + thousandths);
          expect(parseRetryAfterMs(new Headers({ 'retry-after': String(seconds) }))).toBe(seconds * 1000);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('an HTTP date → the time until then, never negative', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    fc.assert(
      fc.property(fc.integer({ min: -86_400, max: 86_400 }), (offsetSeconds) => {
        const date = new Date(now + offsetSeconds * 1000).toUTCString();
        expect(parseRetryAfterMs(new Headers({ 'retry-after': date }), () => now)).toBe(
          Math.max(0, offsetSeconds * 1000),
        );
      }),
      { numRuns: RUNS },
    );
  });

  it('retry-after-ms wins; garbage and absence give undefined, never NaN', () => {
    expect(parseRetryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250);
    fc.assert(
      fc.property(fc.string(), (value) => {
        const result = parseRetryAfterMs(new Headers({ 'retry-after': value.replace(/[\r\n\0]/g, '') }));
        expect(result === undefined || (Number.isFinite(result) && result >= 0)).toBe(true);
      }),
      { numRuns: RUNS },
    );
    expect(parseRetryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(parseRetryAfterMs(new Headers())).toBeUndefined();
    expect(parseRetryAfterMs(undefined)).toBeUndefined();
  });
});
