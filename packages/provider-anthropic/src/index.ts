/** Re-exported from `@org/core`, where every provider's option errors and retry options come from. */
export { InvalidProviderOptionsError, type RetryOptions } from '@org/core';
export { AnthropicLanguageModel, type AnthropicModelConfig } from './anthropic-language-model.js';
export {
  type AnthropicModelSettings,
  type AnthropicProvider,
  type AnthropicProviderOptions,
  anthropic,
  createAnthropic,
} from './anthropic-provider.js';
export { DEFAULT_MAX_OUTPUT_TOKENS } from './build-request.js';
export { ANTHROPIC_CAPABILITIES } from './capabilities.js';
export {
  ANTHROPIC_CONTENT_LIMITS,
  ANTHROPIC_DOCUMENT_MEDIA_TYPES,
  ANTHROPIC_IMAGE_MEDIA_TYPES,
} from './content-limits.js';
export { MalformedStreamError, type MalformedStreamReason } from './malformed-stream-error.js';
export { StreamingRequiredError } from './streaming-required-error.js';
