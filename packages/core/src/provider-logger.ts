import { redactSecretsDeep } from './redact-secrets.js';

/**
 * One method of an SDK logger. The OpenAI and Anthropic SDKs pass a message string first; the AWS SDK (Smithy)
 * passes whatever it logs (objects included), which this type also accepts at run time.
 */
export type LogFunction = (message: string, ...rest: unknown[]) => void;

/**
 * The logger shape the provider SDKs take (`ClientOptions.logger` of the OpenAI and Anthropic SDKs, `logger` of an
 * AWS SDK client, and `console`). `trace` is optional, as in the AWS SDK.
 */
export interface ProviderLogger {
  readonly error: LogFunction;
  readonly warn: LogFunction;
  readonly info: LogFunction;
  readonly debug: LogFunction;
  readonly trace?: LogFunction;
}

/**
 * Wraps the logger given to an SDK client so that everything it writes is redacted first. At `debug` level the SDKs
 * log requests with their headers and responses verbatim, on a malformed event they log the raw chunk, and a server
 * or proxy may echo the key in an error message. Every string is cleared of registered secrets (in every form they
 * are sent in) and credential-shaped values; every object is copied with the value of each credential-named field or
 * header (`authorization`, `x-api-key`, a custom `x-proxy-token`) replaced (`redactSecretsDeep`); an `Error` becomes
 * a plain copy of its name, message, stack and own fields (`status`, `headers`, `error`), all redacted. Each method is called on `base` (`this` is kept, so a class-based logger works), and `trace` is
 * wrapped when `base` has one.
 *
 * @example
 * const client = new Anthropic({ apiKey, logger: createRedactingLogger(options.logger ?? console) });
 * const bedrock = new BedrockRuntimeClient({ region, logger: createRedactingLogger(settings.logger ?? console) });
 */
export function createRedactingLogger(base: ProviderLogger = console): ProviderLogger {
  const wrap =
    (write: LogFunction): LogFunction =>
    (message, ...rest) => {
      // The AWS SDK logs objects as the first argument: redacted deep, not flattened to "[object Object]".
      write.call(base, redactSecretsDeep(message), ...rest.map((argument) => redactSecretsDeep(argument)));
    };
  const trace = base.trace;
  return {
    error: wrap(base.error),
    warn: wrap(base.warn),
    info: wrap(base.info),
    debug: wrap(base.debug),
    ...(trace === undefined ? {} : { trace: wrap(trace) }),
  };
}
