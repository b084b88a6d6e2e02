import { redactSecrets, redactSecretsDeep } from '@org/core';

type LogFunction = (message: string, ...rest: unknown[]) => void;

/** The SDK's logger shape. */
export interface SdkLogger {
  error: LogFunction;
  warn: LogFunction;
  info: LogFunction;
  debug: LogFunction;
}

/**
 * Wraps a logger so every line the SDK writes is redacted of registered secrets first: on a malformed event the
 * SDK logs the raw chunk, and at debug level it logs requests. Used for the clients the adapter creates.
 */
export function createRedactingLogger(base: SdkLogger = console): SdkLogger {
  const wrap =
    (write: LogFunction): LogFunction =>
    (message, ...rest) =>
      write(redactSecrets(String(message)), ...rest.map((item) => redactSecretsDeep(item)));
  return { error: wrap(base.error), warn: wrap(base.warn), info: wrap(base.info), debug: wrap(base.debug) };
}
