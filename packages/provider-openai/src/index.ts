// The retry policy is @org/core's, shared with the other providers; re-exported so this package's API is unchanged.
export { parseRetryAfterMs, type RetryOptions } from '@org/core';
export {
  type OpenAIApi,
  OpenAILanguageModel,
  type OpenAILanguageModelConfig,
} from './openai-language-model.js';
export {
  createOpenAI,
  OPENAI_DEFAULT_CAPABILITIES,
  type OpenAIModelSettings,
  type OpenAIProvider,
  type OpenAIProviderOptions,
  openai,
} from './openai-provider.js';
