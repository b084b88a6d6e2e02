/**
 * The JSON Schema subset OpenAI structured outputs accept in strict mode
 * (https://platform.openai.com/docs/guides/structured-outputs#supported-schemas), in one place: the `openai-strict`
 * target of `@org/tools` converts to it, and adapters check a schema against it before sending it strict.
 */
export const OPENAI_STRICT_SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  '$ref',
  '$defs',
  'description',
  'title',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);

/** The string formats strict mode accepts. */
export const OPENAI_STRICT_SCHEMA_FORMATS: ReadonlySet<string> = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
]);

/** Object properties a strict schema may have in all. */
export const OPENAI_STRICT_SCHEMA_MAX_PROPERTIES = 5000;
