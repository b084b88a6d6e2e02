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
export { parseRetryAfterMs } from './retry-after.js';
export type { RetryOptions } from './retry-policy.js';
