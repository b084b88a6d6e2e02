import {
  AuthenticationError,
  type ContentLimits,
  createRedactingLogger,
  InvalidProviderOptionsError,
  type LanguageModel,
  MAX_TIMER_DELAY_MS,
  type ModelCapabilitiesOverride,
  mergeCapabilities,
  type RetryOptions,
  registerHeaderSecrets,
  registerSecret,
  resolveProviderRetryOptions,
  timerDelayProblem,
} from '@org/core';
import OpenAI from 'openai';
import { OPENAI_DEFAULT_CAPABILITIES } from './capabilities.js';
import { resolveContentLimits } from './content-limits.js';
import { type OpenAIApi, OpenAILanguageModel } from './openai-language-model.js';

/** Options of `createOpenAI`. */
export interface OpenAIProviderOptions {
  /**
   * A ready SDK client. Its own retries are turned off per request (the adapter retries); its `maxRetries` is the
   * adapter's retry count unless `maxRetries` is given. Its logger is yours: clients the adapter creates log through
   * `createRedactingLogger` of `@org/core`, which redacts registered secrets.
   */
  readonly client?: OpenAI;
  /** Defaults to the `OPENAI_API_KEY` environment variable. Registered as a secret: it never appears in errors. */
  readonly apiKey?: string;
  /** An OpenAI-compatible server, e.g. `http://localhost:1234/v1` (LM Studio), `http://localhost:11434/v1` (Ollama). */
  readonly baseURL?: string;
  readonly organization?: string;
  readonly project?: string;
  /**
   * Per-attempt timeout in milliseconds (the SDK's `timeout`): a whole number from 1 to `MAX_TIMER_DELAY_MS` of
   * `@org/core` (a longer timer fires after 1 ms), or `Infinity` for none (the SDK always arms a timer, so it gets the
   * longest one, about 24.8 days). Default: the SDK's (10 minutes).
   */
  readonly timeout?: number;
  /** Retries after the first attempt, for 408 / 409 / 429 / 5xx and connection failures. Default 2. */
  readonly maxRetries?: number;
  /**
   * Finer retry control: back-off, the longest `retry-after` worth waiting for, the clock. `retry.maxRetries` is the
   * same as the top-level `maxRetries` (give one of them).
   */
  readonly retry?: RetryOptions;
  /** Extra headers on every request. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The provider name models report (`model.provider`, errors); default `openai`. Use it for compatible servers. */
  readonly name?: string;
}

/** Per-model settings: the second argument of the provider function. */
export interface OpenAIModelSettings {
  /** `responses` (default) or `chat` (Chat Completions; what OpenAI-compatible servers speak). */
  readonly api?: OpenAIApi;
  /**
   * What the model or server can do, over the defaults (everything native). Declare it for compatible servers,
   * e.g. `{ toolChoice: { required: 'emulated' }, strictSchemas: false }`; never guessed from the model id.
   */
  readonly capabilities?: ModelCapabilitiesOverride;
  /** Chat only: the body field of `maxOutputTokens`. Default `max_completion_tokens`; older servers want `max_tokens`. */
  readonly maxTokensParameter?: 'max_completion_tokens' | 'max_tokens';
  /** Chat only: ask for usage in streams (`stream_options.include_usage`). Default true; turn off for servers that reject it. */
  readonly streamUsage?: boolean;
  /** This model's retry options, field by field over the provider's `retry`. */
  readonly retry?: RetryOptions;
  /**
   * The media limits checked before sending, for an OpenAI-compatible server with other limits than OpenAI's.
   * Default `OPENAI_CONTENT_LIMITS`; fields left out keep their default.
   */
  readonly contentLimits?: Partial<ContentLimits>;
}

/** The provider function: `(modelId, settings?) => LanguageModel`, with shortcuts for each API. */
export interface OpenAIProvider {
  (modelId: string, settings?: OpenAIModelSettings): LanguageModel;
  /** A Responses API model. */
  responses(modelId: string, settings?: Omit<OpenAIModelSettings, 'api'>): LanguageModel;
  /** A Chat Completions model. */
  chat(modelId: string, settings?: Omit<OpenAIModelSettings, 'api'>): LanguageModel;
}

/**
 * Creates an OpenAI provider. The SDK client is created on the first call (so importing never fails for want of
 * a key, and `OPENAI_API_KEY` is read then); the API key is registered as a secret.
 *
 * @example
 * import { createOpenAI } from '@org/provider-openai';
 *
 * const openai = createOpenAI({ apiKey: process.env.OPENAI_API_KEY });
 * const model = openai('gpt-4.1-mini'); // Responses API
 * const response = await model.generate({ messages: [{ role: 'user', content: 'Hi' }] });
 *
 * // An OpenAI-compatible server (LM Studio) over Chat Completions, without tool_choice "required":
 * const local = createOpenAI({ baseURL: 'http://localhost:1234/v1', apiKey: 'lm-studio', name: 'lmstudio' });
 * const qwen = local('qwen2.5-7b-instruct', { api: 'chat', capabilities: { toolChoice: { required: 'emulated' }, strictSchemas: false } });
 */
export function createOpenAI(options: OpenAIProviderOptions = {}): OpenAIProvider {
  validateOptions(options);
  const provider = options.name ?? 'openai';
  registerSecret(options.apiKey ?? process.env.OPENAI_API_KEY);
  if (options.client) registerSecret(options.client.apiKey);
  // A proxy key or a Basic credential in a custom header is a secret too (`x-proxy-token`, `authorization`).
  registerHeaderSecrets(options.headers);
  // With a ready client, its own maxRetries is the default budget (its retries are turned off per request).
  const retryInput = {
    provider,
    maxRetries: options.maxRetries,
    retry: options.retry,
    defaultMaxRetries: options.client?.maxRetries,
  };
  // Checked now, so that a bad option fails here rather than at the first request.
  resolveProviderRetryOptions(retryInput);

  let client: OpenAI | undefined = options.client;
  const getClient = (): OpenAI => {
    if (client !== undefined) return client;
    // Read at first use, not at import: the default instance is created before an app loads its environment.
    const apiKey = options.apiKey ?? process.env.OPENAI_API_KEY;
    registerSecret(apiKey);
    if (apiKey === undefined || apiKey === '') {
      throw new AuthenticationError({
        provider,
        message: `No API key for ${provider}: pass createOpenAI({ apiKey }) or set OPENAI_API_KEY.`,
      });
    }
    client = new OpenAI({
      apiKey,
      maxRetries: 0,
      logger: createRedactingLogger(console),
      ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
      ...(options.organization === undefined ? {} : { organization: options.organization }),
      ...(options.project === undefined ? {} : { project: options.project }),
      ...(options.timeout === undefined ? {} : { timeout: sdkTimeout(options.timeout) }),
      ...(options.headers === undefined ? {} : { defaultHeaders: { ...options.headers } }),
    });
    return client;
  };

  const create = (modelId: string, settings: OpenAIModelSettings = {}): LanguageModel => {
    validateModel(provider, modelId, settings);
    return new OpenAILanguageModel({
      provider,
      modelId,
      api: settings.api ?? 'responses',
      capabilities: mergeCapabilities(OPENAI_DEFAULT_CAPABILITIES, settings.capabilities),
      client: getClient,
      retry: resolveProviderRetryOptions({ ...retryInput, modelRetry: settings.retry }),
      timeoutMs: options.timeout === undefined ? undefined : sdkTimeout(options.timeout),
      maxTokensParameter: settings.maxTokensParameter ?? 'max_completion_tokens',
      streamUsage: settings.streamUsage ?? true,
      contentLimits: resolveContentLimits(settings.contentLimits, provider),
    });
  };

  const providerFunction = (modelId: string, settings?: OpenAIModelSettings): LanguageModel =>
    create(modelId, settings);
  providerFunction.responses = (
    modelId: string,
    settings: Omit<OpenAIModelSettings, 'api'> = {},
  ): LanguageModel => create(modelId, { ...settings, api: 'responses' });
  providerFunction.chat = (modelId: string, settings: Omit<OpenAIModelSettings, 'api'> = {}): LanguageModel =>
    create(modelId, { ...settings, api: 'chat' });
  return providerFunction;
}

/**
 * The default provider: key from `OPENAI_API_KEY`, Responses API unless `api: 'chat'`.
 *
 * @example
 * import { openai } from '@org/provider-openai';
 * const model = openai('gpt-4.1-mini', { api: 'chat' });
 */
export const openai: OpenAIProvider = createOpenAI();

/**
 * Options a ready client already carries: given beside it, they would be silently ignored. (`timeout` is not one:
 * the adapter sends it with every request.)
 */
const CLIENT_CONFLICTS = ['apiKey', 'baseURL', 'organization', 'project', 'headers'] as const;

/** Checks `createOpenAI`'s options at once: a bad value fails here, with the option named, never at request time. */
function validateOptions(options: OpenAIProviderOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidProviderOptionsError({
      provider: 'openai',
      option: 'options',
      message: 'createOpenAI takes an options object.',
    });
  }
  const provider = typeof options.name === 'string' && options.name !== '' ? options.name : 'openai';
  const fail = (option: string, message: string): never => {
    throw new InvalidProviderOptionsError({ provider, option, message });
  };
  if (options.name !== undefined && (typeof options.name !== 'string' || options.name.trim() === '')) {
    fail('name', 'name must be a non-empty string (the provider name models and errors report).');
  }
  if (options.client !== undefined) {
    const conflicts = CLIENT_CONFLICTS.filter((key) => options[key] !== undefined);
    if (conflicts.length > 0) {
      fail(
        conflicts[0] ?? 'client',
        `createOpenAI got a ready client and ${conflicts.map((key) => `'${key}'`).join(', ')}, which would be ` +
          `ignored: configure the client itself, or leave out 'client' and let the provider create one.`,
      );
    }
  }
  if (options.apiKey !== undefined && (typeof options.apiKey !== 'string' || options.apiKey.trim() === '')) {
    fail('apiKey', 'apiKey must be a non-empty string; leave it out to use OPENAI_API_KEY.');
  }
  if (options.baseURL !== undefined && !isHttpUrl(options.baseURL)) {
    fail(
      'baseURL',
      `baseURL must be an absolute http(s) URL, e.g. http://localhost:1234/v1; got ${describe(options.baseURL)}.`,
    );
  }
  if (options.timeout !== undefined) {
    const problem = timerDelayProblem(options.timeout, { integer: true, infinity: true });
    if (problem !== undefined) fail('timeout', `timeout ${problem}.`);
  }
}

const APIS: readonly string[] = ['responses', 'chat'];
const MAX_TOKENS_PARAMETERS: readonly string[] = ['max_completion_tokens', 'max_tokens'];

/** Checks a model id and its settings when the model is created. */
function validateModel(provider: string, modelId: unknown, settings: OpenAIModelSettings): void {
  const fail = (option: string, message: string): never => {
    throw new InvalidProviderOptionsError({ provider, option, message });
  };
  if (typeof modelId !== 'string' || modelId.trim() === '')
    fail('modelId', 'The model id must be a non-empty string.');
  if (settings.api !== undefined && !APIS.includes(settings.api)) {
    fail('settings.api', `settings.api must be 'responses' or 'chat', got ${JSON.stringify(settings.api)}.`);
  }
  if (
    settings.maxTokensParameter !== undefined &&
    !MAX_TOKENS_PARAMETERS.includes(settings.maxTokensParameter)
  ) {
    fail(
      'settings.maxTokensParameter',
      `settings.maxTokensParameter must be 'max_completion_tokens' or 'max_tokens', got ${JSON.stringify(settings.maxTokensParameter)}.`,
    );
  }
  if (settings.streamUsage !== undefined && typeof settings.streamUsage !== 'boolean') {
    fail('settings.streamUsage', 'settings.streamUsage must be a boolean.');
  }
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

function describe(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

/** The SDK's `timeout` for the option: `Infinity` (none) is the longest delay a timer can wait. */
function sdkTimeout(timeout: number): number {
  return Math.min(timeout, MAX_TIMER_DELAY_MS);
}
