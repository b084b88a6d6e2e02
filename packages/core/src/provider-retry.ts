import { InvalidProviderOptionsError } from './errors.js';
import { describeOptionValue } from './max-timer-delay.js';
import {
  checkRetryOptions,
  DEFAULT_RETRY_OPTIONS,
  type ResolvedRetryOptions,
  type RetryOptions,
  resolveRetryOptions,
} from './retry.js';

/** The retry options of one model, as the user wrote them at each level, for `resolveProviderRetryOptions`. */
export interface ProviderRetryInput {
  /** The provider name, as in the adapter's errors (`InvalidProviderOptionsError.provider`). */
  readonly provider: string;
  /** The factory's top-level `maxRetries` option, where it has one (`createOpenAI({ maxRetries })`). */
  readonly maxRetries?: unknown;
  /** The factory's `retry` option: every model of the provider. */
  readonly retry?: unknown;
  /** One model's `retry` setting (`provider(modelId, { retry })`), field by field over `retry`. */
  readonly modelRetry?: unknown;
  /**
   * The budget when the user set none, 2 unless given. An adapter given a ready client passes that client's own
   * retry count, or 0 where the client's own retry strategy cannot be turned off per request (the AWS SDK), so
   * that retries do not multiply.
   */
  readonly defaultMaxRetries?: number | undefined;
}

function isRetryCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/**
 * The retry options every adapter resolves the same way, for `withRetries`: the defaults
 * (`DEFAULT_RETRY_OPTIONS`, with `defaultMaxRetries`), then the top-level `maxRetries`, then `retry`, then the
 * model's `retry`, field by field. Every level is checked first (`checkRetryOptions`: unknown keys refused with a
 * did-you-mean, every delay a whole number of ms a timer can wait, `sleep` a function), and the options of a
 * `maxRetries` given twice at the provider level (top-level and in `retry`) are refused rather than one silently
 * winning. Failures throw `InvalidProviderOptionsError` naming the provider and the option (`retry.maxDelayMs`,
 * `settings.retry.sleep`). Call it when the model is created, so a bad option fails before any request. The
 * adapter turns its SDK's own retries off (`maxRetries: 0` on the client or the call) and runs `withRetries`.
 *
 * @example
 * const retry = resolveProviderRetryOptions({
 *   provider: 'anthropic',
 *   maxRetries: options.maxRetries,
 *   retry: options.retry,
 *   modelRetry: settings.retry,
 *   defaultMaxRetries: options.client?.maxRetries,
 * });
 * const message = await withRetries(() => client.messages.create(body, { maxRetries: 0, signal }), {
 *   retry,
 *   signal,
 *   operation: `The Anthropic request to '${modelId}'`,
 *   classify,
 * });
 */
export function resolveProviderRetryOptions(input: ProviderRetryInput): ResolvedRetryOptions {
  const { provider } = input;
  const fail = (option: string, message: string): never => {
    throw new InvalidProviderOptionsError({ provider, option, message });
  };
  const defaultMaxRetries = input.defaultMaxRetries ?? DEFAULT_RETRY_OPTIONS.maxRetries;
  if (!isRetryCount(defaultMaxRetries)) {
    fail(
      'maxRetries',
      `The default retry count (a ready client's maxRetries) must be a non-negative integer, got ${describeOptionValue(defaultMaxRetries)}.`,
    );
  }
  if (input.maxRetries !== undefined && !isRetryCount(input.maxRetries)) {
    fail(
      'maxRetries',
      `maxRetries must be a non-negative integer, got ${describeOptionValue(input.maxRetries)}.`,
    );
  }
  checkRetryOptions(input.retry, { provider, option: 'retry' });
  checkRetryOptions(input.modelRetry, { provider, option: 'settings.retry' });
  // Checked above: an object of known keys with valid values, or undefined.
  const retry = input.retry as RetryOptions | undefined;
  const modelRetry = input.modelRetry as RetryOptions | undefined;
  if (input.maxRetries !== undefined && retry?.maxRetries !== undefined) {
    fail(
      'retry.maxRetries',
      `maxRetries was given twice (maxRetries: ${input.maxRetries}, retry.maxRetries: ${retry.maxRetries}); pass one.`,
    );
  }
  const topLevel = input.maxRetries as number | undefined;
  return resolveRetryOptions({ maxRetries: defaultMaxRetries }, { maxRetries: topLevel }, retry, modelRetry);
}
