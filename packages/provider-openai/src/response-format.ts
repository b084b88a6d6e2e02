import { InvalidRequestError, type JsonSchema, type ModelCapabilities, type ModelRequest } from '@org/core';
import { strictSchemaProblem } from './strict-json-schema.js';

/** `ModelRequest.responseFormat`, checked and ready for either API's wire shape. */
export interface WireResponseFormat {
  readonly name: string;
  readonly description: string | undefined;
  readonly schema: JsonSchema;
  /** Send `strict: true`: the model declares strict schemas and the schema is strict-expressible as it is. */
  readonly strict: boolean;
  /** Whether the model is declared with strict schemas (a non-strict format is then sent `strict: false`). */
  readonly strictSchemas: boolean;
}

// OpenAI: "Must be a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length of 64."
const NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Checks the request's `responseFormat` before anything is sent: refused with `InvalidRequestError` on a model
 * declared without `structuredOutput` (the agent loop then uses a final tool call), or when its name or schema is
 * not one OpenAI takes. The schema is sent as given, with `strict: true` when strict mode can express it as it is
 * (`strictSchemaProblem`); otherwise it is sent non-strict, still guiding the model but not enforced exactly.
 */
export function prepareResponseFormat(
  request: ModelRequest,
  capabilities: ModelCapabilities,
  identity: { readonly provider: string; readonly modelId: string },
): WireResponseFormat | undefined {
  const format = request.responseFormat;
  if (format === undefined) return undefined;
  const fail = (message: string): never => {
    throw new InvalidRequestError({
      provider: identity.provider,
      providerCode: 'invalid_response_format',
      message,
    });
  };
  if (capabilities.structuredOutput !== true) {
    throw new InvalidRequestError({
      provider: identity.provider,
      providerCode: 'structured_output_unsupported',
      message: `Model '${identity.modelId}' on ${identity.provider} is declared without native structured output, but the request has a responseFormat. Declare capabilities { structuredOutput: true } if the server supports json_schema response formats, or let the agent loop ask for a final tool call.`,
    });
  }
  if (format.type !== 'json') fail(`responseFormat.type must be 'json', got ${JSON.stringify(format.type)}.`);
  if (typeof format.name !== 'string' || !NAME_PATTERN.test(format.name)) {
    fail(
      `responseFormat.name must match [A-Za-z0-9_-]{1,64} (OpenAI's rule for schema names), got ${JSON.stringify(format.name)}.`,
    );
  }
  if (format.description !== undefined && typeof format.description !== 'string') {
    fail('responseFormat.description must be a string.');
  }
  if (typeof format.schema !== 'object' || format.schema === null || Array.isArray(format.schema)) {
    fail('responseFormat.schema must be a JSON Schema object.');
  }
  return {
    name: format.name,
    description: format.description,
    schema: format.schema,
    strict: capabilities.strictSchemas && strictSchemaProblem(format.schema) === undefined,
    strictSchemas: capabilities.strictSchemas,
  };
}
