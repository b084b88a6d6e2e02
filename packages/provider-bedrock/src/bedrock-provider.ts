import { BedrockRuntimeClient, type BedrockRuntimeClientConfig } from '@aws-sdk/client-bedrock-runtime';
import { createRedactingLogger, registerSecret } from '@org/core';
import { type BedrockClientSource, BedrockLanguageModel } from './bedrock-language-model.js';
import type { BedrockModelSettings } from './bedrock-model-settings.js';
import { InvalidBedrockOptionsError } from './invalid-bedrock-options-error.js';
import type { RetryOptions } from './retry-options.js';

/**
 * Options of `createBedrock`. Everything is optional: the AWS SDK's usual chain fills in region and credentials.
 *
 * @example
 * createBedrock({ region: 'us-west-2', credentials: fromIni({ profile: 'ml' }) });
 */
export interface BedrockProviderOptions {
  /** AWS region, e.g. `us-east-1`. Default: the SDK's chain (`AWS_REGION`, the shared config file, ...). */
  readonly region?: string;
  /**
   * Static credentials or a credential provider (`fromIni()`, `fromNodeProviderChain()`, ...). Default: the SDK's
   * standard chain (environment, shared files, SSO, web identity, container and instance metadata).
   */
  readonly credentials?: BedrockRuntimeClientConfig['credentials'];
  /** A named profile of the shared config files. */
  readonly profile?: string;
  /** Another endpoint, e.g. a VPC endpoint or a local test server. */
  readonly endpoint?: string;
  /**
   * Any other `BedrockRuntimeClient` setting (`requestHandler`, `logger`, ...), applied last. A `logger` is wrapped
   * in `@org/core`'s redacting logger: the SDK logs each command's input and output, which may carry a secret.
   */
  readonly clientConfig?: BedrockRuntimeClientConfig;
  /**
   * A ready client, used as is (region, credentials, retries and handler are its own; the options above must
   * not be given with it). The adapter then retries nothing by default, so retries do not multiply.
   */
  readonly client?: BedrockRuntimeClient;
  /** Retries of throttling, 5xx and connection failures, for every model of this provider. */
  readonly retry?: RetryOptions;
}

/**
 * A provider: call it with a model id (or inference profile id, or ARN) to get a `LanguageModel`.
 *
 * @example
 * const model = provider('arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3');
 */
export interface BedrockProvider {
  (modelId: string, settings?: BedrockModelSettings): BedrockLanguageModel;
  /** Same as calling the provider. */
  languageModel(modelId: string, settings?: BedrockModelSettings): BedrockLanguageModel;
}

const CLIENT_OPTION_KEYS = ['region', 'credentials', 'profile', 'endpoint', 'clientConfig'] as const;

/**
 * Creates a Bedrock provider over `@aws-sdk/client-bedrock-runtime`. The client is created on first use, with the
 * SDK's own retries off (the adapter retries, see `retry`). Secrets given or found in the environment
 * (`AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_BEARER_TOKEN_BEDROCK`) and those resolved by the credential
 * chain are registered so that they never appear in an error.
 *
 * @example
 * import { createBedrock } from '@org/provider-bedrock';
 *
 * const bedrock = createBedrock({ region: 'eu-west-1' });
 * const model = bedrock('eu.anthropic.claude-3-7-sonnet-20250219-v1:0', {
 *   capabilities: { toolChoice: { required: 'native', tool: 'native' } },
 * });
 * const response = await model.generate({ messages: [{ role: 'user', content: 'Weather in Paris?' }], tools });
 */
export function createBedrock(options: BedrockProviderOptions = {}): BedrockProvider {
  if (options.client !== undefined) {
    const conflicting = CLIENT_OPTION_KEYS.filter((key) => options[key] !== undefined);
    if (conflicting.length > 0) {
      throw new InvalidBedrockOptionsError({
        option: conflicting.join(', '),
        value: conflicting,
        expected: 'no client settings next to a ready client (configure the client itself)',
      });
    }
  }
  for (const name of ['AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_BEARER_TOKEN_BEDROCK']) {
    registerSecret(process.env[name]);
  }
  registerCredentialSecrets(options.credentials);

  let client: BedrockRuntimeClient | undefined = options.client;
  const resolved = new WeakSet<object>();
  const source: BedrockClientSource = {
    clientSupplied: options.client !== undefined,
    retry: options.retry,
    getClient: () => {
      client ??= new BedrockRuntimeClient({
        maxAttempts: 1,
        ...(options.region === undefined ? {} : { region: options.region }),
        ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
        ...(options.profile === undefined ? {} : { profile: options.profile }),
        ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
        ...options.clientConfig,
        ...(options.clientConfig?.logger === undefined
          ? {}
          : { logger: createRedactingLogger(options.clientConfig.logger) }),
      });
      return client;
    },
    beforeRequest: async (current) => {
      // The chain resolves credentials inside the SDK; ask the client for them (memoised by the SDK) so a secret
      // from a file or a metadata service is registered before any error could carry it.
      const provider = (current.config as { credentials?: unknown }).credentials;
      if (typeof provider !== 'function') return;
      try {
        const identity: unknown = await provider();
        if (typeof identity === 'object' && identity !== null && !resolved.has(identity)) {
          resolved.add(identity);
          registerCredentialSecrets(identity as BedrockProviderOptions['credentials']);
        }
      } catch {
        // The same failure comes back from the request itself and is mapped there (AuthenticationError).
      }
    },
  };
  const provider = (modelId: string, settings: BedrockModelSettings = {}): BedrockLanguageModel =>
    new BedrockLanguageModel(modelId, settings, source);
  return Object.assign(provider, { languageModel: provider });
}

function registerCredentialSecrets(credentials: BedrockProviderOptions['credentials']): void {
  if (typeof credentials !== 'object' || credentials === null) return;
  const { secretAccessKey, sessionToken } = credentials as {
    secretAccessKey?: unknown;
    sessionToken?: unknown;
  };
  if (typeof secretAccessKey === 'string') registerSecret(secretAccessKey);
  if (typeof sessionToken === 'string') registerSecret(sessionToken);
}

/**
 * The default provider: region and credentials from the AWS SDK's standard chain.
 *
 * @example
 * import { bedrock } from '@org/provider-bedrock';
 * const model = bedrock('us.amazon.nova-pro-v1:0');
 */
export const bedrock: BedrockProvider = createBedrock();
