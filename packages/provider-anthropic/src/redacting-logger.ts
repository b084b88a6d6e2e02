import type { ClientOptions } from '@anthropic-ai/sdk';
import { redactSecrets, redactSecretsDeep } from '@org/core';

type Logger = NonNullable<ClientOptions['logger']>;

/**
 * Wraps the logger given to the SDK client so that every line it writes is redacted of registered secrets (in every
 * form they are sent in) and credential-shaped strings, and the value of every credential-named field or header
 * (`redactSecretsDeep`: a custom `x-proxy-token` header included). The SDK masks the `authorization` and
 * `x-api-key` headers itself, but at `debug` level it also logs response bodies verbatim and other headers as they
 * are, and a server (or a proxy) may echo the key in an error message.
 */
export function redactingLogger(logger: Logger): Logger {
  const redactArgument = (argument: unknown): unknown => {
    if (typeof argument === 'string') return redactSecrets(argument);
    if (argument instanceof Error) return `${argument.name}: ${redactSecrets(argument.message)}`;
    return redactSecretsDeep(argument);
  };
  const wrap =
    (method: (message: string, ...rest: unknown[]) => void) =>
    (message: string, ...rest: unknown[]): void => {
      method.call(logger, redactSecrets(message), ...rest.map(redactArgument));
    };
  return {
    error: wrap(logger.error),
    warn: wrap(logger.warn),
    info: wrap(logger.info),
    debug: wrap(logger.debug),
  };
}
