import { transformJSONSchema } from '@anthropic-ai/sdk/lib/transform-json-schema';
import type { OutputConfig } from '@anthropic-ai/sdk/resources/messages';
import {
  type Adjustment,
  errorMessageOf,
  InvalidRequestError,
  type ModelCapabilities,
  type ResponseFormat,
} from '@org/core';

/** The `output_config.format` of a request, and what was changed to produce it. */
export interface PreparedResponseFormat {
  readonly format: NonNullable<OutputConfig['format']> | undefined;
  readonly adjustments: Adjustment[];
}

/**
 * Maps `responseFormat` onto Anthropic's native structured output, `output_config.format: {type: 'json_schema',
 * schema}`: the answer's text is then JSON matching the schema.
 *
 * - The schema is put in Anthropic's dialect by `@anthropic-ai/sdk`'s own `transformJSONSchema` (the one its
 *   `messages.parse()` helpers use): every object gets `additionalProperties: false`, and keywords the API does not
 *   enforce (`minimum`, `maxLength`, `pattern`, ...) move into the descriptions. When that changes the schema, a
 *   `schema-adapted` adjustment says so; validate the answer against your own schema.
 * - The API takes no name: `name` identifies the format only. `description` becomes the schema's top-level
 *   `description` when it has none; beside one it has, it is reported `setting-ignored`.
 * - A model declared without native structured output (`capabilities.structuredOutput: false`) fails with
 *   `InvalidRequestError` (`providerCode: 'structured_output_unsupported'`) naming the fix: a final tool call, which
 *   `runAgent`'s `output` option uses for such models.
 */
export function prepareResponseFormat(options: {
  responseFormat: ResponseFormat | undefined;
  capabilities: ModelCapabilities;
  modelId: string;
}): PreparedResponseFormat {
  const { responseFormat, modelId } = options;
  if (responseFormat === undefined) return { format: undefined, adjustments: [] };
  if (options.capabilities.structuredOutput !== true) {
    throw new InvalidRequestError({
      provider: 'anthropic',
      providerCode: 'structured_output_unsupported',
      message:
        `Model '${modelId}' is declared without native structured output (capabilities.structuredOutput: false), ` +
        `so responseFormat cannot be sent. Ask for the answer as a final tool call instead (runAgent's output ` +
        `option does this), or declare the capability if the model has it.`,
    });
  }
  const schema: unknown = responseFormat.schema;
  if (
    responseFormat.type !== 'json' ||
    typeof schema !== 'object' ||
    schema === null ||
    Array.isArray(schema)
  ) {
    throw invalidFormat(`responseFormat must be { type: 'json', name, schema } with a JSON Schema object.`);
  }

  const adjustments: Adjustment[] = [];
  let source = schema as Record<string, unknown>;
  const description = responseFormat.description;
  if (description !== undefined && description !== '') {
    if (Object.hasOwn(source, 'description')) {
      adjustments.push({
        kind: 'setting-ignored',
        message:
          `responseFormat.description was not sent: the Anthropic API takes the format's description only from ` +
          `the schema, which has its own top-level description.`,
        details: { setting: 'responseFormat.description' },
      });
    } else {
      source = { ...source, description };
    }
  }

  let sent: Record<string, unknown>;
  try {
    sent = transformJSONSchema(source);
  } catch (error) {
    throw invalidFormat(
      `The schema of responseFormat '${responseFormat.name}' cannot be put in Anthropic's structured-output ` +
        `dialect: ${errorMessageOf(error)}.`,
    );
  }
  if (!sameJson(sent, source)) {
    adjustments.push({
      kind: 'schema-adapted',
      message:
        `The schema of responseFormat '${responseFormat.name}' was put in Anthropic's structured-output dialect ` +
        `(by @anthropic-ai/sdk's transformJSONSchema): objects closed with additionalProperties: false, and ` +
        `keywords the API does not enforce moved into descriptions. Validate the answer against your schema.`,
      details: { responseFormat: responseFormat.name },
    });
  }
  return { format: { type: 'json_schema', schema: sent }, adjustments };
}

function invalidFormat(message: string): InvalidRequestError {
  return new InvalidRequestError({ provider: 'anthropic', providerCode: 'invalid_response_format', message });
}

/** Structural equality of two JSON values, key order aside (the transform rebuilds every object). */
function sameJson(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  if (Array.isArray(left) && Array.isArray(right)) {
    return left.length === right.length && left.every((item, index) => sameJson(item, right[index]));
  }
  const leftRecord = left as Record<string, unknown>;
  const rightRecord = right as Record<string, unknown>;
  const keys = Object.keys(leftRecord);
  return (
    keys.length === Object.keys(rightRecord).length &&
    keys.every((key) => Object.hasOwn(rightRecord, key) && sameJson(leftRecord[key], rightRecord[key]))
  );
}
