import { closestMatch, InvalidProviderOptionsError, type ProviderOptions } from '@org/core';
import { PROVIDER } from './provider-name.js';

/**
 * What `providerOptions.mistral` of a request may carry: Mistral's own chat-completion settings, sent as the SDK's
 * fields.
 *
 * @example
 * await model.generate({ messages, providerOptions: { mistral: { randomSeed: 7, promptMode: 'reasoning' } } });
 */
export interface MistralRequestOptions {
  /** `random_seed`: a whole number, for repeatable sampling. */
  readonly randomSeed?: number;
  /** `safe_prompt`: prepend Mistral's safety prompt. */
  readonly safePrompt?: boolean;
  /** `top_p`, from 0 to 1. */
  readonly topP?: number;
  /** `prompt_mode: 'reasoning'`: Magistral's reasoning system prompt. */
  readonly promptMode?: 'reasoning';
  /** `reasoning_effort`, for the models that take it. */
  readonly reasoningEffort?: 'none' | 'minimal' | 'low' | 'medium' | 'high';
}

const CHECKS: ReadonlyMap<
  string,
  { readonly accepts: (value: unknown) => boolean; readonly expected: string }
> = new Map([
  [
    'randomSeed',
    {
      accepts: (value) => Number.isSafeInteger(value) && (value as number) >= 0,
      expected: 'a whole number ≥ 0',
    },
  ],
  ['safePrompt', { accepts: (value) => typeof value === 'boolean', expected: 'a boolean' }],
  [
    'topP',
    {
      accepts: (value) => typeof value === 'number' && value >= 0 && value <= 1,
      expected: 'a number from 0 to 1',
    },
  ],
  ['promptMode', { accepts: (value) => value === 'reasoning', expected: "'reasoning'" }],
  [
    'reasoningEffort',
    {
      accepts: (value) => ['none', 'minimal', 'low', 'medium', 'high'].includes(value as string),
      expected: "'none', 'minimal', 'low', 'medium' or 'high'",
    },
  ],
]);

/**
 * Reads and checks `providerOptions.mistral`: an unknown key (with a did-you-mean) or a wrong value is refused with
 * `InvalidProviderOptionsError` before sending, never ignored.
 */
export function readProviderOptions(providerOptions: ProviderOptions | undefined): MistralRequestOptions {
  if (providerOptions === undefined || !Object.hasOwn(providerOptions, PROVIDER)) return {};
  const options: unknown = providerOptions[PROVIDER];
  const fail = (option: string, message: string): never => {
    throw new InvalidProviderOptionsError({
      provider: PROVIDER,
      option: `providerOptions.${PROVIDER}${option}`,
      message,
    });
  };
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    return fail('', `providerOptions.${PROVIDER} must be an object.`);
  }
  const known = [...CHECKS.keys()];
  const read: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    const check = CHECKS.get(key);
    if (check === undefined) {
      const suggestion = closestMatch(key, known);
      return fail(
        `.${key}`,
        `providerOptions.${PROVIDER} has no option '${key}'${suggestion === undefined ? '' : ` (did you mean '${suggestion}'?)`}; it takes ${known.map((name) => `'${name}'`).join(', ')}.`,
      );
    }
    if (value === undefined) continue;
    if (!check.accepts(value)) {
      return fail(
        `.${key}`,
        `providerOptions.${PROVIDER}.${key} must be ${check.expected}; got ${JSON.stringify(value) ?? String(value)}.`,
      );
    }
    read[key] = value;
  }
  return read as MistralRequestOptions;
}
