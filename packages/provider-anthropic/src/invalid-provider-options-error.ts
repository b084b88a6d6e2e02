import { brandError, OrgError } from '@org/core';

/**
 * `createAnthropic` or a model's settings were given options that cannot work together or are out of range
 * (a ready `client` together with `apiKey`, a negative `maxRetries`, ...). Thrown at once, never at request time.
 *
 * @example
 * createAnthropic({ client, apiKey: 'sk-ant-...' }); // throws InvalidProviderOptionsError naming both options
 */
export class InvalidProviderOptionsError extends OrgError {
  /** The option at fault, e.g. `maxRetries` or `settings.maxOutputTokens`. */
  readonly option: string;

  constructor(options: { option: string; message: string }) {
    super('invalid_provider_options', { message: options.message });
    this.option = options.option;
  }
}
brandError(InvalidProviderOptionsError, 'InvalidProviderOptionsError');
