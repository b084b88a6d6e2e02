import { brandError, closestMatch, OrgError } from '@org/core';

/**
 * An option of `createBedrock`, of a model's settings, of `retry`, or of `providerOptions.bedrock` that is unknown
 * or has a wrong value. Names the option, what was given and what is accepted.
 *
 * @example
 * if (InvalidBedrockOptionsError.isInstance(error)) console.error(error.option, error.accepted);
 */
export class InvalidBedrockOptionsError extends OrgError {
  /** The option concerned, e.g. `noneToolChoicePolicy` or `providerOptions.bedrock.topK`. */
  readonly option: string;
  readonly value: unknown;
  /** The accepted values or keys, when they form a list. */
  readonly accepted: readonly string[];
  /** The accepted value closest to the one given, when one is close. */
  readonly suggestion: string | undefined;

  constructor(options: { option: string; value: unknown; expected: string; accepted?: readonly string[] }) {
    const accepted = options.accepted ?? [];
    const suggestion =
      typeof options.value === 'string' && accepted.length > 0
        ? closestMatch(options.value, accepted)
        : undefined;
    super('invalid_provider_options', {
      message:
        `Invalid Bedrock option '${options.option}': got ${describe(options.value)}, expected ${options.expected}.` +
        (suggestion === undefined ? '' : ` Did you mean '${suggestion}'?`),
    });
    this.option = options.option;
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
