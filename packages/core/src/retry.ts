import { closestMatch } from './closest-match.js';
import { AbortedError, InvalidProviderOptionsError, OrgError, RateLimitError } from './errors.js';
import { describeOptionValue, MAX_TIMER_DELAY_MS, timerDelayProblem } from './max-timer-delay.js';

/**
 * How a provider adapter retries a call that failed before its answer started. Adapters run their own retries
 * (their SDK's are turned off) so that a server asking for an hour's wait fails at once instead of sleeping.
 *
 * @example
 * const retry = resolveRetryOptions({ maxRetries: 4, maxRetryAfterMs: 10_000 });
 */
export interface RetryOptions {
  /** Retries after the first attempt. Default 2. */
  readonly maxRetries?: number | undefined;
  /**
   * First back-off delay when the server names no wait; doubled per retry. Default 500 ms. A whole number of ms from
   * 0 to `MAX_TIMER_DELAY_MS` (a timer cannot wait longer); `Infinity` is refused: a wait is never "none".
   */
  readonly initialDelayMs?: number | undefined;
  /** Cap of one back-off delay. Default 8 000 ms. Same range as `initialDelayMs`. */
  readonly maxDelayMs?: number | undefined;
  /**
   * The longest server-requested wait worth sleeping through. A longer one fails at once with the error, whose
   * `RateLimitError.retryAfterMs` says how long to wait, so the caller decides. Default 60 000 ms. Same range as
   * `initialDelayMs`: a wait above `MAX_TIMER_DELAY_MS` would fire at once, so it always fails fast.
   */
  readonly maxRetryAfterMs?: number | undefined;
  /**
   * Waits before a retry. Replace it to run retries on a virtual clock or a scheduler of your own; it must reject
   * when `signal` aborts. Default `abortableSleep`.
   */
  readonly sleep?: ((delayMs: number, signal: AbortSignal | undefined) => Promise<void>) | undefined;
}

/** `RetryOptions` with every default filled in. */
export interface ResolvedRetryOptions {
  readonly maxRetries: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxRetryAfterMs: number;
  /** Waits between attempts; `abortableSleep` unless `RetryOptions.sleep` was given. */
  readonly sleep: (delayMs: number, signal: AbortSignal | undefined) => Promise<void>;
}

/**
 * The defaults of `RetryOptions` (except `sleep`, which is `abortableSleep`).
 *
 * @example
 * DEFAULT_RETRY_OPTIONS.maxRetryAfterMs; // 60_000
 */
export const DEFAULT_RETRY_OPTIONS: Readonly<Omit<ResolvedRetryOptions, 'sleep'>> = Object.freeze({
  maxRetries: 2,
  initialDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
});

const NUMERIC_KEYS = ['maxRetries', 'initialDelayMs', 'maxDelayMs', 'maxRetryAfterMs'] as const;
const DELAY_KEYS: ReadonlySet<string> = new Set(['initialDelayMs', 'maxDelayMs', 'maxRetryAfterMs']);

/**
 * Checks retry options as a user wrote them: every key known, `maxRetries` a non-negative integer, every delay a
 * whole number of ms from 0 to `MAX_TIMER_DELAY_MS` (the shared rule of `timerDelayProblem`), `sleep` a function. Throws `InvalidProviderOptionsError` naming the option (`retry.maxDelayMs`), so a misspelt or renamed
 * key is refused instead of silently ignored. `keys` narrows the accepted keys (an adapter whose retry count is a
 * top-level option leaves out `maxRetries`).
 *
 * @example
 * checkRetryOptions(options.retry, { provider: 'openai' }); // throws for { maxWaitMs: 10 }
 */
export function checkRetryOptions(
  retry: unknown,
  context: { provider?: string; option?: string; keys?: readonly (keyof RetryOptions)[] } = {},
): void {
  if (retry === undefined) return;
  const option = context.option ?? 'retry';
  const fail = (name: string, message: string): never => {
    throw new InvalidProviderOptionsError({
      ...(context.provider === undefined ? {} : { provider: context.provider }),
      option: name,
      message,
    });
  };
  if (typeof retry !== 'object' || retry === null || Array.isArray(retry)) {
    fail(option, `${option} must be an object of retry options.`);
  }
  const keys: readonly string[] = context.keys ?? [...NUMERIC_KEYS, 'sleep'];
  const record = retry as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!keys.includes(key)) {
      const suggestion = closestMatch(key, keys);
      fail(
        `${option}.${key}`,
        `${option} has no option '${key}'${suggestion === undefined ? '' : ` (did you mean '${suggestion}'?)`}; it takes ${keys.map((name) => `'${name}'`).join(', ')}.`,
      );
    }
    const value = record[key];
    if (value === undefined) continue;
    if (key === 'sleep') {
      if (typeof value !== 'function') fail(`${option}.sleep`, `${option}.sleep must be a function.`);
    } else if (DELAY_KEYS.has(key)) {
      const problem = timerDelayProblem(value, { zero: true, integer: true });
      if (problem !== undefined) fail(`${option}.${key}`, `${option}.${key} ${problem}.`);
    } else if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      fail(
        `${option}.${key}`,
        `${option}.${key} must be a non-negative integer, got ${describeOptionValue(value)}.`,
      );
    }
  }
}

/**
 * Fills in the defaults. Later layers override earlier ones field by field; a field left `undefined` keeps the
 * value below it, so a provider-wide layer and a per-model layer combine. Values are not checked here: an
 * adapter checks its own options and reports them under its own names.
 *
 * @example
 * // provider-level defaults, then the provider's options, then one model's
 * resolveRetryOptions({ maxRetries: 0 }, providerOptions.retry, modelSettings.retry);
 */
export function resolveRetryOptions(
  ...layers: ReadonlyArray<RetryOptions | undefined>
): ResolvedRetryOptions {
  const numbers: { -readonly [K in (typeof NUMERIC_KEYS)[number]]: number } = { ...DEFAULT_RETRY_OPTIONS };
  let sleep: ResolvedRetryOptions['sleep'] = abortableSleep;
  for (const layer of layers) {
    if (layer === undefined) continue;
    for (const key of NUMERIC_KEYS) {
      const value = layer[key];
      if (value !== undefined) numbers[key] = value;
    }
    if (layer.sleep !== undefined) sleep = layer.sleep;
  }
  return { ...numbers, sleep };
}

/**
 * Waits `delayMs`, or rejects with the signal's reason as soon as it aborts (at once when it already has).
 * The timer is cleared on abort, so an aborted wait keeps no process alive. A delay no timer can wait (`NaN`,
 * negative, above `MAX_TIMER_DELAY_MS`, `Infinity`) rejects with a `RangeError` instead of firing after 1 ms.
 *
 * @example
 * await abortableSleep(1_000, request.signal);
 */
export function abortableSleep(delayMs: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const problem = timerDelayProblem(delayMs, { zero: true });
    if (problem !== undefined) {
      reject(new RangeError(`abortableSleep: the delay ${problem}.`));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, delayMs);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The back-off before retry number `retryIndex` (0 for the first retry) when the server names no wait:
 * exponential (`initialDelayMs * 2^retryIndex`, capped at `maxDelayMs`) with "equal jitter", a whole number of
 * milliseconds between half and all of that ceiling (below it when it is 2 or more). Until the cap is reached each delay is longer than the one
 * before, whatever the jitter.
 *
 * @example
 * backoffDelay(0, resolveRetryOptions()); // 250..499
 * backoffDelay(1, resolveRetryOptions()); // 500..999
 */
export function backoffDelay(
  retryIndex: number,
  retry: Pick<ResolvedRetryOptions, 'initialDelayMs' | 'maxDelayMs'>,
  random: () => number = Math.random,
): number {
  // Never above what a timer can wait, whatever options reached here unchecked.
  const ceiling = Math.min(retry.maxDelayMs, retry.initialDelayMs * 2 ** retryIndex, MAX_TIMER_DELAY_MS);
  const half = ceiling / 2;
  // Clamped below the ceiling: 64.5 + 0.9999999999999999 * 64.5 rounds to 129.0 in floating point, and the next
  // retry's lower bound would then equal this one's delay.
  const jittered = Math.min(Math.ceil(ceiling) - 1, Math.floor(half + random() * half));
  return Math.max(Math.ceil(half), jittered);
}

/**
 * Response headers in any of the shapes SDKs expose them: a fetch `Headers` (or anything with `get`), or a plain
 * record (AWS SDK `$response.headers`, Node `IncomingHttpHeaders`) whose keys are matched case-insensitively.
 */
export type HeadersLike =
  | {
      /** Reads one header by name. */
      get(name: string): string | null | undefined;
    }
  | Readonly<Record<string, unknown>>;

/** One header's value, or `undefined`; never throws, whatever the object's getters do. */
function headerOf(headers: HeadersLike | undefined, name: string): string | undefined {
  try {
    if (headers === undefined || headers === null || typeof headers !== 'object') return undefined;
    const get = (headers as { get?: unknown }).get;
    if (typeof get === 'function') {
      const value: unknown = get.call(headers, name);
      return typeof value === 'string' ? value : undefined;
    }
    for (const [key, value] of Object.entries(headers)) {
      if (key.toLowerCase() !== name) continue;
      if (typeof value === 'string') return value;
      if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
      if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    }
    return undefined;
  } catch {
    return undefined;
  }
}

const DECIMAL = /^\d+(?:\.\d+)?$/;
const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '\\d{2}:\\d{2}:\\d{2}';
// The three HTTP-date forms of RFC 9110 §5.6.7. Date.parse alone accepts nearly anything ("soon 3" is a date in
// 2001 to V8), which would turn garbage into "retry now".
const IMF_FIXDATE = new RegExp(`^${DAY}, \\d{2} ${MONTH} \\d{4} ${TIME} GMT$`, 'i');
const RFC_850_DATE = new RegExp(`^${LONG_DAY}, \\d{2}-${MONTH}-\\d{2} ${TIME} GMT$`, 'i');
const ASCTIME_DATE = new RegExp(`^${DAY} ${MONTH} [ \\d]\\d ${TIME} \\d{4}$`, 'i');

/** Milliseconds, rounded up (a server that asked for 1.5 ms gets 2), finite and within safe integers. */
function wholeMilliseconds(value: number): number {
  // toFixed strips binary noise (65536.001 * 1000 = 65536001.00000001) before rounding up.
  const rounded = Math.ceil(Number(value.toFixed(6)));
  return Number.isFinite(rounded) ? Math.min(rounded, Number.MAX_SAFE_INTEGER) : Number.MAX_SAFE_INTEGER;
}

function httpDateMs(value: string): number | undefined {
  let date = Number.NaN;
  if (IMF_FIXDATE.test(value) || RFC_850_DATE.test(value)) date = Date.parse(value);
  else if (ASCTIME_DATE.test(value)) date = Date.parse(`${value} GMT`);
  return Number.isNaN(date) ? undefined : date;
}

/**
 * How long the server asked the client to wait, in milliseconds: `retry-after-ms` (milliseconds, sent by the
 * OpenAI and Anthropic APIs), else `retry-after` in seconds (decimals allowed) or as an HTTP date. Returns
 * `undefined` when neither is present or readable; never throws, never returns a negative number, rounds up.
 *
 * @example
 * parseRetryAfterMs(new Headers({ 'retry-after': '2' })); // 2000
 * parseRetryAfterMs({ 'Retry-After': 'Wed, 21 Oct 2026 07:28:00 GMT' }); // the time until then, or 0
 * parseRetryAfterMs(new Headers({ 'retry-after': 'soon' })); // undefined
 */
export function parseRetryAfterMs(
  headers: HeadersLike | undefined,
  now: () => number = Date.now,
): number | undefined {
  const milliseconds = headerOf(headers, 'retry-after-ms')?.trim();
  if (milliseconds !== undefined && DECIMAL.test(milliseconds))
    return wholeMilliseconds(Number(milliseconds));
  const retryAfter = headerOf(headers, 'retry-after')?.trim();
  if (retryAfter === undefined || retryAfter === '') return undefined;
  if (DECIMAL.test(retryAfter)) return wholeMilliseconds(Number(retryAfter) * 1000);
  const date = httpDateMs(retryAfter);
  if (date === undefined) return undefined;
  return wholeMilliseconds(Math.max(0, date - now()));
}

/**
 * What the server said about retrying, read from response headers: `x-should-retry` (`true` / `false`, the
 * convention of the OpenAI and Anthropic APIs) and the requested wait (`parseRetryAfterMs`).
 *
 * @example
 * retryHintsFromHeaders(new Headers({ 'x-should-retry': 'false', 'retry-after': '1' }));
 * // { shouldRetryHeader: false, retryAfterMs: 1000 }
 */
export function retryHintsFromHeaders(
  headers: HeadersLike | undefined,
  now: () => number = Date.now,
): { shouldRetryHeader: boolean | undefined; retryAfterMs: number | undefined } {
  const shouldRetry = headerOf(headers, 'x-should-retry');
  return {
    shouldRetryHeader: shouldRetry === 'true' ? true : shouldRetry === 'false' ? false : undefined,
    retryAfterMs: parseRetryAfterMs(headers, now),
  };
}

/** A failed attempt as the retry loop sees it: the error to throw, and what the server said about retrying. */
export interface RetryFailure {
  /** The error thrown when no retry follows: usually the SDK's error mapped onto the core family. */
  readonly error: Error;
  /** The server's explicit verdict (`x-should-retry`): `true` retries even a non-retryable error, `false` forbids. */
  readonly shouldRetryHeader?: boolean | undefined;
  /** The wait the server asked for, in milliseconds. Defaults to `RateLimitError.retryAfterMs` of `error`. */
  readonly retryAfterMs?: number | undefined;
}

/** Options of `withRetries`. */
export interface WithRetriesOptions {
  readonly retry: ResolvedRetryOptions;
  /** Aborts the call: no retry follows an abort, and an abort during a wait ends it at once. */
  readonly signal?: AbortSignal | undefined;
  /** Names the call in an `AbortedError`, e.g. `The Anthropic request to 'claude-sonnet-5-5'`. */
  readonly operation: string;
  /** Turns whatever an attempt threw into a `RetryFailure`; the provider-specific part (error mapping, headers). */
  readonly classify: (thrown: unknown) => RetryFailure;
}

/**
 * Runs `attempt` until it succeeds or a failure ends the call; the failure is thrown as `classify` mapped it.
 * A failure ends the call when the signal has aborted or the error is an `AbortedError`; when it is not
 * retryable (`shouldRetryHeader` if the server said, else the error's own `retryable`); when `maxRetries`
 * retries are spent; or when the server asks for a wait longer than `maxRetryAfterMs` (failing fast, so the
 * caller can schedule the wait itself). Otherwise it waits the server's requested time, or `backoffDelay`, and
 * tries again. A wait that rejects (the signal aborted) ends the call with an `AbortedError` whose cause is the
 * rejection, unless the rejection already is an error of the family.
 *
 * @example
 * const retry = resolveRetryOptions({ maxRetries: 3 });
 * const message = await withRetries(() => client.messages.create(body, { maxRetries: 0, signal }), {
 *   retry,
 *   signal,
 *   operation: `The request to '${modelId}'`,
 *   classify: (thrown) => ({ error: mapSdkError(thrown), ...retryHintsFromHeaders(headersOf(thrown)) }),
 * });
 */
export async function withRetries<T>(
  attempt: (attemptIndex: number) => Promise<T>,
  options: WithRetriesOptions,
): Promise<T> {
  const { retry, signal, operation } = options;
  for (let attemptIndex = 0; ; attemptIndex++) {
    try {
      return await attempt(attemptIndex);
    } catch (thrown) {
      const failure = options.classify(thrown);
      const { error } = failure;
      if (signal?.aborted || AbortedError.isInstance(error)) throw error;
      const retryable = failure.shouldRetryHeader ?? (OrgError.isInstance(error) && error.retryable);
      // Written as "not below" so that a NaN budget means no retries rather than endless ones.
      if (!retryable || !(attemptIndex < retry.maxRetries)) throw error;
      const requested =
        failure.retryAfterMs ?? (RateLimitError.isInstance(error) ? error.retryAfterMs : undefined);
      // Written as "not within" so that a NaN bound fails fast, and never above what a timer can wait (such a wait
      // would fire at once).
      if (requested !== undefined && !(requested <= Math.min(retry.maxRetryAfterMs, MAX_TIMER_DELAY_MS)))
        throw error;
      const wait = requested ?? backoffDelay(attemptIndex, retry);
      // Options that reached here unchecked (NaN) give a wait no timer can make: fail with the error, never spin.
      if (timerDelayProblem(wait, { zero: true }) !== undefined) throw error;
      try {
        await retry.sleep(wait, signal);
      } catch (reason) {
        throw OrgError.isInstance(reason) ? reason : new AbortedError({ operation, cause: reason });
      }
      // A custom sleep may ignore the signal; the call still ends with the abort, not with another attempt.
      if (signal?.aborted) throw new AbortedError({ operation, cause: signal.reason });
    }
  }
}
