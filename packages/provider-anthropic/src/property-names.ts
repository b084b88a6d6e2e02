import {
  mapToolPropertyNames,
  type PropertyNameRules,
  type ToolPropertyNames,
  type ToolSpec,
} from '@org/core';

/**
 * The property names the Messages API accepts in a tool's `input_schema`: `^[a-zA-Z0-9_.-]{1,64}$`. Any other name
 * (`año_vehiculo`, `filter[id]`, `$top`) makes it refuse the whole request with a 400 `invalid_request_error`
 * ("tools.0.custom.input_schema.properties: Property keys should match pattern ...").
 */
export const ANTHROPIC_PROPERTY_NAME_RULES: PropertyNameRules = Object.freeze({
  allowedCharacter: /[a-zA-Z0-9_.-]/,
  maxLength: 64,
  description: '^[a-zA-Z0-9_.-]{1,64}$',
});

/** The property names renamed for one request (see `mapToolPropertyNames` in `@org/core`). */
export type PropertyNames = ToolPropertyNames;

/**
 * Renames, per tool, the property names the Messages API refuses; tools whose names are all accepted are sent
 * untouched.
 */
export function createPropertyNames(tools: readonly ToolSpec[]): PropertyNames {
  return mapToolPropertyNames(tools, ANTHROPIC_PROPERTY_NAME_RULES, {
    provider: 'The Anthropic Messages API',
  });
}
