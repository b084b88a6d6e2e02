/** A JSON primitive. */
export type JsonPrimitive = string | number | boolean | null;

/** Any value JSON can represent. */
export type JsonValue = JsonPrimitive | JsonObject | JsonArray;

/** A JSON object. */
export interface JsonObject {
  [key: string]: JsonValue;
}

/** A JSON array. */
export type JsonArray = JsonValue[];

/** JSON Schema type names, including the `integer` extension every provider accepts. */
export type JsonSchemaTypeName = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

/**
 * A JSON Schema (draft 2020-12 subset) as providers consume it for tool parameters. Known keywords are typed;
 * any other keyword is allowed and kept as `unknown`.
 */
export interface JsonSchema {
  type?: JsonSchemaTypeName | JsonSchemaTypeName[];
  description?: string;
  title?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema | JsonSchema[];
  prefixItems?: JsonSchema[];
  enum?: JsonValue[];
  const?: JsonValue;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  not?: JsonSchema;
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  definitions?: Record<string, JsonSchema>;
  default?: JsonValue;
  examples?: JsonValue[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  nullable?: boolean;
  [keyword: string]: unknown;
}
