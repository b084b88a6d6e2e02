export { type BedrockClientSource, BedrockLanguageModel } from './bedrock-language-model.js';
export {
  type BedrockModelSettings,
  DEFAULT_BEDROCK_CAPABILITIES,
  NONE_TOOL_CHOICE_POLICIES,
  type NoneToolChoicePolicy,
} from './bedrock-model-settings.js';
export {
  type BedrockProvider,
  type BedrockProviderOptions,
  bedrock,
  createBedrock,
} from './bedrock-provider.js';
export { InvalidBedrockOptionsError } from './invalid-bedrock-options-error.js';
export { BEDROCK_PROVIDER } from './map-bedrock-error.js';
export { NONE_INSTRUCTION, REQUIRED_INSTRUCTION } from './prepare-tool-config.js';
export { BEDROCK_PROVIDER_OPTION_KEYS } from './read-provider-options.js';
export type { RetryOptions } from './retry-options.js';
