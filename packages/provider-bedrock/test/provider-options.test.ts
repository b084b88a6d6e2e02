import { describe, expect, it } from 'vitest';
import { InvalidBedrockOptionsError } from '../src/invalid-bedrock-options-error.js';
import { readBedrockProviderOptions } from '../src/provider-options.js';

describe('readBedrockProviderOptions', () => {
  it('passes known Converse fields through and reads topP', () => {
    const read = readBedrockProviderOptions({
      bedrock: {
        additionalModelRequestFields: { top_k: 5 },
        guardrailConfig: { guardrailIdentifier: 'g' },
        topP: 0.5,
      },
      openai: { store: true },
    });
    expect(read).toEqual({
      passthrough: {
        additionalModelRequestFields: { top_k: 5 },
        guardrailConfig: { guardrailIdentifier: 'g' },
      },
      topP: 0.5,
    });
    expect(readBedrockProviderOptions(undefined)).toEqual({ passthrough: {}, topP: undefined });
  });

  it.each([
    [{ topP: '0.5' }, 'providerOptions.bedrock.topP'],
    [{ topP: 2 }, 'providerOptions.bedrock.topP'],
    [{ additionalModelRequestFields: 'top_k=5' }, 'providerOptions.bedrock.additionalModelRequestFields'],
    [
      { additionalModelResponseFieldPaths: '/x' },
      'providerOptions.bedrock.additionalModelResponseFieldPaths',
    ],
    [{ modelId: 'other' }, 'providerOptions.bedrock.modelId'],
  ])('refuses %j naming %s', (bedrock, option) => {
    let thrown: unknown;
    try {
      readBedrockProviderOptions({ bedrock });
    } catch (error) {
      thrown = error;
    }
    expect(InvalidBedrockOptionsError.isInstance(thrown)).toBe(true);
    expect((thrown as InvalidBedrockOptionsError).option).toBe(option);
    expect((thrown as InvalidBedrockOptionsError).code).toBe('invalid_provider_options');
  });
});
