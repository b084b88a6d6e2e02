import { HTTPClient, Mistral } from '@mistralai/mistralai';
import {
  createRedactingLogger,
  InvalidProviderOptionsError,
  MAX_TIMER_DELAY_MS,
  type ModelCapabilitiesOverride,
  mergeCapabilities,
  type ProviderLogger,
  type ProviderRetryInput,
  type RetryOptions,
  registerSecret,
  resolveProviderRetryOptions,
  timerDelayProblem,
} from '@org/core';
import { boundedFetch, DEFAULT_MAX_RESPONSE_BYTES } from './bounded-fetch.js';
import { MISTRAL_FAMILY_CAPABILITIES, type MistralModelFamily } from './capabilities.js';
import { MISTRAL_CONTENT_LIMITS } from './content-limits.js';
import { MistralLanguageModel } from './mistral-language-model.js';
import { PROVIDER } from './provider-name.js';

/**
 * Options of `createMistral`. Every field may be left out: the key then comes from `MISTRAL_API_KEY`, the server from
 * the SDK's default (`https://api.mistral.ai`).
 *
 * @example
 * const options: MistralProviderOptions = { apiKey: process.env.MY_KEY, serverURL: 'https://mistral.internal' };
 */
export interface MistralProviderOptions {
  /**
   * A ready `Mistral` client, used as is (its key, server, timeout, HTTP client and hooks; bound its answers with its
   * own HTTP client). Cannot be combined with `apiKey`, `serverURL`, `timeoutMs`, `logger` or `maxResponseBytes`,
   * which configure a client the provider creates.
   */
  readonly client?: Mistral | undefined;
  /** Default: `process.env.MISTRAL_API_KEY`, read when the first request is made. Never appears in errors or logs. */
  readonly apiKey?: string | undefined;
  /** The server, e.g. a proxy or a self-hosted deployment. Default: the SDK's, `https://api.mistral.ai`. */
  readonly serverURL?: string | undefined;
  /** Per-attempt timeout in milliseconds, a whole number from 1 to `MAX_TIMER_DELAY_MS`. Default: the SDK's. */
  readonly timeoutMs?: number | undefined;
  /** Retries after a failed attempt (429, 5xx, connection errors). Default 2. */
  readonly maxRetries?: number | undefined;
  /** Retry budget and backoff for every model of the provider (`RetryOptions` of `@org/core`). */
  readonly retry?: RetryOptions | undefined;
  /** Receives the SDK's debug lines (requests and responses), redacted of every registered secret. Default: none. */
  readonly logger?: ProviderLogger | undefined;
  /**
   * The most of one answer read, in bytes (a JSON body or a whole stream); past it the answer is cut off with a
   * `ProviderError` `response_too_large`. Default 64 MiB.
   */
  readonly maxResponseBytes?: number | undefined;
}

/**
 * Per-model settings, the second argument of the provider function.
 *
 * @example
 * const model = mistral('magistral-medium-latest', { family: 'magistral', capabilities: { parallelToolCalls: false } });
 */
export interface MistralModelSettings {
  /** The model's family (`MISTRAL_FAMILY_CAPABILITIES`); declared, never guessed from the model id. Default `chat`. */
  readonly family?: MistralModelFamily | undefined;
  /** Overrides of the family's capabilities, field by field. */
  readonly capabilities?: ModelCapabilitiesOverride | undefined;
  /** This model's retry options, field by field over the provider's `retry`. */
  readonly retry?: RetryOptions | undefined;
}

/**
 * A configured Mistral provider: call it with a model id to get a `LanguageModel`.
 *
 * @example
 * const provider: MistralProvider = createMistral();
 * const model = provider('mistral-large-latest'); // or provider.languageModel('mistral-large-latest')
 */
export interface MistralProvider {
  (modelId: string, settings?: MistralModelSettings): MistralLanguageModel;
  /** The same as calling the provider. */
  languageModel(modelId: string, settings?: MistralModelSettings): MistralLanguageModel;
}

const CLIENT_CONFLICTS = ['apiKey', 'serverURL', 'timeoutMs', 'logger', 'maxResponseBytes'] as const;

/**
 * Creates a Mistral provider over `@mistralai/mistralai`. The SDK client is created on the first request (so the
 * default instance can be imported before `MISTRAL_API_KEY` is set), and its key is registered with
 * `registerSecret`, so no error, event or log line of this library ever shows it.
 *
 * @example
 * import { createMistral } from '@org/provider-mistral';
 *
 * const provider = createMistral({ apiKey: process.env.MY_KEY, maxRetries: 3 });
 * const model = provider('mistral-large-latest');
 * const response = await model.generate({ messages: [{ role: 'user', content: 'Hello' }] });
 *
 * @example
 * // A ready client (a custom HTTPClient, hooks) is used as is.
 * const provider = createMistral({ client: new Mistral({ apiKey, serverURL }) });
 */
export function createMistral(options: MistralProviderOptions = {}): MistralProvider {
  validateOptions(options);
  registerSecret(options.apiKey);
  const given = options.client;
  if (given !== undefined) {
    // A key given to the client as a string is a secret too (a function is called by the SDK per request).
    const key: unknown = given._options.apiKey;
    if (typeof key === 'string') registerSecret(key);
  }
  let client: Mistral | undefined = given;
  const getClient = (): Mistral => {
    if (client !== undefined) return client;
    const apiKey = options.apiKey ?? readEnvironment('MISTRAL_API_KEY');
    registerSecret(apiKey);
    const logger = options.logger === undefined ? undefined : createRedactingLogger(options.logger);
    client = new Mistral({
      httpClient: new HTTPClient({
        fetcher: boundedFetch(options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES),
      }),
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(options.serverURL === undefined ? {} : { serverURL: options.serverURL }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(logger === undefined
        ? {}
        : {
            debugLogger: {
              group: () => {},
              groupEnd: () => {},
              log: (message: unknown, ...rest: unknown[]) => logger.debug(String(message), ...rest),
            },
          }),
    });
    return client;
  };
  const retryInput: ProviderRetryInput = {
    provider: PROVIDER,
    maxRetries: options.maxRetries,
    retry: options.retry,
  };
  // Checked now, so that a bad option fails here rather than at the first request.
  resolveProviderRetryOptions(retryInput);

  const languageModel = (modelId: string, settings: MistralModelSettings = {}): MistralLanguageModel => {
    if (typeof modelId !== 'string' || modelId.trim() === '') {
      throw new InvalidProviderOptionsError({
        provider: PROVIDER,
        option: 'modelId',
        message: `A Mistral model id must be a non-empty string, e.g. 'mistral-large-latest'; got ${JSON.stringify(modelId) ?? String(modelId)}.`,
      });
    }
    const family = settings.family ?? 'chat';
    const declared = MISTRAL_FAMILY_CAPABILITIES.get(family);
    if (declared === undefined) {
      throw new InvalidProviderOptionsError({
        provider: PROVIDER,
        option: 'settings.family',
        message: `settings.family must be one of ${[...MISTRAL_FAMILY_CAPABILITIES.keys()].map((name) => `'${name}'`).join(', ')}; got ${JSON.stringify(family) ?? String(family)}.`,
      });
    }
    return new MistralLanguageModel(modelId, {
      getClient,
      capabilities: mergeCapabilities(declared, settings.capabilities),
      retry: resolveProviderRetryOptions({ ...retryInput, modelRetry: settings.retry }),
      contentLimits: MISTRAL_CONTENT_LIMITS,
    });
  };
  const provider = (modelId: string, settings?: MistralModelSettings): MistralLanguageModel =>
    languageModel(modelId, settings);
  provider.languageModel = languageModel;
  return provider;
}

/**
 * The default provider: the key from `MISTRAL_API_KEY`, the SDK's defaults otherwise.
 *
 * @example
 * import { mistral } from '@org/provider-mistral';
 *
 * const model = mistral('mistral-large-latest');
 */
export const mistral: MistralProvider = createMistral();

function validateOptions(options: MistralProviderOptions): void {
  if (options.client !== undefined) {
    const conflicts = CLIENT_CONFLICTS.filter((key) => options[key] !== undefined);
    if (conflicts.length > 0) {
      throw new InvalidProviderOptionsError({
        provider: PROVIDER,
        option: conflicts[0] ?? 'client',
        message:
          `createMistral got a ready client and ${conflicts.map((key) => `'${key}'`).join(', ')}, which would be ` +
          `ignored: configure the client itself, or leave out 'client' and let the provider create one.`,
      });
    }
  }
  if (options.apiKey !== undefined && (typeof options.apiKey !== 'string' || options.apiKey.trim() === '')) {
    throw new InvalidProviderOptionsError({
      provider: PROVIDER,
      option: 'apiKey',
      message: 'apiKey must be a non-empty string; leave it out to use MISTRAL_API_KEY.',
    });
  }
  if (options.serverURL !== undefined && !URL.canParse(options.serverURL)) {
    throw new InvalidProviderOptionsError({
      provider: PROVIDER,
      option: 'serverURL',
      message: `serverURL must be an absolute URL such as 'https://api.mistral.ai'; got ${JSON.stringify(options.serverURL)}.`,
    });
  }
  const maxBytes = options.maxResponseBytes;
  if (maxBytes !== undefined && (!Number.isSafeInteger(maxBytes) || maxBytes < 1)) {
    throw new InvalidProviderOptionsError({
      provider: PROVIDER,
      option: 'maxResponseBytes',
      message: `maxResponseBytes must be a positive whole number of bytes; got ${JSON.stringify(maxBytes) ?? String(maxBytes)}.`,
    });
  }
  if (options.timeoutMs !== undefined) {
    const problem = timerDelayProblem(options.timeoutMs, { integer: true });
    if (problem !== undefined) {
      throw new InvalidProviderOptionsError({
        provider: PROVIDER,
        option: 'timeoutMs',
        message: `timeoutMs ${problem}.`,
      });
    }
    if (options.timeoutMs > MAX_TIMER_DELAY_MS) {
      throw new InvalidProviderOptionsError({
        provider: PROVIDER,
        option: 'timeoutMs',
        message: `timeoutMs must be at most ${MAX_TIMER_DELAY_MS}.`,
      });
    }
  }
}

function readEnvironment(name: string): string | undefined {
  const value = globalThis.process?.env?.[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}
