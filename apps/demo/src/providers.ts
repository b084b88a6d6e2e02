import { AuthenticationError, type LanguageModel, type StreamPart } from '@org/core';
import { createAnthropic } from '@org/provider-anthropic';
import { createBedrock } from '@org/provider-bedrock';
import { createGoogle } from '@org/provider-google';
import { createMistral } from '@org/provider-mistral';
import { createOpenAI } from '@org/provider-openai';
import { MissingCredentialsError } from './errors.js';

/** The real providers the demo can run on. */
export type RealProvider = 'openai' | 'anthropic' | 'bedrock' | 'google' | 'mistral';

/**
 * The providers `--provider` accepts.
 *
 * @example
 * REAL_PROVIDERS.includes(name as RealProvider);
 */
export const REAL_PROVIDERS: readonly RealProvider[] = [
  'openai',
  'anthropic',
  'bedrock',
  'google',
  'mistral',
];

/** The OpenAI APIs the demo can speak: Responses (the default) or Chat Completions (local compatible servers). */
export type OpenAIApi = 'responses' | 'chat';

/**
 * The values `--api` accepts.
 *
 * @example
 * OPENAI_APIS.includes(value as OpenAIApi);
 */
export const OPENAI_APIS: readonly OpenAIApi[] = ['responses', 'chat'];

/** How to reach an OpenAI-compatible server: `--api` and `--base-url`. */
export interface OpenAIConnection {
  /** Default `responses`. */
  readonly api?: OpenAIApi;
  /** Default `OPENAI_BASE_URL`, else the SDK's (api.openai.com). When set, `OPENAI_API_KEY` is optional. */
  readonly baseURL?: string;
}

/** How a model is asked for a typed answer (`--structured-output`): natively, or through a `final_answer` tool call. */
export type StructuredOutputRoute = 'native' | 'tool';

/**
 * The values `--structured-output` accepts.
 *
 * @example
 * STRUCTURED_OUTPUT_ROUTES.includes(value as StructuredOutputRoute);
 */
export const STRUCTURED_OUTPUT_ROUTES: readonly StructuredOutputRoute[] = ['native', 'tool'];

/** Options of {@link createProviderModel} beyond the provider and model. */
export interface ProviderModelOptions extends OpenAIConnection {
  /**
   * Override the adapter's declared native structured output: `tool` for a server that has none (the run then asks
   * for a typed answer through a `final_answer` tool call), `native` to declare it. Default: the adapter's declaration.
   */
  readonly structuredOutput?: StructuredOutputRoute;
}

/** Sent as the key to a server given with `--base-url` when `OPENAI_API_KEY` is unset: local servers ignore it. */
const LOCAL_SERVER_API_KEY = 'not-needed';

type Environment = Readonly<Record<string, string | undefined>>;

function isSet(environment: Environment, name: string): boolean {
  return (environment[name] ?? '').trim() !== '';
}

/** The value of a variable, or `undefined` when it is unset or blank (`AWS_REGION=''` counts as unset). */
function variable(environment: Environment, name: string): string | undefined {
  const value = environment[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The environment variables a provider needs that are not set, each written as the user should set it
 * (`AWS_REGION or AWS_DEFAULT_REGION` for alternatives). Empty when the provider can run.
 *
 * Bedrock needs only a region here: its credentials come from the AWS SDK's own chain (access keys, `AWS_PROFILE`
 * including SSO profiles, `AWS_BEARER_TOKEN_BEDROCK`, web identity, container and instance roles), which only the
 * SDK can judge; a chain that finds nothing is reported at the first model call (see `createProviderModel`).
 *
 * @example
 * missingCredentials('openai', {}); // ['OPENAI_API_KEY']
 * missingCredentials('bedrock', { AWS_REGION: '' }); // ['AWS_REGION or AWS_DEFAULT_REGION']
 */
export function missingCredentials(provider: RealProvider, environment: Environment): string[] {
  switch (provider) {
    case 'openai':
      return isSet(environment, 'OPENAI_API_KEY') ? [] : ['OPENAI_API_KEY'];
    case 'anthropic':
      return isSet(environment, 'ANTHROPIC_API_KEY') ? [] : ['ANTHROPIC_API_KEY'];
    case 'bedrock':
      return bedrockRegion(environment) === undefined ? ['AWS_REGION or AWS_DEFAULT_REGION'] : [];
    case 'google':
      return googleApiKey(environment) === undefined ? ['GOOGLE_API_KEY or GEMINI_API_KEY'] : [];
    case 'mistral':
      return isSet(environment, 'MISTRAL_API_KEY') ? [] : ['MISTRAL_API_KEY'];
  }
}

/** The Gemini API key, in the SDK's order of precedence. */
function googleApiKey(environment: Environment): string | undefined {
  return variable(environment, 'GOOGLE_API_KEY') ?? variable(environment, 'GEMINI_API_KEY');
}

function bedrockRegion(environment: Environment): string | undefined {
  return variable(environment, 'AWS_REGION') ?? variable(environment, 'AWS_DEFAULT_REGION');
}

/** What a user can set when the AWS SDK's credential chain finds nothing. */
const BEDROCK_CREDENTIAL_VARIABLES =
  'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), AWS_PROFILE, or AWS_BEARER_TOKEN_BEDROCK';

// The names under which @org/provider-bedrock reports a credential chain (or token chain) that found nothing.
const CREDENTIAL_CHAIN_FAILURES = new Set(['CredentialsProviderError', 'TokenProviderError']);

/** The demo's missing-credentials error for a failure of the AWS SDK's credential chain; the error itself otherwise. */
function explainBedrockCredentials(error: Error): Error {
  if (!AuthenticationError.isInstance(error)) return error;
  if (!CREDENTIAL_CHAIN_FAILURES.has(error.providerCode ?? '')) return error;
  return new MissingCredentialsError({
    provider: 'bedrock',
    missing: [BEDROCK_CREDENTIAL_VARIABLES],
    message:
      `--provider bedrock found no AWS credentials (${error.message}); set ${BEDROCK_CREDENTIAL_VARIABLES}, ` +
      `or run where an SSO session, a container or an instance role provides them.`,
  });
}

/** The model, with a credential-chain failure at its first use turned into the demo's missing-credentials error. */
function withBedrockCredentialsHint(model: LanguageModel): LanguageModel {
  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    capabilities: model.capabilities,
    generate: async (request) => {
      try {
        return await model.generate(request);
      } catch (error) {
        throw error instanceof Error ? explainBedrockCredentials(error) : error;
      }
    },
    stream: (request) => ({
      async *[Symbol.asyncIterator](): AsyncIterator<StreamPart> {
        for await (const part of model.stream(request)) {
          yield part.type === 'error'
            ? { type: 'error', error: explainBedrockCredentials(part.error) }
            : part;
        }
      },
    }),
  };
}

/**
 * The model to run the demo's tasks on, after checking the environment holds the provider's credentials; a
 * missing variable is a `MissingCredentialsError` naming it (never its value). Bedrock is checked for a region
 * only; when the AWS SDK's credential chain finds nothing, the first model call fails with a
 * `MissingCredentialsError` naming the variables a user can set and quoting the SDK's (redacted) reason.
 *
 * For `openai`, `connection` chooses the API (`--api`) and the server (`--base-url`, else `OPENAI_BASE_URL`); with an
 * explicit server, `OPENAI_API_KEY` is optional (local servers such as LM Studio, Ollama, vLLM and llama.cpp take
 * any key).
 *
 * @example
 * const model = createProviderModel('anthropic', 'claude-sonnet-4-5', process.env);
 * const local = createProviderModel('openai', 'qwen2.5-7b-instruct', process.env, {
 *   api: 'chat',
 *   baseURL: 'http://localhost:1234/v1',
 * });
 */
export function createProviderModel(
  provider: RealProvider,
  modelId: string,
  environment: Environment,
  connection: ProviderModelOptions = {},
): LanguageModel {
  const explicitServer = provider === 'openai' && connection.baseURL !== undefined;
  const missing = explicitServer ? [] : missingCredentials(provider, environment);
  if (missing.length > 0) {
    throw new MissingCredentialsError({
      provider,
      missing,
      message: `--provider ${provider} needs credentials from the environment; missing: ${missing.join('; ')}.`,
    });
  }
  const settings =
    connection.structuredOutput === undefined
      ? {}
      : { capabilities: { structuredOutput: connection.structuredOutput === 'native' } };
  switch (provider) {
    case 'openai': {
      // --base-url, else OPENAI_BASE_URL (the SDK's own variable), points the demo at an OpenAI-compatible server.
      const baseURL = connection.baseURL ?? variable(environment, 'OPENAI_BASE_URL');
      return createOpenAI({
        apiKey: variable(environment, 'OPENAI_API_KEY') ?? (explicitServer ? LOCAL_SERVER_API_KEY : ''),
        ...(baseURL === undefined ? {} : { baseURL }),
      })(modelId, { api: connection.api ?? 'responses', ...settings });
    }
    case 'anthropic':
      return createAnthropic({ apiKey: environment.ANTHROPIC_API_KEY?.trim() ?? '' })(modelId, settings);
    case 'bedrock': {
      // missingCredentials made sure there is a region; credentials are left to the SDK's chain.
      const region = bedrockRegion(environment) ?? '';
      const profile = variable(environment, 'AWS_PROFILE');
      return withBedrockCredentialsHint(
        createBedrock({ region, ...(profile === undefined ? {} : { profile }) })(modelId, settings),
      );
    }
    case 'google': {
      // GOOGLE_GEMINI_BASE_URL (the SDK's own variable) points the demo at another Gemini API endpoint.
      const baseURL = variable(environment, 'GOOGLE_GEMINI_BASE_URL');
      return createGoogle({
        apiKey: googleApiKey(environment) ?? '',
        ...(baseURL === undefined ? {} : { baseURL }),
      })(modelId, settings);
    }
    case 'mistral': {
      // MISTRAL_SERVER_URL points the demo at another server (a proxy, a self-hosted deployment, a test's fake).
      const serverURL = variable(environment, 'MISTRAL_SERVER_URL');
      return createMistral({
        apiKey: environment.MISTRAL_API_KEY?.trim() ?? '',
        ...(serverURL === undefined ? {} : { serverURL }),
      })(modelId, settings);
    }
  }
}
