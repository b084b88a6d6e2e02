/** Re-exported from `@org/core`, where every provider's option errors and retry options come from. */
export { InvalidProviderOptionsError, type RetryOptions } from '@org/core';
export {
  DEFAULT_GOOGLE_MODEL_FAMILY,
  GOOGLE_DEFAULT_CAPABILITIES,
  GOOGLE_MODEL_FAMILIES,
  type GoogleFamilyTraits,
  type GoogleModelFamily,
} from './capabilities.js';
export {
  GOOGLE_CONTENT_LIMITS,
  GOOGLE_FILE_MEDIA_TYPES,
  GOOGLE_IMAGE_MEDIA_TYPES,
} from './content-limits.js';
export { FunctionCallFailedError } from './function-call-failed-error.js';
export { GoogleLanguageModel, type GoogleLanguageModelConfig } from './google-language-model.js';
export {
  createGoogle,
  type GoogleModelSettings,
  type GoogleProvider,
  type GoogleProviderOptions,
  google,
} from './google-provider.js';
export { GOOGLE_FUNCTION_NAME_PATTERN } from './prepare-tools.js';
export { GOOGLE_PROPERTY_NAME_RULES } from './property-names.js';
export type { GoogleRequestOptions } from './provider-options.js';
