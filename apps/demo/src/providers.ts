import type { LanguageModel } from '@org/core';
import { createAnthropic } from '@org/provider-anthropic';
import { createBedrock } from '@org/provider-bedrock';
import { createOpenAI } from '@org/provider-openai';
import { MissingCredentialsError } from './errors.js';

/** The real providers the demo can run on. */
export type RealProvider = 'openai' | 'anthropic' | 'bedrock';

/**
 * The providers `--provider` accepts.
 *
 * @example
 * REAL_PROVIDERS.includes(name as RealProvider);
 */
export const REAL_PROVIDERS: readonly RealProvider[] = ['openai', 'anthropic', 'bedrock'];

type Environment = Readonly<Record<string, string | undefined>>;

function isSet(environment: Environment, name: string): boolean {
  return (environment[name] ?? '').trim() !== '';
}

/**
 * The environment variables a provider needs that are not set, each written as the user should set it
 * (`AWS_REGION or AWS_DEFAULT_REGION` for alternatives). Empty when the provider can run.
 *
 * @example
 * missingCredentials('openai', {}); // ['OPENAI_API_KEY']
 */
export function missingCredentials(provider: RealProvider, environment: Environment): string[] {
  switch (provider) {
    case 'openai':
      return isSet(environment, 'OPENAI_API_KEY') ? [] : ['OPENAI_API_KEY'];
    case 'anthropic':
      return isSet(environment, 'ANTHROPIC_API_KEY') ? [] : ['ANTHROPIC_API_KEY'];
    case 'bedrock': {
      const missing: string[] = [];
      const keyId = isSet(environment, 'AWS_ACCESS_KEY_ID');
      const secret = isSet(environment, 'AWS_SECRET_ACCESS_KEY');
      if (!isSet(environment, 'AWS_PROFILE')) {
        if (keyId && !secret) missing.push('AWS_SECRET_ACCESS_KEY');
        else if (!keyId && secret) missing.push('AWS_ACCESS_KEY_ID');
        else if (!keyId && !secret)
          missing.push('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE');
      }
      if (!isSet(environment, 'AWS_REGION') && !isSet(environment, 'AWS_DEFAULT_REGION')) {
        missing.push('AWS_REGION or AWS_DEFAULT_REGION');
      }
      return missing;
    }
  }
}

/**
 * The model to run the demo's tasks on, after checking the environment holds the provider's credentials; a
 * missing variable is a `MissingCredentialsError` naming it (never its value).
 *
 * @example
 * const model = createProviderModel('anthropic', 'claude-sonnet-4-5', process.env);
 */
export function createProviderModel(
  provider: RealProvider,
  modelId: string,
  environment: Environment,
): LanguageModel {
  const missing = missingCredentials(provider, environment);
  if (missing.length > 0) {
    throw new MissingCredentialsError({
      provider,
      missing,
      message: `--provider ${provider} needs credentials from the environment; missing: ${missing.join('; ')}.`,
    });
  }
  switch (provider) {
    case 'openai': {
      // OPENAI_BASE_URL points the demo at an OpenAI-compatible server or a proxy, as the SDK's own variable does.
      const baseURL = environment.OPENAI_BASE_URL?.trim();
      return createOpenAI({
        apiKey: environment.OPENAI_API_KEY?.trim() ?? '',
        ...(baseURL === undefined || baseURL === '' ? {} : { baseURL }),
      })(modelId);
    }
    case 'anthropic':
      return createAnthropic({ apiKey: environment.ANTHROPIC_API_KEY?.trim() ?? '' })(modelId);
    case 'bedrock': {
      const region = (environment.AWS_REGION ?? environment.AWS_DEFAULT_REGION ?? '').trim();
      return createBedrock({ region })(modelId);
    }
  }
}
