import { InvalidRequestError, type ModelRequest } from '@org/core';

/**
 * Body fields the adapter owns: letting `providerOptions` overwrite them would silently break the request (a
 * `stream: false` under `stream()`, tools without the pairing check).
 */
const RESERVED: ReadonlySet<string> = new Set([
  'model',
  'messages',
  'input',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'stream',
  'stream_options',
]);

/** What the request's options are named as in messages: `providerOptions.openai` (and the provider's own name). */
export function optionsName(provider: string): string {
  return provider === 'openai'
    ? 'providerOptions.openai'
    : `providerOptions.openai / providerOptions.${provider}`;
}

/**
 * The request's `providerOptions.openai` (and, for a provider created under another name, `providerOptions[name]`),
 * checked against the fields the adapter owns. Everything else is passed into the request body untouched.
 */
export function passthroughOptions(request: ModelRequest, provider: string): Record<string, unknown> {
  const options: Record<string, unknown> = {
    ...(request.providerOptions?.openai ?? {}),
    ...(provider === 'openai' ? {} : (request.providerOptions?.[provider] ?? {})),
  };
  const clashing = Object.keys(options).filter((key) => RESERVED.has(key));
  if (clashing.length > 0) {
    throw new InvalidRequestError({
      provider,
      message: `${optionsName(provider)} may not set ${clashing.map((key) => `'${key}'`).join(', ')}: the adapter builds ${clashing.length === 1 ? 'it' : 'them'} from the request (messages, tools, toolChoice, parallelToolCalls, stream()). Use those request fields instead.`,
      providerCode: 'reserved_provider_option',
    });
  }
  return options;
}

/** An own option value, never one read through the prototype. */
export function ownOption(options: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(options, key) ? options[key] : undefined;
}

/** Fails when an option the request also sets is given in `providerOptions`, naming both. */
export function refuseOptionClash(
  options: Record<string, unknown>,
  key: string,
  requestField: string,
  provider: string,
): void {
  if (ownOption(options, key) === undefined) return;
  throw new InvalidRequestError({
    provider,
    providerCode: 'reserved_provider_option',
    message: `${optionsName(provider)} sets '${key}' and the request sets ${requestField}: give it once, as ${requestField}.`,
  });
}
