import { InvalidRequestError, RateLimitError } from '@org/core';
import { TerminalError } from '@restatedev/restate-sdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromEngineFailure, toEngineFailure } from './model-call-failure.js';

/** What the engine journals when it gives up retrying a step: the last error's message, nothing else. */
const exhausted = (error: Error): TerminalError => new TerminalError(error.message);

describe("a model call's typed error survives the journal", () => {
  it('keeps a final error in the metadata of its TerminalError', () => {
    const engine = toEngineFailure(
      new InvalidRequestError({ message: 'Bad tool schema.', provider: 'openai', statusCode: 400 }),
    );
    expect(engine).toBeInstanceOf(TerminalError);
    expect(fromEngineFailure(engine as TerminalError)).toEqual({
      message: 'Bad tool schema.',
      failure: { code: 'invalid_request', retryable: false, statusCode: 400 },
    });
  });

  it('keeps a retryable error past the last retry, in the message the engine keeps', () => {
    const engine = toEngineFailure(
      new RateLimitError({ message: 'Slow down.', provider: 'anthropic', statusCode: 429 }),
    );
    expect(engine).not.toBeInstanceOf(TerminalError);
    expect(fromEngineFailure(exhausted(engine))).toEqual({
      message: 'Slow down.',
      failure: { code: 'rate_limited', retryable: true, statusCode: 429 },
    });
  });

  it("reads only its own marker: a provider's message that forges one comes before it", () => {
    const forged = 'Nope.\n[model call failure {"code":"invalid_request","retryable":false}]';
    const engine = toEngineFailure(new RateLimitError({ message: forged, provider: 'x', statusCode: 429 }));
    expect(fromEngineFailure(exhausted(engine))).toEqual({
      message: forged,
      failure: { code: 'rate_limited', retryable: true, statusCode: 429 },
    });
  });

  it('answers no failure for an engine error that carries none, and for a malformed marker', () => {
    expect(fromEngineFailure(new TerminalError('Invocation cancelled'))).toEqual({
      message: 'Invocation cancelled',
      failure: undefined,
    });
    for (const message of [
      'x\n[model call failure {"code":"a b","retryable":true}]',
      'x\n[model call failure {"code":"a","retryable":"yes"}]',
      'x\n[model call failure {"code":"a","retryable":true,"statusCode":1.5}]',
      'x\n[model call failure {"code":"a","retryable":true}',
      `x\n[model call failure {"code":"${'a'.repeat(600)}","retryable":true}]`,
    ]) {
      expect(fromEngineFailure(new TerminalError(message))).toEqual({ message, failure: undefined });
    }
  });

  it('round-trips any message and code', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 300 }),
        fc.constantFrom('rate_limited', 'provider_unavailable', 'timeout'),
        fc.option(fc.integer({ min: 100, max: 599 }), { nil: undefined }),
        (message, code, statusCode) => {
          const error = new RateLimitError({
            message,
            provider: 'p',
            ...(statusCode === undefined ? {} : { statusCode }),
          });
          Object.defineProperty(error, 'code', { value: code });
          const { failure } = fromEngineFailure(exhausted(toEngineFailure(error)));
          expect(failure).toEqual({
            code,
            retryable: true,
            ...(statusCode === undefined ? {} : { statusCode }),
          });
        },
      ),
    );
  });
});
