import { brandError, OrgError } from '@org/core';

/**
 * A non-streaming request that `@anthropic-ai/sdk` refuses before sending: with a large `max_tokens` the answer may
 * take longer than ten minutes, so the SDK insists on streaming. The message says the fix.
 *
 * @example
 * try {
 *   await model.generate({ messages, maxOutputTokens: 64_000 });
 * } catch (error) {
 *   if (StreamingRequiredError.isInstance(error)) await collectStream(model.stream({ messages, maxOutputTokens: 64_000 }));
 * }
 */
export class StreamingRequiredError extends OrgError {
  readonly provider = 'anthropic';
  /** The `max_tokens` the request asked for. */
  readonly maxOutputTokens: number;

  constructor(options: { maxOutputTokens: number; cause?: unknown }) {
    super('streaming_required', {
      message:
        `@anthropic-ai/sdk refuses a non-streaming request with max_tokens ${options.maxOutputTokens}: the answer may ` +
        `take longer than 10 minutes. Use model.stream(...) (collectStream gives the same response as generate), ` +
        `or lower maxOutputTokens (the SDK accepts up to 21333 without streaming), ` +
        `or set an explicit 'timeout' in createAnthropic if you accept a long-running request.`,
      cause: options.cause,
    });
    this.maxOutputTokens = options.maxOutputTokens;
  }
}
brandError(StreamingRequiredError, 'StreamingRequiredError');
