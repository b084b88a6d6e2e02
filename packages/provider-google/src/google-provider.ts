import { GoogleGenAI, type GoogleGenAIOptions, type HttpOptions } from '@google/genai';
import {
  AuthenticationError,
  type ContentLimits,
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
import {
  DEFAULT_GOOGLE_MODEL_FAMILY,
  GOOGLE_MODEL_FAMILIES,
  type GoogleFamilyTraits,
  type GoogleModelFamily,
} from './capabilities.js';
import { GOOGLE_CONTENT_LIMITS } from './content-limits.js';
import { GoogleLanguageModel } from './google-language-model.js';
import { PROVIDER } from './provider-name.js';

/**
 * Options of `createGoogle`: the Gemini API with a key, or Vertex AI with a project and a location (or an express-mode
 * key). Every field may be left out: the key then comes from `GOOGLE_API_KEY` or `GEMINI_API_KEY` (the SDK's order), the project and
 * location from `GOOGLE_CLOUD_PROJECT` and `GOOGLE_CLOUD_LOCATION`.
 *
 * @example
 * const gemini: GoogleProviderOptions = { apiKey: process.env.MY_GEMINI_KEY };
 * const vertex: GoogleProviderOptions = { vertexai: true, project: 'my-project', location: 'europe-west4' };
 */
export interface GoogleProviderOptions {
  /**
   * A ready `GoogleGenAI` client, used as is (its key or credentials, base URL, headers). Cannot be combined with the
   * options below that configure a client the provider creates.
   */
  readonly client?: GoogleGenAI | undefined;
  /** The Gemini API key (or a Vertex AI express-mode key). Default: `GOOGLE_API_KEY`, else `GEMINI_API_KEY`. */
  readonly apiKey?: string | undefined;
  /** `true` for Vertex AI (`{location}-aiplatform.googleapis.com`), authenticated with Google Cloud credentials. */
  readonly vertexai?: boolean | undefined;
  /** The Google Cloud project, for Vertex AI. Default: `GOOGLE_CLOUD_PROJECT`. */
  readonly project?: string | undefined;
  /** The Google Cloud location, for Vertex AI (`us-central1`, `global`). Default: `GOOGLE_CLOUD_LOCATION`. */
  readonly location?: string | undefined;
  /** google-auth-library options for Vertex AI (credentials, a key file, an auth client). */
  readonly googleAuthOptions?: GoogleGenAIOptions['googleAuthOptions'] | undefined;
  /** Another endpoint (a proxy, a regional endpoint, a local server): the SDK's `httpOptions.baseUrl`. */
  readonly baseURL?: string | undefined;
  /** The API version, e.g. `v1` or `v1beta`. Default: the SDK's. */
  readonly apiVersion?: string | undefined;
  /** Extra headers sent with every request; registered as secrets where they carry credentials. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /**
   * Per-attempt request timeout in milliseconds, a whole number from 1 to `MAX_TIMER_DELAY_MS` of `@org/core`, or
   * `Infinity` for none. Default: the SDK's (none).
   */
  readonly timeout?: number | undefined;
  /** Retries after a failed attempt (429, 5xx, connection errors). Default 2. */
  readonly maxRetries?: number | undefined;
  /** Retry budget and backoff for every model of the provider (`RetryOptions` of `@org/core`). */
  readonly retry?: RetryOptions | undefined;
}

/**
 * Per-model settings, the second argument of the provider function.
 *
 * @example
 * const model = google('gemini-2.0-flash', { family: 'gemini-2.0', capabilities: { toolChoice: { tool: 'emulated' } } });
 */
export interface GoogleModelSettings {
  /**
   * The model's family (`GOOGLE_MODEL_FAMILIES`), declared rather than guessed from the id: it decides the schema
   * dialect and whether tool-result media go inside function responses. Default `'gemini-3'`.
   */
  readonly family?: GoogleModelFamily | undefined;
  /** Overrides of the family's declared capabilities. */
  readonly capabilities?: ModelCapabilitiesOverride | undefined;
  /** Overrides the family's schema dialect: `'openapi'` sends `parameters` / `responseSchema` in the OpenAPI subset. */
  readonly schemaDialect?: GoogleFamilyTraits['schemaDialect'] | undefined;
  /** This model's retry options, field by field over the provider's `retry`. */
  readonly retry?: RetryOptions | undefined;
  /** Size limits of inline images and files, in decoded bytes; fields left out keep `GOOGLE_CONTENT_LIMITS`. */
  readonly contentLimits?: Partial<ContentLimits> | undefined;
}

/**
 * A configured Google provider: call it with a model id to get a `LanguageModel`.
 *
 * @example
 * const provider: GoogleProvider = createGoogle();
 * const model = provider('gemini-3-flash'); // or provider.languageModel('gemini-3-flash')
 */
export interface GoogleProvider {
  (modelId: string, settings?: GoogleModelSettings): GoogleLanguageModel;
  /** The same as calling the provider. */
  languageModel(modelId: string, settings?: GoogleModelSettings): GoogleLanguageModel;
}

const CLIENT_CONFLICTS = [
  'apiKey',
  'vertexai',
  'project',
  'location',
  'googleAuthOptions',
  'baseURL',
  'apiVersion',
  'headers',
  'timeout',
] as const;
const FAMILIES = Object.keys(GOOGLE_MODEL_FAMILIES) as GoogleModelFamily[];

/**
 * Creates a Google provider over `@google/genai`, for the Gemini API (`apiKey`) or Vertex AI (`vertexai: true`,
 * `project`, `location`). The SDK client is created on the first request (so the default instance can be imported
 * before the environment is loaded); the key is registered with `registerSecret`, so no error or event shows it.
 *
 * @example
 * import { createGoogle } from '@org/provider-google';
 *
 * const gemini = createGoogle({ apiKey: process.env.GEMINI_API_KEY });
 * const response = await gemini('gemini-3-flash').generate({ messages: [{ role: 'user', content: 'Hello' }] });
 *
 * @example
 * // Vertex AI, with Application Default Credentials.
 * const vertex = createGoogle({ vertexai: true, project: 'my-project', location: 'us-central1' });
 * const model = vertex('gemini-2.5-pro', { family: 'gemini-2.5' });
 */
export function createGoogle(options: GoogleProviderOptions = {}): GoogleProvider {
  validateOptions(options);
  if (options.apiKey !== undefined) registerSecret(options.apiKey);
  // The SDK keeps a ready client's key in a private field; it is read once, only to keep it out of every error.
  const givenKey: unknown = (options.client as { apiKey?: unknown } | undefined)?.apiKey;
  if (typeof givenKey === 'string') registerSecret(givenKey);
  registerHeaderSecrets(options.headers);

  let client: GoogleGenAI | undefined = options.client;
  const getClient = (): GoogleGenAI => {
    if (client !== undefined) return client;
    const vertexai = options.vertexai === true;
    const project = options.project ?? readEnvironment('GOOGLE_CLOUD_PROJECT');
    const location = options.location ?? readEnvironment('GOOGLE_CLOUD_LOCATION');
    const apiKey =
      options.apiKey ??
      (vertexai && project !== undefined
        ? undefined
        : (readEnvironment('GOOGLE_API_KEY') ?? readEnvironment('GEMINI_API_KEY')));
    if (!vertexai && apiKey === undefined) {
      throw new AuthenticationError({
        provider: PROVIDER,
        message:
          'No API key for the Gemini API: pass createGoogle({ apiKey }), set GOOGLE_API_KEY or GEMINI_API_KEY, ' +
          'or use Vertex AI with createGoogle({ vertexai: true, project, location }).',
      });
    }
    registerSecret(apiKey);
    const httpOptions: HttpOptions = {
      // Retries are the provider's (`withRetries`), never the SDK's on top of them.
      retryOptions: { attempts: 1 },
      ...(options.baseURL === undefined ? {} : { baseUrl: options.baseURL }),
      ...(options.apiVersion === undefined ? {} : { apiVersion: options.apiVersion }),
      ...(options.headers === undefined ? {} : { headers: { ...options.headers } }),
      ...(options.timeout === undefined || options.timeout === Number.POSITIVE_INFINITY
        ? {}
        : { timeout: Math.min(options.timeout, MAX_TIMER_DELAY_MS) }),
    };
    client = new GoogleGenAI({
      // Said explicitly, so GOOGLE_GENAI_USE_VERTEXAI in the environment cannot switch the endpoint behind the options.
      vertexai,
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(vertexai && project !== undefined ? { project } : {}),
      ...(vertexai && location !== undefined ? { location } : {}),
      ...(options.googleAuthOptions === undefined ? {} : { googleAuthOptions: options.googleAuthOptions }),
      httpOptions,
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

  const languageModel = (modelId: string, settings: GoogleModelSettings = {}): GoogleLanguageModel => {
    if (typeof modelId !== 'string' || modelId.trim() === '') {
      throw new InvalidProviderOptionsError({
        provider: PROVIDER,
        option: 'modelId',
        message: `A Gemini model id must be a non-empty string, e.g. 'gemini-3-flash'; got ${JSON.stringify(modelId) ?? String(modelId)}.`,
      });
    }
    const family = settings.family ?? DEFAULT_GOOGLE_MODEL_FAMILY;
    if (!FAMILIES.includes(family)) {
      throw new InvalidProviderOptionsError({
        provider: PROVIDER,
        option: 'settings.family',
        message: `settings.family must be one of ${FAMILIES.map((name) => `'${name}'`).join(', ')}; got ${JSON.stringify(family)}.`,
      });
    }
    const schemaDialect = settings.schemaDialect;
    if (schemaDialect !== undefined && schemaDialect !== 'json-schema' && schemaDialect !== 'openapi') {
      throw new InvalidProviderOptionsError({
        provider: PROVIDER,
        option: 'settings.schemaDialect',
        message: `settings.schemaDialect must be 'json-schema' or 'openapi'; got ${JSON.stringify(schemaDialect)}.`,
      });
    }
    const base = GOOGLE_MODEL_FAMILIES[family];
    const traits: GoogleFamilyTraits = {
      ...base,
      capabilities: mergeCapabilities(base.capabilities, settings.capabilities),
      ...(schemaDialect === undefined ? {} : { schemaDialect }),
    };
    return new GoogleLanguageModel(modelId, {
      getClient,
      capabilities: traits.capabilities,
      family,
      traits,
      contentLimits: resolveContentLimits(settings.contentLimits),
      retry: resolveProviderRetryOptions({ ...retryInput, modelRetry: settings.retry }),
      ...(options.timeout === undefined || options.timeout === Number.POSITIVE_INFINITY
        ? {}
        : { timeoutMs: Math.min(options.timeout, MAX_TIMER_DELAY_MS) }),
    });
  };

  const provider = (modelId: string, settings?: GoogleModelSettings): GoogleLanguageModel =>
    languageModel(modelId, settings);
  provider.languageModel = languageModel;
  return provider;
}

/**
 * The default provider: the Gemini API with the key from `GOOGLE_API_KEY` (or `GEMINI_API_KEY`).
 *
 * @example
 * import { google } from '@org/provider-google';
 *
 * const model = google('gemini-3-flash');
 */
export const google: GoogleProvider = createGoogle();

function fail(option: string, message: string): never {
  throw new InvalidProviderOptionsError({ provider: PROVIDER, option, message });
}

function validateOptions(options: GoogleProviderOptions): void {
  if (options.client !== undefined) {
    const conflicts = CLIENT_CONFLICTS.filter((key) => options[key] !== undefined);
    if (conflicts.length > 0) {
      fail(
        conflicts[0] ?? 'client',
        `createGoogle got a ready client and ${conflicts.map((key) => `'${key}'`).join(', ')}, which would be ` +
          `ignored: configure the client itself, or leave out 'client' and let the provider create one.`,
      );
    }
  }
  for (const key of ['apiKey', 'project', 'location', 'baseURL', 'apiVersion'] as const) {
    const value = options[key];
    if (value !== undefined && (typeof value !== 'string' || value.trim() === '')) {
      fail(key, `${key} must be a non-empty string; leave it out to use the default.`);
    }
  }
  if (options.vertexai !== undefined && typeof options.vertexai !== 'boolean') {
    fail('vertexai', 'vertexai must be a boolean.');
  }
  if (options.vertexai !== true) {
    for (const key of ['project', 'location', 'googleAuthOptions'] as const) {
      if (options[key] !== undefined) {
        fail(
          key,
          `${key} is a Vertex AI option: pass vertexai: true with it, or leave it out for the Gemini API.`,
        );
      }
    }
  }
  if (options.timeout !== undefined) {
    const problem = timerDelayProblem(options.timeout, { integer: true, infinity: true });
    if (problem !== undefined) fail('timeout', `timeout ${problem}.`);
  }
}

const CONTENT_LIMIT_KEYS = ['maxImageBytes', 'maxFileBytes', 'maxTotalBytes'] as const;

function resolveContentLimits(limits: Partial<ContentLimits> | undefined): ContentLimits {
  if (limits === undefined) return GOOGLE_CONTENT_LIMITS;
  for (const key of CONTENT_LIMIT_KEYS) {
    const value = limits[key];
    if (value !== undefined && (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)) {
      fail(
        `settings.contentLimits.${key}`,
        `settings.contentLimits.${key} must be a positive whole number of bytes.`,
      );
    }
  }
  return Object.freeze({ ...GOOGLE_CONTENT_LIMITS, ...limits });
}

function readEnvironment(name: string): string | undefined {
  const value = globalThis.process?.env?.[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}
