import { InvalidRequestError, type ProviderOptions } from '@org/core';

/**
 * Body fields the adapter owns: a provider option setting one would be overridden or would break the request (a
 * `stream: true` under `generate()`, tools without the pairing check).
 */
const RESERVED: ReadonlySet<string> = new Set([
  'model',
  'messages',
  'system',
  'tools',
  'tool_choice',
  'max_tokens',
  'stop_sequences',
  'stream',
]);

/**
 * Reads `providerOptions.anthropic`: extra Messages API body fields (`thinking`, `metadata`, `output_config.effort`,
 * `service_tier`, ...) passed through as they are. A field the adapter builds from the request is refused
 * (`InvalidRequestError`, `providerCode: 'reserved_provider_option'`) rather than silently overridden, as in
 * `@org/provider-openai`; so is `output_config.format` beside `responseFormat`, which the adapter sends there.
 *
 * @example
 * readProviderOptions({ anthropic: { thinking: { type: 'enabled', budget_tokens: 2048 } } }, { responseFormat: false });
 */
export function readProviderOptions(
  providerOptions: ProviderOptions | undefined,
  context: { responseFormat: boolean },
): Readonly<Record<string, unknown>> {
  const options: unknown = providerOptions?.anthropic;
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidRequestError({
      provider: 'anthropic',
      providerCode: 'invalid_provider_option',
      message: `providerOptions.anthropic must be an object of Messages API body fields, e.g. { thinking: { type: 'adaptive' } }.`,
    });
  }
  const fields = options as Readonly<Record<string, unknown>>;
  const clashing = Object.keys(fields).filter((key) => RESERVED.has(key));
  if (clashing.length > 0) {
    throw new InvalidRequestError({
      provider: 'anthropic',
      message: `providerOptions.anthropic may not set ${clashing.map((key) => `'${key}'`).join(', ')}: the adapter builds ${clashing.length === 1 ? 'it' : 'them'} from the request (messages, system messages, tools, toolChoice, maxOutputTokens, stopSequences, stream()). Use those request fields instead.`,
      providerCode: 'reserved_provider_option',
    });
  }
  const outputConfig = fields.output_config;
  if (
    context.responseFormat &&
    typeof outputConfig === 'object' &&
    outputConfig !== null &&
    Object.hasOwn(outputConfig, 'format')
  ) {
    throw new InvalidRequestError({
      provider: 'anthropic',
      message:
        `providerOptions.anthropic.output_config.format and responseFormat both set the answer's format; ` +
        `the adapter sends responseFormat there. Keep only responseFormat.`,
      providerCode: 'reserved_provider_option',
    });
  }
  return fields;
}
