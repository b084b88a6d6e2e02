// The retry policy is @org/core's, shared with the other providers; re-exported so this package's API is unchanged.
export { parseRetryAfterMs, type RetryOptions } from '@org/core';
export { OPENAI_DEFAULT_CAPABILITIES } from './capabilities.js';
export { OPENAI_CONTENT_LIMITS, OPENAI_IMAGE_MEDIA_TYPES } from './content-limits.js';
export {
  type OpenAIApi,
  OpenAILanguageModel,
  type OpenAILanguageModelConfig,
} from './openai-language-model.js';
export {
  createOpenAI,
  type OpenAIModelSettings,
  type OpenAIProvider,
  type OpenAIProviderOptions,
  openai,
} from './openai-provider.js';
