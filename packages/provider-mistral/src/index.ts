export {
  MISTRAL_DEFAULT_CAPABILITIES,
  MISTRAL_FAMILY_CAPABILITIES,
  type MistralModelFamily,
} from './capabilities.js';
export {
  MISTRAL_CONTENT_LIMITS,
  MISTRAL_FILE_MEDIA_TYPES,
  MISTRAL_IMAGE_MEDIA_TYPES,
} from './content-limits.js';
export { MistralLanguageModel, type MistralLanguageModelConfig } from './mistral-language-model.js';
export {
  createMistral,
  type MistralModelSettings,
  type MistralProvider,
  type MistralProviderOptions,
  mistral,
} from './mistral-provider.js';
export { MISTRAL_FUNCTION_NAME_PATTERN } from './prepare-tools.js';
export type { MistralRequestOptions } from './provider-options.js';
export { MISTRAL_TOOL_CALL_ID_PATTERN } from './tool-call-ids.js';
