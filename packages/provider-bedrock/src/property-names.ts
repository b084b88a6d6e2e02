import {
  mapToolPropertyNames,
  type PropertyNameRules,
  type ToolPropertyNames,
  type ToolSpec,
} from '@org/core';

/**
 * The property names Converse accepts in `toolSpec.inputSchema.json` for Claude models: `^[a-zA-Z0-9_.-]{1,64}$`,
 * the Anthropic rule, passed through (a `ValidationException`: "tools.0.custom.input_schema.properties: Property
 * keys should match pattern ..."). Applied to every Bedrock model: which models share the rule is not guessed from
 * model ids, and the renaming is lossless and reported.
 */
export const BEDROCK_PROPERTY_NAME_RULES: PropertyNameRules = Object.freeze({
  allowedCharacter: /[a-zA-Z0-9_.-]/,
  maxLength: 64,
  description: '^[a-zA-Z0-9_.-]{1,64}$',
});

/** Renames, per tool (by the caller's tool name), the property names Converse refuses. */
export function createPropertyNames(tools: readonly ToolSpec[]): ToolPropertyNames {
  return mapToolPropertyNames(tools, BEDROCK_PROPERTY_NAME_RULES, {
    provider: 'Bedrock Converse (Claude models)',
  });
}
