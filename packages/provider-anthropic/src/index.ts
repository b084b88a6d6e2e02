/** Re-exported from `@org/core`, where every provider's option errors come from. */
export { InvalidProviderOptionsError } from '@org/core';
export { ANTHROPIC_CAPABILITIES } from './anthropic-capabilities.js';
export { AnthropicLanguageModel, type AnthropicModelConfig } from './anthropic-language-model.js';
export {
  type AnthropicModelSettings,
  type AnthropicProvider,
  type AnthropicProviderOptions,
  anthropic,
  createAnthropic,
} from './anthropic-provider.js';
export { DEFAULT_MAX_OUTPUT_TOKENS } from './build-request.js';
export { MalformedStreamError, type MalformedStreamReason } from './malformed-stream-error.js';
export type { RetryOptions } from './retry-options.js';
export { StreamingRequiredError } from './streaming-required-error.js';
