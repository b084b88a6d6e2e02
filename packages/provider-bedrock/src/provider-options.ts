import type { ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import type { ProviderOptions } from '@org/core';
import { InvalidBedrockOptionsError } from './invalid-bedrock-options-error.js';

/** Converse request fields that `providerOptions.bedrock` passes through untouched. */
const PASSTHROUGH_KEYS = [
  'additionalModelRequestFields',
  'additionalModelResponseFieldPaths',
  'guardrailConfig',
  'performanceConfig',
  'promptVariables',
  'requestMetadata',
] as const;

/**
 * Every key accepted in `providerOptions.bedrock`.
 *
 * @example
 * BEDROCK_PROVIDER_OPTION_KEYS.includes('additionalModelRequestFields'); // true
 */
export const BEDROCK_PROVIDER_OPTION_KEYS: readonly string[] = Object.freeze([...PASSTHROUGH_KEYS, 'topP']);

/** `providerOptions.bedrock`, checked. */
export interface BedrockProviderOptionsRead {
  /** Spread onto the Converse request as they are. */
  readonly passthrough: Partial<ConverseCommandInput>;
  /** Sent as `inferenceConfig.topP`. */
  readonly topP: number | undefined;
}

/**
 * Reads `providerOptions.bedrock` of a request: `additionalModelRequestFields` (model-specific fields such as
 * `{ top_k: 200 }` or Anthropic's `thinking`), `additionalModelResponseFieldPaths`, `guardrailConfig`,
 * `performanceConfig`, `promptVariables`, `requestMetadata` go to Converse as they are; `topP` goes into
 * `inferenceConfig`. An unknown key is an `InvalidBedrockOptionsError` naming the closest accepted one.
 *
 * @example
 * readBedrockProviderOptions({ bedrock: { additionalModelRequestFields: { top_k: 200 } } });
 */
export function readBedrockProviderOptions(options: ProviderOptions | undefined): BedrockProviderOptionsRead {
  const bedrock = options?.bedrock;
  if (bedrock === undefined) return { passthrough: {}, topP: undefined };
  if (typeof bedrock !== 'object' || bedrock === null || Array.isArray(bedrock)) {
    throw new InvalidBedrockOptionsError({
      option: 'providerOptions.bedrock',
      value: bedrock,
      expected: 'an object',
    });
  }
  const passthrough: Record<string, unknown> = {};
  let topP: number | undefined;
  for (const [key, value] of Object.entries(bedrock)) {
    if (value === undefined) continue;
    if (key === 'topP') {
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
        throw new InvalidBedrockOptionsError({
          option: 'providerOptions.bedrock.topP',
          value,
          expected: 'a number from 0 to 1',
        });
      }
      topP = value;
      continue;
    }
    if (!(PASSTHROUGH_KEYS as readonly string[]).includes(key)) {
      throw new InvalidBedrockOptionsError({
        option: `providerOptions.bedrock.${key}`,
        value: key,
        expected: `one of the keys ${BEDROCK_PROVIDER_OPTION_KEYS.join(', ')}`,
        accepted: BEDROCK_PROVIDER_OPTION_KEYS,
      });
    }
    const expectsArray = key === 'additionalModelResponseFieldPaths';
    if (
      expectsArray
        ? !Array.isArray(value)
        : typeof value !== 'object' || value === null || Array.isArray(value)
    ) {
      throw new InvalidBedrockOptionsError({
        option: `providerOptions.bedrock.${key}`,
        value,
        expected: expectsArray ? 'an array of JSON pointer strings' : 'an object',
      });
    }
    passthrough[key] = value;
  }
  return { passthrough: passthrough as Partial<ConverseCommandInput>, topP };
}
