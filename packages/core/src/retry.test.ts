import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AbortedError,
  abortableSleep,
  backoffDelay,
  checkRetryOptions,
  DEFAULT_RETRY_OPTIONS,
  InvalidProviderOptionsError,
  InvalidRequestError,
  OrgError,
  ProviderUnavailableError,
  parseRetryAfterMs,
  RateLimitError,
  type RetryFailure,
  type RetryOptions,
  resolveRetryOptions,
  retryHintsFromHeaders,
  withRetries,
} from './index.js';

const RUNS = Number(process.env.FC_NUM_RUNS ?? 1000);

const unavailable = (): ProviderUnavailableError =>
  new ProviderUnavailableError({ provider: 'test', message: 'down' });
const asFailure = (thrown: unknown): RetryFailure => ({ error: thrown as Error });

/** A retry policy on a virtual clock: every wait is recorded, none is slept. */
function recorded(options: RetryOptions = {}): {
  retry: ReturnType<typeof resolveRetryOptions>;
  waits: number[];
} {
  const waits: number[] = [];
  const retry = resolveRetryOptions({ sleep: async (delayMs) => void waits.push(delayMs) }, options);
  return { retry, waits };
}

/** An attempt that throws the given values in turn, then answers 'ok'. */
function failing(...errors: unknown[]): { attempt: () => Promise<string>; attempts: () => number } {
  let count = 0;
  return {
    attempt: async () => {
      const error = errors[count];
      count++;
      if (count <= errors.length) throw error;
      return 'ok';
    },
    attempts: () => count,
  };
}

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
          expect(parseRetryAfterMs({ 'Retry-After': ` ${seconds} ` })).toBe(seconds * 1000);
        },
      ),
      { numRuns: RUNS },
    );
    expect(parseRetryAfterMs(new Headers({ 'retry-after': '0.0001' }))).toBe(1);
  });

  it('retry-after-ms (integer or decimal) → milliseconds, rounded up; it wins over retry-after', () => {
    fc.assert(
      fc.property(fc.nat({ max: 10_000_000 }), fc.nat({ max: 99 }), (milliseconds, hundredths) => {
        const decimal = `${milliseconds}.${String(hundredths).padStart(2, '0')}`;
        const expected = hundredths === 0 ? milliseconds : milliseconds + 1;
        expect(parseRetryAfterMs(new Headers({ 'retry-after-ms': decimal, 'retry-after': '9' }))).toBe(
          expected,
        );
      }),
      { numRuns: RUNS },
    );
    expect(parseRetryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250);
    // An unreadable retry-after-ms falls back to retry-after.
    expect(parseRetryAfterMs(new Headers({ 'retry-after-ms': 'soon', 'retry-after': '9' }))).toBe(9000);
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

  it('reads the obsolete RFC 850 and asctime date forms (as GMT)', () => {
    const now = Date.parse('1994-11-06T08:49:30Z');
    expect(parseRetryAfterMs({ 'retry-after': 'Sunday, 06-Nov-94 08:49:37 GMT' }, () => now)).toBe(7000);
    expect(parseRetryAfterMs({ 'retry-after': 'Sun Nov  6 08:49:37 1994' }, () => now)).toBe(7000);
    expect(parseRetryAfterMs({ 'retry-after': 'Sun, 06 Nov 1994 08:49:37 GMT' }, () => now)).toBe(7000);
  });

  it('garbage, negative numbers, exponents and date-like junk → undefined, never NaN', () => {
    for (const value of ['soon', 'soon 3', '-1', '1e3', '2026-01-01', '0x10', '1,5', 'Infinity', '', '   ']) {
      expect(parseRetryAfterMs(new Headers({ 'retry-after': value }))).toBeUndefined();
      expect(parseRetryAfterMs({ 'retry-after-ms': value })).toBeUndefined();
    }
    expect(parseRetryAfterMs(new Headers())).toBeUndefined();
    expect(parseRetryAfterMs({})).toBeUndefined();
    expect(parseRetryAfterMs(undefined)).toBeUndefined();
  });

  it('property: never throws, never negative, never NaN or infinite, whatever the headers hold', () => {
    const headerValue = fc.oneof(
      fc.string(),
      fc.stringMatching(/^\s*\d{0,400}(\.\d{0,20})?\s*$/),
      fc.date({ noInvalidDate: true }).map((date) => date.toUTCString()),
      fc.anything(),
    );
    fc.assert(
      fc.property(
        fc.record({ 'retry-after': headerValue, 'retry-after-ms': headerValue }, { requiredKeys: [] }),
        fc.boolean(),
        (record, asHeaders) => {
          let headers: Headers | Record<string, unknown> = record;
          if (asHeaders) {
            const strings = Object.entries(record).filter(
              (entry): entry is [string, string] => typeof entry[1] === 'string',
            );
            headers = new Headers(
              strings.map(([key, value]) => [key, value.replace(/[\r\n\0]/g, '').trim()]),
            );
          }
          const result = parseRetryAfterMs(headers);
          expect(result === undefined || (Number.isSafeInteger(result) && result >= 0)).toBe(true);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('a huge number is the longest safe wait (so the caller fails fast), not Infinity', () => {
    expect(parseRetryAfterMs({ 'retry-after': '9'.repeat(400) })).toBe(Number.MAX_SAFE_INTEGER);
    expect(parseRetryAfterMs({ 'retry-after-ms': '9'.repeat(400) })).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('reads plain records case-insensitively, including arrays and numbers; hostile objects give undefined', () => {
    expect(parseRetryAfterMs({ 'RETRY-AFTER': ['3', '4'] })).toBe(3000);
    expect(parseRetryAfterMs({ 'retry-after-ms': 120 })).toBe(120);
    const hostile = {
      get(): string {
        throw new Error('boom');
      },
    };
    expect(parseRetryAfterMs(hostile)).toBeUndefined();
    const throwingGetter = Object.defineProperty({}, 'retry-after', {
      enumerable: true,
      get: () => {
        throw new Error('boom');
      },
    });
    expect(parseRetryAfterMs(throwingGetter)).toBeUndefined();
    expect(parseRetryAfterMs(null as unknown as undefined)).toBeUndefined();
  });
});

describe('retryHintsFromHeaders', () => {
  it('reads x-should-retry true / false and the requested wait', () => {
    expect(retryHintsFromHeaders(new Headers({ 'x-should-retry': 'false', 'retry-after': '1' }))).toEqual({
      shouldRetryHeader: false,
      retryAfterMs: 1000,
    });
    expect(retryHintsFromHeaders({ 'X-Should-Retry': 'true' })).toEqual({
      shouldRetryHeader: true,
      retryAfterMs: undefined,
    });
    expect(
      retryHintsFromHeaders(new Headers({ 'x-should-retry': 'maybe' })).shouldRetryHeader,
    ).toBeUndefined();
    expect(retryHintsFromHeaders(undefined)).toEqual({
      shouldRetryHeader: undefined,
      retryAfterMs: undefined,
    });
  });
});

describe('resolveRetryOptions', () => {
  it('fills in the defaults', () => {
    const resolved = resolveRetryOptions();
    expect(resolved).toMatchObject({
      maxRetries: 2,
      initialDelayMs: 500,
      maxDelayMs: 8000,
      maxRetryAfterMs: 60_000,
    });
    expect(resolved.sleep).toBe(abortableSleep);
    expect(DEFAULT_RETRY_OPTIONS).toEqual({
      maxRetries: 2,
      initialDelayMs: 500,
      maxDelayMs: 8000,
      maxRetryAfterMs: 60_000,
    });
  });

  it('later layers override earlier ones field by field; undefined keeps the value below', () => {
    const sleep = async (): Promise<void> => {};
    const resolved = resolveRetryOptions(
      { maxRetries: 0 },
      undefined,
      { maxRetries: 5, maxDelayMs: 1000, sleep },
      { maxRetries: undefined, initialDelayMs: 100 },
    );
    expect(resolved).toEqual({
      maxRetries: 5,
      initialDelayMs: 100,
      maxDelayMs: 1000,
      maxRetryAfterMs: 60_000,
      sleep,
    });
  });
});

describe('backoffDelay', () => {
  it('property: a whole number between half and all of min(initial * 2^n, max)', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 20 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (retryIndex, initialDelayMs, maxDelayMs, random) => {
          const delay = backoffDelay(retryIndex, { initialDelayMs, maxDelayMs }, () => random);
          const ceiling = Math.min(maxDelayMs, initialDelayMs * 2 ** retryIndex);
          expect(Number.isInteger(delay)).toBe(true);
          expect(delay).toBeGreaterThanOrEqual(ceiling / 2);
          expect(delay).toBeLessThanOrEqual(ceiling);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('property: until the cap, each delay is longer than the one before, whatever the jitter', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 10 }),
        fc.integer({ min: 2, max: 10_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (retryIndex, initialDelayMs, first, second) => {
          const retry = { initialDelayMs, maxDelayMs: Number.MAX_SAFE_INTEGER };
          expect(backoffDelay(retryIndex + 1, retry, () => second)).toBeGreaterThan(
            backoffDelay(retryIndex, retry, () => first),
          );
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('defaults: 250..499 ms first, never above 8 s', () => {
    const retry = resolveRetryOptions();
    expect(backoffDelay(0, retry, () => 0)).toBe(250);
    expect(backoffDelay(0, retry, () => 0.999_999)).toBe(499);
    expect(backoffDelay(10, retry, () => 0.999_999)).toBeLessThanOrEqual(8000);
  });
});

describe('abortableSleep', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('resolves after the delay on the clock', async () => {
    vi.useFakeTimers();
    let done = false;
    const waiting = abortableSleep(60_000).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(59_999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await waiting;
    expect(done).toBe(true);
  });

  it('rejects with the abort reason during the wait, and at once when already aborted; clears its timer', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const waiting = abortableSleep(60_000, controller.signal);
    const reason = new Error('user gave up');
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    expect(vi.getTimerCount()).toBe(0);
    await expect(abortableSleep(1, controller.signal)).rejects.toBe(reason);
  });
});

describe('withRetries', () => {
  it('property: attempts = min(failures + 1, maxRetries + 1); waits = attempts - 1, each within the back-off bounds', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 6 }), fc.nat({ max: 6 }), async (failures, maxRetries) => {
        const { retry, waits } = recorded({ maxRetries });
        const { attempt, attempts } = failing(...Array.from({ length: failures }, unavailable));
        const result = await withRetries(attempt, { retry, operation: 'test', classify: asFailure }).catch(
          (error: unknown) => error,
        );
        expect(attempts()).toBe(Math.min(failures + 1, maxRetries + 1));
        if (failures <= maxRetries) expect(result).toBe('ok');
        else expect(ProviderUnavailableError.isInstance(result)).toBe(true);
        expect(waits).toHaveLength(attempts() - 1);
        waits.forEach((delay, index) => {
          const ceiling = Math.min(retry.maxDelayMs, retry.initialDelayMs * 2 ** index);
          expect(delay).toBeGreaterThanOrEqual(ceiling / 2);
          expect(delay).toBeLessThanOrEqual(ceiling);
        });
      }),
      { numRuns: 200 },
    );
  });

  it('passes the attempt index to each attempt', async () => {
    const { retry } = recorded();
    const seen: number[] = [];
    await withRetries(
      async (attemptIndex) => {
        seen.push(attemptIndex);
        if (attemptIndex < 2) throw unavailable();
        return 'ok';
      },
      { retry, operation: 'test', classify: asFailure },
    );
    expect(seen).toEqual([0, 1, 2]);
  });

  it('throws a non-retryable error at once, and anything not of the family (no retryable flag)', async () => {
    const { retry, waits } = recorded();
    const invalid = failing(new InvalidRequestError({ provider: 'test', message: 'bad' }));
    await expect(
      withRetries(invalid.attempt, { retry, operation: 'test', classify: asFailure }),
    ).rejects.toSatisfy((error: unknown) => InvalidRequestError.isInstance(error));
    expect(invalid.attempts()).toBe(1);
    const plain = failing(new TypeError('oops'));
    await expect(
      withRetries(plain.attempt, { retry, operation: 'test', classify: asFailure }),
    ).rejects.toThrow(TypeError);
    expect(plain.attempts()).toBe(1);
    expect(waits).toEqual([]);
  });

  it('throws the mapped error, not what the attempt threw', async () => {
    const { retry } = recorded({ maxRetries: 1 });
    const { attempt } = failing(new Error('socket'), new Error('socket'));
    const mapped = unavailable();
    await expect(
      withRetries(attempt, { retry, operation: 'test', classify: () => ({ error: mapped }) }),
    ).rejects.toBe(mapped);
  });

  it('x-should-retry: true retries a non-retryable error; false stops a retryable one', async () => {
    const { retry, waits } = recorded();
    const invalid = failing(new InvalidRequestError({ provider: 'test', message: 'bad' }));
    await expect(
      withRetries(invalid.attempt, {
        retry,
        operation: 'test',
        classify: (thrown) => ({ error: thrown as Error, shouldRetryHeader: true }),
      }),
    ).resolves.toBe('ok');
    expect(invalid.attempts()).toBe(2);
    const down = failing(unavailable());
    await expect(
      withRetries(down.attempt, {
        retry,
        operation: 'test',
        classify: (thrown) => ({ error: thrown as Error, shouldRetryHeader: false }),
      }),
    ).rejects.toSatisfy((error: unknown) => ProviderUnavailableError.isInstance(error));
    expect(down.attempts()).toBe(1);
    expect(waits).toHaveLength(1);
  });

  it('waits what the server asked: the classified wait, else RateLimitError.retryAfterMs', async () => {
    const { retry, waits } = recorded();
    const { attempt } = failing(
      new RateLimitError({ provider: 'test', message: 'wait', retryAfterMs: 2000 }),
      unavailable(),
    );
    let calls = 0;
    await withRetries(attempt, {
      retry,
      operation: 'test',
      classify: (thrown) => {
        calls++;
        return { error: thrown as Error, ...(calls === 2 ? { retryAfterMs: 1500 } : {}) };
      },
    });
    expect(waits).toEqual([2000, 1500]);
  });

  it('fails fast when the server asks for a wait longer than maxRetryAfterMs, with the wait in the error', async () => {
    const { retry, waits } = recorded({ maxRetryAfterMs: 10_000 });
    const { attempt, attempts } = failing(
      new RateLimitError({ provider: 'test', message: 'wait', retryAfterMs: 3_600_000 }),
    );
    const error = await withRetries(attempt, { retry, operation: 'test', classify: asFailure }).catch(
      (thrown: unknown) => thrown,
    );
    expect(RateLimitError.isInstance(error) && error.retryAfterMs).toBe(3_600_000);
    expect(attempts()).toBe(1);
    expect(waits).toEqual([]);
    const exactly = failing(new RateLimitError({ provider: 'test', message: 'wait', retryAfterMs: 10_000 }));
    await expect(
      withRetries(exactly.attempt, { retry, operation: 'test', classify: asFailure }),
    ).resolves.toBe('ok');
    expect(waits).toEqual([10_000]);
  });

  it('a NaN budget means no retries, not endless ones', async () => {
    const { retry } = recorded({ maxRetries: Number.NaN });
    const { attempt, attempts } = failing(unavailable(), unavailable());
    await expect(
      withRetries(attempt, { retry, operation: 'test', classify: asFailure }),
    ).rejects.toBeDefined();
    expect(attempts()).toBe(1);
  });

  it('never retries an AbortedError, nor any failure once the signal has aborted', async () => {
    const { retry, waits } = recorded();
    const aborted = failing(new AbortedError({ operation: 'test' }));
    await expect(
      withRetries(aborted.attempt, { retry, operation: 'test', classify: asFailure }),
    ).rejects.toSatisfy((error: unknown) => AbortedError.isInstance(error));
    expect(aborted.attempts()).toBe(1);
    const controller = new AbortController();
    controller.abort();
    const down = failing(unavailable());
    await expect(
      withRetries(down.attempt, { retry, signal: controller.signal, operation: 'test', classify: asFailure }),
    ).rejects.toSatisfy((error: unknown) => ProviderUnavailableError.isInstance(error));
    expect(down.attempts()).toBe(1);
    expect(waits).toEqual([]);
  });

  it('an abort during the default wait ends the call at once with AbortedError (cause: the reason)', async () => {
    vi.useFakeTimers();
    try {
      const controller = new AbortController();
      const retry = resolveRetryOptions({ initialDelayMs: 60_000 });
      const { attempt, attempts } = failing(unavailable());
      const running = withRetries(attempt, {
        retry,
        signal: controller.signal,
        operation: 'The test call',
        classify: asFailure,
      }).catch((error: unknown) => error);
      await vi.advanceTimersByTimeAsync(10);
      const reason = new Error('user gave up');
      controller.abort(reason);
      const error = await running;
      expect(AbortedError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ operation: 'The test call', cause: reason });
      expect(attempts()).toBe(1);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a custom sleep that ignores the signal still ends the call with the abort', async () => {
    const controller = new AbortController();
    const retry = resolveRetryOptions({
      sleep: async () => {
        controller.abort(new Error('late'));
      },
    });
    const { attempt, attempts } = failing(unavailable());
    const error = await withRetries(attempt, {
      retry,
      signal: controller.signal,
      operation: 'test',
      classify: asFailure,
    }).catch((thrown: unknown) => thrown);
    expect(AbortedError.isInstance(error)).toBe(true);
    expect(attempts()).toBe(1);
  });

  it('a sleep rejecting with an error of the family is rethrown as is; anything else becomes AbortedError', async () => {
    const own = new AbortedError({ operation: 'scheduler' });
    const rejectWith = (reason: unknown) =>
      resolveRetryOptions({
        sleep: async () => {
          throw reason;
        },
      });
    await expect(
      withRetries(failing(unavailable()).attempt, {
        retry: rejectWith(own),
        operation: 'test',
        classify: asFailure,
      }),
    ).rejects.toBe(own);
    const error = await withRetries(failing(unavailable()).attempt, {
      retry: rejectWith('cancelled'),
      operation: 'test',
      classify: asFailure,
    }).catch((thrown: unknown) => thrown);
    expect(AbortedError.isInstance(error) && OrgError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ operation: 'test', cause: 'cancelled' });
  });
});

describe('checkRetryOptions', () => {
  it('accepts what it knows, and nothing at all', () => {
    expect(() => checkRetryOptions(undefined)).not.toThrow();
    expect(() =>
      checkRetryOptions({
        maxRetries: 0,
        initialDelayMs: 1,
        maxDelayMs: 2,
        maxRetryAfterMs: 3,
        sleep: async () => {},
      }),
    ).not.toThrow();
    expect(() => checkRetryOptions({ maxRetries: undefined })).not.toThrow();
  });

  it.each([
    [{ maxWaitMs: 10 }, 'retry.maxWaitMs', /has no option 'maxWaitMs'/],
    [{ maxDelay: 10 }, 'retry.maxDelay', /did you mean 'maxDelayMs'/],
    [{ maxRetries: -1 }, 'retry.maxRetries', /non-negative integer, got -1/],
    [{ initialDelayMs: 1.5 }, 'retry.initialDelayMs', /whole number of milliseconds from 0/],
    [{ maxDelayMs: 2 ** 31 }, 'retry.maxDelayMs', /at most 2147483647/],
    [{ maxRetryAfterMs: Number.POSITIVE_INFINITY }, 'retry.maxRetryAfterMs', /got Infinity/],
    [{ maxDelayMs: '100' }, 'retry.maxDelayMs', /got "100"/],
    [{ maxRetryAfterMs: Number.NaN }, 'retry.maxRetryAfterMs', /whole number of milliseconds from 0/],
    [{ sleep: 5 }, 'retry.sleep', /must be a function/],
    ['fast', 'retry', /must be an object/],
  ])('refuses %j with a typed error naming the option', (retry, option, message) => {
    let thrown: unknown;
    try {
      checkRetryOptions(retry, { provider: 'openai' });
    } catch (error) {
      thrown = error;
    }
    expect(InvalidProviderOptionsError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({ code: 'invalid_provider_options', provider: 'openai', option });
    expect((thrown as Error).message).toMatch(message);
  });

  it('narrows the accepted keys for an adapter whose retry count is a top-level option', () => {
    expect(() => checkRetryOptions({ maxRetries: 2 }, { keys: ['maxDelayMs'] })).toThrow(
      /has no option 'maxRetries'/,
    );
  });
});
