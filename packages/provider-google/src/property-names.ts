import {
  mapToolPropertyNames,
  type PropertyNameRules,
  type ToolPropertyNames,
  type ToolSpec,
} from '@org/core';

/**
 * The property names Gemini accepts in a function declaration: letters, digits and underscores, at most 64
 * (`FunctionDeclaration.parameters`: "must only contain chars a-z, A-Z, 0-9, or underscores with a maximum length of
 * 64"). Any other name (`año_vehiculo`, `filter-id`, `user.name`) makes it refuse the request with a 400.
 */
export const GOOGLE_PROPERTY_NAME_RULES: PropertyNameRules = Object.freeze({
  allowedCharacter: /[a-zA-Z0-9_]/,
  maxLength: 64,
  description: '^[a-zA-Z0-9_]{1,64}$',
});

/** The property names renamed for one request (see `mapToolPropertyNames` in `@org/core`). */
export type PropertyNames = ToolPropertyNames;

/** Renames, per tool, the property names Gemini refuses; tools whose names are all accepted are sent untouched. */
export function createPropertyNames(tools: readonly ToolSpec[]): PropertyNames {
  return mapToolPropertyNames(tools, GOOGLE_PROPERTY_NAME_RULES, { provider: 'Gemini' });
}
