import { brandError, closestMatch, InvalidProviderOptionsError } from '@org/core';

/**
 * An option of `createBedrock`, of a model's settings, of `retry`, or of `providerOptions.bedrock` that is unknown
 * or has a wrong value. Names the option, what was given and what is accepted. A subclass of `@org/core`'s
 * `InvalidProviderOptionsError`, which every provider's option errors share.
 *
 * @example
 * if (InvalidBedrockOptionsError.isInstance(error)) console.error(error.option, error.accepted);
 */
export class InvalidBedrockOptionsError extends InvalidProviderOptionsError {
  readonly value: unknown;
  /** The accepted values or keys, when they form a list. */
  readonly accepted: readonly string[];
  /** The accepted value closest to the one given, when one is close. */
  readonly suggestion: string | undefined;

  constructor(options: {
    option: string;
    value: unknown;
    expected: string;
    accepted?: readonly string[];
    /** Replaces the composed message, for a problem already described (by `checkRetryOptions` of `@org/core`). */
    message?: string;
  }) {
    const accepted = options.accepted ?? [];
    const suggestion =
      typeof options.value === 'string' && accepted.length > 0
        ? closestMatch(options.value, accepted)
        : undefined;
    super({
      provider: 'bedrock',
      option: options.option,
      message:
        options.message ??
        `Invalid Bedrock option '${options.option}': got ${describe(options.value)}, expected ${options.expected}.` +
          (suggestion === undefined ? '' : ` Did you mean '${suggestion}'?`),
    });
    this.value = options.value;
    this.accepted = accepted;
    this.suggestion = suggestion;
  }
}
brandError(InvalidBedrockOptionsError, 'InvalidBedrockOptionsError');

function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
