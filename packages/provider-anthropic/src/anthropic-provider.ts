import Anthropic, { type ClientOptions } from '@anthropic-ai/sdk';
import {
  type ContentLimits,
  createRedactingLogger,
  InvalidProviderOptionsError,
  MAX_TIMER_DELAY_MS,
  type ModelCapabilitiesOverride,
  mergeCapabilities,
  type ProviderRetryInput,
  type RetryOptions,
  registerHeaderSecrets,
  registerSecret,
  resolveProviderRetryOptions,
  timerDelayProblem,
} from '@org/core';
import { AnthropicLanguageModel } from './anthropic-language-model.js';
import { ANTHROPIC_CAPABILITIES } from './capabilities.js';
import { ANTHROPIC_CONTENT_LIMITS } from './content-limits.js';

/**
 * Options of `createAnthropic`. Every field may be left out (or `undefined`): the key then comes from
 * `ANTHROPIC_API_KEY`, the rest from the SDK's defaults.
 *
 * @example
 * const options: AnthropicProviderOptions = { apiKey: process.env.MY_KEY, maxRetries: 3, retry: { maxRetryAfterMs: 30_000 } };
 * const provider = createAnthropic(options);
 */
export interface AnthropicProviderOptions {
  /**
   * A ready `Anthropic` client, used as is (its key, base URL, timeout, logger, middleware); its logger stays yours,
   * so redact it yourself if it logs at `debug`, where the SDK writes response bodies. Cannot be combined with
   * `apiKey`, `baseURL`, `timeout`, `headers` or `clientOptions`, which configure a client the provider creates.
   */
  readonly client?: Anthropic | undefined;
  /** Default: `process.env.ANTHROPIC_API_KEY`, read when the first request is made. */
  readonly apiKey?: string | undefined;
  /** Default: `process.env.ANTHROPIC_BASE_URL`, else `https://api.anthropic.com`. */
  readonly baseURL?: string | undefined;
  /**
   * Per-attempt request timeout in milliseconds: a whole number from 1 to `MAX_TIMER_DELAY_MS` of `@org/core` (a
   * longer timer fires after 1 ms), or `Infinity` for none (the SDK always arms a timer, so it gets the longest one,
   * about 24.8 days). Default: the SDK's (10 minutes).
   */
  readonly timeout?: number | undefined;
  /** Retries after a failed attempt (429, 5xx, 529, connection errors). Default: the client's, else 2. */
  readonly maxRetries?: number | undefined;
  /**
   * Retry budget and backoff for every model of the provider (`RetryOptions` of `@org/core`, shared by every
   * adapter); `retry.maxRetries` is the same as the top-level `maxRetries` (give one of them).
   */
  readonly retry?: RetryOptions | undefined;
  /** Extra headers sent with every request. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /**
   * Any other option of the SDK client this provider creates (`logger`, `logLevel`, `fetch`, ...). The logger is
   * wrapped by `createRedactingLogger` of `@org/core`, so that no line it receives contains a registered secret (the
   * SDK logs response bodies at `debug`).
   */
  readonly clientOptions?: Omit<ClientOptions, 'apiKey' | 'baseURL' | 'timeout' | 'maxRetries'> | undefined;
}

/**
 * Per-model settings, the second argument of the provider function.
 *
 * @example
 * const model = anthropic('claude-haiku-5-5', { maxOutputTokens: 1024, capabilities: { parallelToolCalls: false } });
 */
export interface AnthropicModelSettings {
  /** Overrides of the declared capabilities, e.g. for an Anthropic-compatible server with fewer features. */
  readonly capabilities?: ModelCapabilitiesOverride | undefined;
  /** `max_tokens` for requests that do not set `maxOutputTokens`. Default 4096 (`DEFAULT_MAX_OUTPUT_TOKENS`). */
  readonly maxOutputTokens?: number | undefined;
  /** This model's retry options, field by field over the provider's `retry`. */
  readonly retry?: RetryOptions | undefined;
  /**
   * Size limits of inline images and files, in decoded bytes, checked before sending (`ContentTooLargeError`).
   * Default `ANTHROPIC_CONTENT_LIMITS`, the API's documented limits; fields left out keep their default.
   */
  readonly contentLimits?: Partial<ContentLimits> | undefined;
}

/**
 * A configured Anthropic provider: call it with a model id to get a `LanguageModel`.
 *
 * @example
 * const provider: AnthropicProvider = createAnthropic();
 * const model = provider('claude-sonnet-5-5'); // or provider.languageModel('claude-sonnet-5-5')
 */
export interface AnthropicProvider {
  (modelId: string, settings?: AnthropicModelSettings): AnthropicLanguageModel;
  /** The same as calling the provider. */
  languageModel(modelId: string, settings?: AnthropicModelSettings): AnthropicLanguageModel;
}

const CLIENT_CONFLICTS = ['apiKey', 'baseURL', 'timeout', 'headers', 'clientOptions'] as const;

/**
 * Creates an Anthropic provider. The SDK client is created on the first request (so the default instance can be
 * imported before `ANTHROPIC_API_KEY` is set), and its key is registered with `registerSecret`, so no error, event
 * or log line of this library ever shows it.
 *
 * @example
 * import { createAnthropic } from '@org/provider-anthropic';
 *
 * const provider = createAnthropic({ apiKey: process.env.MY_KEY, maxRetries: 3 });
 * const model = provider('claude-sonnet-5-5');
 * const response = await model.generate({ messages: [{ role: 'user', content: 'Hello' }] });
 *
 * @example
 * // A ready client (custom fetch, middleware, logger...) is used as is.
 * const provider = createAnthropic({ client: new Anthropic({ apiKey, logLevel: 'debug' }) });
 */
export function createAnthropic(options: AnthropicProviderOptions = {}): AnthropicProvider {
  validateOptions(options);
  const given = options.client;
  if (given !== undefined) registerSecret(given.apiKey);
  if (options.apiKey !== undefined) registerSecret(options.apiKey);
  // A proxy key or a Basic credential in a custom header is a secret too (`x-proxy-token`, `authorization`).
  registerHeaderSecrets(options.headers);
  registerHeaderSecrets(options.clientOptions?.defaultHeaders);

  let client: Anthropic | undefined = given;
  const getClient = (): Anthropic => {
    if (client !== undefined) return client;
    // Another credential in clientOptions (authToken, credentials, config, profile) replaces the environment key.
    const apiKey =
      options.apiKey ?? (hasOtherCredential(options) ? undefined : readEnvironment('ANTHROPIC_API_KEY'));
    registerSecret(apiKey);
    const authToken = options.clientOptions?.authToken;
    if (typeof authToken === 'string') registerSecret(authToken);
    client = new Anthropic({
      ...options.clientOptions,
      logger: createRedactingLogger(options.clientOptions?.logger ?? console),
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
      ...(options.timeout === undefined ? {} : { timeout: Math.min(options.timeout, MAX_TIMER_DELAY_MS) }),
      ...(options.headers === undefined ? {} : { defaultHeaders: { ...options.headers } }),
    });
    return client;
  };

  // With a ready client, its own maxRetries is the default budget (its retries are turned off per request).
  const retryInput: ProviderRetryInput = {
    provider: 'anthropic',
    maxRetries: options.maxRetries,
    retry: options.retry,
    defaultMaxRetries: given?.maxRetries,
  };
  // Checked now, so that a bad option fails here rather than at the first request.
  resolveProviderRetryOptions(retryInput);

  const languageModel = (modelId: string, settings: AnthropicModelSettings = {}): AnthropicLanguageModel => {
    if (typeof modelId !== 'string' || modelId.trim() === '') {
      throw new InvalidProviderOptionsError({
        provider: 'anthropic',
        option: 'modelId',
        message: `An Anthropic model id must be a non-empty string, e.g. 'claude-sonnet-5-5'; got ${JSON.stringify(modelId) ?? String(modelId)}.`,
      });
    }
    if (settings.maxOutputTokens !== undefined) {
      assertPositiveInteger('settings.maxOutputTokens', settings.maxOutputTokens);
    }
    return new AnthropicLanguageModel(modelId, {
      getClient,
      retry: resolveProviderRetryOptions({ ...retryInput, modelRetry: settings.retry }),
      capabilities: mergeCapabilities(ANTHROPIC_CAPABILITIES, settings.capabilities),
      defaultMaxOutputTokens: settings.maxOutputTokens,
      contentLimits: resolveContentLimits(settings.contentLimits),
    });
  };

  const provider = (modelId: string, settings?: AnthropicModelSettings): AnthropicLanguageModel =>
    languageModel(modelId, settings);
  provider.languageModel = languageModel;
  return provider;
}

/**
 * The default provider: the key from `ANTHROPIC_API_KEY`, the SDK's defaults otherwise.
 *
 * @example
 * import { anthropic } from '@org/provider-anthropic';
 *
 * const model = anthropic('claude-sonnet-5-5');
 */
export const anthropic: AnthropicProvider = createAnthropic();

const OTHER_CREDENTIALS = ['authToken', 'credentials', 'config', 'profile'] as const;

function hasOtherCredential(options: AnthropicProviderOptions): boolean {
  return OTHER_CREDENTIALS.some((key) => options.clientOptions?.[key] != null);
}

function validateOptions(options: AnthropicProviderOptions): void {
  if (options.apiKey !== undefined && hasOtherCredential(options)) {
    throw new InvalidProviderOptionsError({
      provider: 'anthropic',
      option: 'apiKey',
      message:
        `createAnthropic got an apiKey and another credential in clientOptions ` +
        `(${OTHER_CREDENTIALS.filter((key) => options.clientOptions?.[key] != null).join(', ')}); pass only one.`,
    });
  }
  if (options.client !== undefined) {
    const conflicts = CLIENT_CONFLICTS.filter((key) => options[key] !== undefined);
    if (conflicts.length > 0) {
      throw new InvalidProviderOptionsError({
        provider: 'anthropic',
        option: conflicts[0] ?? 'client',
        message:
          `createAnthropic got a ready client and ${conflicts.map((key) => `'${key}'`).join(', ')}, which would be ` +
          `ignored: configure the client itself, or leave out 'client' and let the provider create one.`,
      });
    }
  }
  if (options.apiKey !== undefined && (typeof options.apiKey !== 'string' || options.apiKey.trim() === '')) {
    throw new InvalidProviderOptionsError({
      provider: 'anthropic',
      option: 'apiKey',
      message: `apiKey must be a non-empty string; leave it out to use ANTHROPIC_API_KEY.`,
    });
  }
  if (options.timeout !== undefined) {
    const problem = timerDelayProblem(options.timeout, { integer: true, infinity: true });
    if (problem !== undefined) {
      throw new InvalidProviderOptionsError({
        provider: 'anthropic',
        option: 'timeout',
        message: `timeout ${problem}.`,
      });
    }
  }
}

function assertPositiveInteger(option: string, value: unknown, maximum = Number.MAX_SAFE_INTEGER): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > maximum) {
    throw new InvalidProviderOptionsError({
      provider: 'anthropic',
      option,
      message: `${option} must be a positive integer${maximum === Number.MAX_SAFE_INTEGER ? '' : ` of at most ${maximum}`}, got ${JSON.stringify(value) ?? String(value)}.`,
    });
  }
}

const CONTENT_LIMIT_KEYS = ['maxImageBytes', 'maxFileBytes', 'maxTotalBytes'] as const;

function resolveContentLimits(limits: Partial<ContentLimits> | undefined): ContentLimits {
  if (limits === undefined) return ANTHROPIC_CONTENT_LIMITS;
  for (const key of CONTENT_LIMIT_KEYS) {
    if (limits[key] !== undefined) assertPositiveInteger(`settings.contentLimits.${key}`, limits[key]);
  }
  return Object.freeze({
    maxImageBytes: limits.maxImageBytes ?? ANTHROPIC_CONTENT_LIMITS.maxImageBytes,
    maxFileBytes: limits.maxFileBytes ?? ANTHROPIC_CONTENT_LIMITS.maxFileBytes,
    ...((limits.maxTotalBytes ?? ANTHROPIC_CONTENT_LIMITS.maxTotalBytes) === undefined
      ? {}
      : { maxTotalBytes: limits.maxTotalBytes ?? ANTHROPIC_CONTENT_LIMITS.maxTotalBytes }),
  });
}

function readEnvironment(name: string): string | undefined {
  const value = globalThis.process?.env?.[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}
