import { brandError, StreamInterruptedError } from '@org/core';

/**
 * What was wrong with the stream.
 *
 * @example
 * const reason: MalformedStreamReason = 'missing-message-stop';
 */
export type MalformedStreamReason =
  /** An event whose `data:` is not JSON. */
  | 'invalid-json'
  /** The stream ended without `message_stop`. */
  | 'missing-message-stop'
  /** A second, different `message_start` arrived while a message was still open. */
  | 'spliced-message'
  /** An event that contradicts the stream so far (a delta for a block that never started, ...). */
  | 'unexpected-event';

/**
 * A Messages stream that broke the protocol after it started. It is a `StreamInterruptedError` (code
 * `stream_interrupted`, retryable, carrying the text received so far), so code that handles interruptions handles
 * it too; `reason` says what was wrong. Tool calls that were not complete are never surfaced.
 *
 * @example
 * for await (const part of model.stream(request)) {
 *   if (part.type === 'error' && MalformedStreamError.isInstance(part.error)) console.warn(part.error.reason);
 * }
 */
export class MalformedStreamError extends StreamInterruptedError {
  readonly reason: MalformedStreamReason;

  constructor(options: {
    reason: MalformedStreamReason;
    message: string;
    partialText: string;
    cause?: unknown;
  }) {
    super({
      provider: 'anthropic',
      message: options.message,
      partialText: options.partialText,
      cause: options.cause,
    });
    this.reason = options.reason;
  }
}
brandError(MalformedStreamError, 'MalformedStreamError');
