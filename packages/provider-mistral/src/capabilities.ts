import type { ModelCapabilities } from '@org/core';

/**
 * What every Mistral chat model on La Plateforme accepts through `/v1/chat/completions`, as this adapter declares it:
 * every tool-choice mode is native (`auto`, `any`, `none` with the tools kept, and a named function), parallel calls
 * can be turned off (`parallel_tool_calls`), functions take `strict`, `stream()` streams natively, and
 * `responseFormat` is sent as `response_format: json_schema`.
 *
 * @example
 * const model = mistral('mistral-large-latest'); // these capabilities
 */
export const MISTRAL_DEFAULT_CAPABILITIES: ModelCapabilities = Object.freeze({
  toolCalls: true,
  toolChoice: Object.freeze({ auto: 'native', required: 'native', none: 'native', tool: 'native' } as const),
  parallelToolCalls: true,
  strictSchemas: true,
  streaming: true,
  structuredOutput: true,
});

/**
 * The model families a user declares with `mistral(modelId, { family })`; never guessed from the model id.
 *
 * - `chat`: Mistral Large, Medium, Small, Ministral, Pixtral, Codestral, Devstral (the default).
 * - `magistral`: the reasoning models; the same tool support, and their `thinking` chunks come back as reasoning.
 * - `open-weights`: a Mistral model served by another server at `serverURL` (a self-hosted deployment) whose support
 *   for the newer fields is not known: a conservative declaration where `any` and a named function are emulated and
 *   checked, and `parallel_tool_calls` and `response_format: json_schema` are not sent. Declare what your server
 *   really does with `settings.capabilities`.
 */
export type MistralModelFamily = 'chat' | 'magistral' | 'open-weights';

/**
 * The capabilities declared for each family (`MistralModelFamily`); `settings.capabilities` overrides them field by
 * field.
 *
 * @example
 * MISTRAL_FAMILY_CAPABILITIES.get('open-weights')?.toolChoice.required; // 'emulated'
 */
export const MISTRAL_FAMILY_CAPABILITIES: ReadonlyMap<MistralModelFamily, ModelCapabilities> = new Map<
  MistralModelFamily,
  ModelCapabilities
>([
  ['chat', MISTRAL_DEFAULT_CAPABILITIES],
  ['magistral', MISTRAL_DEFAULT_CAPABILITIES],
  [
    'open-weights',
    Object.freeze({
      toolCalls: true,
      toolChoice: Object.freeze({
        auto: 'native',
        required: 'emulated',
        none: 'native',
        tool: 'emulated',
      } as const),
      parallelToolCalls: false,
      strictSchemas: false,
      streaming: true,
      structuredOutput: false,
    }),
  ],
]);
