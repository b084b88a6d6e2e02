import { brandError, OrgError } from '@org/core';

/**
 * An option of `devtoolsListener` or `startDevtoolsServer` is out of range (a port that is not a port, a record
 * size too small to hold an event's summary), named with the value given and what is expected.
 *
 * @example
 * try { await startDevtoolsServer({ port: 70000 }) } catch (error) {
 *   if (DevtoolsOptionError.isInstance(error)) console.error(error.option, error.message);
 * }
 */
export class DevtoolsOptionError extends OrgError {
  /** The option at fault (`port`, `maxRecordBytes`, ...). */
  readonly option: string;

  constructor(options: { option: string; message: string }) {
    super('invalid_devtools_option', { message: options.message });
    this.option = options.option;
  }
}
brandError(DevtoolsOptionError, 'DevtoolsOptionError');
