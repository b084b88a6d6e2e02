import { brandError, ProviderError } from '@org/core';
import { PROVIDER } from './provider-name.js';

/**
 * Gemini ended its answer because a function call failed on its side: `MALFORMED_FUNCTION_CALL` (it wrote a call
 * that does not parse or match its declaration), `UNEXPECTED_TOOL_CALL` (a call to a tool not offered, or with
 * tool choice NONE) or `TOO_MANY_TOOL_CALLS`. The answer carries no usable call, so it is this error rather than an
 * empty response; `retryable` (a new attempt often succeeds), with Gemini's `finishMessage` when it gave one.
 *
 * @example
 * const error = await model.generate(request).catch((thrown) => thrown);
 * if (FunctionCallFailedError.isInstance(error)) console.warn(error.finishReason, error.finishMessage);
 */
export class FunctionCallFailedError extends ProviderError {
  /** Gemini's finish reason, e.g. `MALFORMED_FUNCTION_CALL`. */
  readonly finishReason: string;
  /** Gemini's explanation (`finishMessage`), when it gave one. */
  readonly finishMessage: string | undefined;

  constructor(options: { finishReason: string; finishMessage?: string | undefined; responseBody?: unknown }) {
    super(
      {
        provider: PROVIDER,
        providerCode: options.finishReason,
        message:
          `Gemini ended the answer with ${options.finishReason}: no usable function call came back` +
          `${options.finishMessage === undefined ? '.' : ` (${options.finishMessage}).`}`,
        responseBody: options.responseBody,
        retryable: true,
      },
      'function_call_failed',
    );
    this.finishReason = options.finishReason;
    this.finishMessage = options.finishMessage;
  }
}
brandError(FunctionCallFailedError, 'FunctionCallFailedError');
