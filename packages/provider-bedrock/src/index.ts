export { type BedrockClientSource, BedrockLanguageModel } from './bedrock-language-model.js';
export {
  type BedrockModelSettings,
  NONE_TOOL_CHOICE_POLICIES,
  type NoneToolChoicePolicy,
} from './bedrock-model-settings.js';
export {
  type BedrockProvider,
  type BedrockProviderOptions,
  bedrock,
  createBedrock,
} from './bedrock-provider.js';
export { DEFAULT_BEDROCK_CAPABILITIES } from './capabilities.js';
export { BEDROCK_CONTENT_LIMITS, BEDROCK_DOCUMENT_FORMATS, BEDROCK_IMAGE_FORMATS } from './content-limits.js';
export { InvalidBedrockOptionsError } from './invalid-bedrock-options-error.js';
export { BEDROCK_PROVIDER } from './map-error.js';
export { NONE_INSTRUCTION, REQUIRED_INSTRUCTION } from './prepare-tools.js';
export { BEDROCK_PROVIDER_OPTION_KEYS } from './provider-options.js';
export type { RetryOptions } from './retry-options.js';
