import { InvalidRequestError, type ModelCapabilities, type ResponseFormat } from '@org/core';

// The schema name rule OpenAI, Anthropic and Bedrock share (`ResponseFormat.name`).
const FORMAT_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** What is wrong with a response format's shape, or `undefined`. */
function responseFormatProblem(format: ResponseFormat): string | undefined {
  const fields: Record<string, unknown> = typeof format === 'object' && format !== null ? { ...format } : {};
  if (fields.type !== 'json')
    return `has type ${JSON.stringify(String(fields.type))}; the only type is 'json'.`;
  if (typeof fields.name !== 'string' || !FORMAT_NAME.test(fields.name)) {
    return `needs a \`name\` of 1 to 64 letters, digits, '_' or '-', got ${JSON.stringify(fields.name)}.`;
  }
  if (fields.description !== undefined && typeof fields.description !== 'string') {
    return '`description` must be a string.';
  }
  const schema = fields.schema;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return '`schema` must be a JSON Schema object.';
  }
  return undefined;
}

/**
 * Checks a request's `responseFormat` before anything is sent: a model that does not declare
 * `capabilities.structuredOutput` refuses it (`InvalidRequestError`: the agent loop asks for a final tool call
 * there instead), and a declared model refuses a malformed one (`InvalidRequestError` naming the field).
 *
 * @example
 * assertResponseFormat(request.responseFormat, { capabilities, provider: 'scripted', modelId: 'scripted-model' });
 */
export function assertResponseFormat(
  format: ResponseFormat | undefined,
  model: { readonly capabilities: ModelCapabilities; readonly provider: string; readonly modelId: string },
): void {
  if (format === undefined) return;
  if (model.capabilities.structuredOutput !== true) {
    throw new InvalidRequestError({
      provider: model.provider,
      message:
        `Model '${model.modelId}' is declared without native structured output (capabilities.structuredOutput ` +
        `is not true), but the request has a responseFormat. Leave it out (the agent loop then asks for a final ` +
        `tool call), or declare capabilities: { structuredOutput: true }.`,
    });
  }
  const problem = responseFormatProblem(format);
  if (problem !== undefined) {
    throw new InvalidRequestError({ provider: model.provider, message: `The responseFormat ${problem}` });
  }
}
