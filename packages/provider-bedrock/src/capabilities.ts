import type { ModelCapabilities } from '@org/core';

/**
 * What the adapter declares for every Converse model before the user's override (`settings.capabilities`). Nothing
 * is guessed from the model id: a model that cannot do something is declared so by the user, or Bedrock's
 * ValidationException says so at run time.
 *
 * - `none` is `emulated` because Converse has no such mode (see `NoneToolChoicePolicy`); `required` and `tool` are
 *   sent natively (a model that rejects them: `emulateUnsupportedToolChoice`).
 * - `parallelToolCalls` is `false`: models return several calls in one turn, but Converse cannot turn that off, and
 *   the capability means both; `parallelToolCalls: false` on a request is reported as `setting-ignored`.
 * - `structuredOutput` is `true`: Converse constrains the answer to a JSON Schema natively
 *   (`outputConfig.textFormat`); declare `false` for a model Bedrock does not offer it for.
 *
 * @example
 * mergeCapabilities(DEFAULT_BEDROCK_CAPABILITIES, { toolChoice: { required: 'unsupported' } });
 */
export const DEFAULT_BEDROCK_CAPABILITIES: ModelCapabilities = Object.freeze({
  toolCalls: true,
  toolChoice: Object.freeze({ auto: 'native', required: 'native', tool: 'native', none: 'emulated' }),
  parallelToolCalls: false,
  strictSchemas: false,
  streaming: true,
  structuredOutput: true,
});
