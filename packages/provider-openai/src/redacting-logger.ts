import { redactSecrets, redactSecretsDeep } from '@org/core';

type LogFunction = (message: string, ...rest: unknown[]) => void;

/** The SDK's logger shape. */
export interface SdkLogger {
  error: LogFunction;
  warn: LogFunction;
  info: LogFunction;
  debug: LogFunction;
}

/** An error as a line (its fields would be lost in a plain copy), anything else redacted deep. */
function redactArgument(argument: unknown): unknown {
  if (typeof argument === 'string') return redactSecrets(argument);
  if (argument instanceof Error) return `${argument.name}: ${redactSecrets(argument.message)}`;
  return redactSecretsDeep(argument);
}

/**
 * Wraps a logger so every line the SDK writes is redacted first: on a malformed event the SDK logs the raw chunk,
 * and at debug level it logs requests with their headers. Registered secrets (in every form they are sent in) and
 * credential shapes are redacted from every string, and the value of every credential-named field or header
 * (`authorization`, `x-api-key`, a custom `x-proxy-token`) whatever it holds (`redactSecretsDeep`). Used for the
 * clients the adapter creates.
 */
export function createRedactingLogger(base: SdkLogger = console): SdkLogger {
  const wrap =
    (write: LogFunction): LogFunction =>
    (message, ...rest) =>
      write(redactSecrets(String(message)), ...rest.map(redactArgument));
  return { error: wrap(base.error), warn: wrap(base.warn), info: wrap(base.info), debug: wrap(base.debug) };
}
