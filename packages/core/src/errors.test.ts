import { describe, expect, it } from 'vitest';
import {
  AbortedError,
  AuthenticationError,
  abortReasonOf,
  brandError,
  ContextLengthExceededError,
  errorMessageOf,
  eventErrorOf,
  IncompleteToolCallError,
  InvalidMessageHistoryError,
  InvalidRequestError,
  InvalidToolChoiceError,
  LimitExceededError,
  OrgError,
  ProviderError,
  ProviderUnavailableError,
  RateLimitError,
  StreamInterruptedError,
  TimeoutError,
  UnsupportedSpecificationVersionError,
  UnsupportedToolChoiceError,
} from './errors.js';
import { registerSecret } from './redact-secrets.js';

const provider = 'test-provider';

describe('the error family', () => {
  const cases: Array<[string, OrgError, string, boolean]> = [
    [
      'invalid tool choice',
      new InvalidToolChoiceError({ message: 'm', value: 'x', accepted: [] }),
      'invalid_tool_choice',
      false,
    ],
    [
      'unsupported tool choice',
      new UnsupportedToolChoiceError({ provider, modelId: 'm', mode: 'required' }),
      'unsupported_tool_choice',
      false,
    ],
    [
      'spec version',
      new UnsupportedSpecificationVersionError({ expected: 'v1', actual: 'v2' }),
      'unsupported_specification_version',
      false,
    ],
    [
      'history',
      new InvalidMessageHistoryError({ message: 'm', messageIndex: 1 }),
      'invalid_message_history',
      false,
    ],
    [
      'incomplete call',
      new IncompleteToolCallError({ partialArguments: '{"a":' }),
      'incomplete_tool_call',
      false,
    ],
    ['provider', new ProviderError({ provider, message: 'm' }), 'provider_error', false],
    ['rate limit', new RateLimitError({ provider, message: 'm', retryAfterMs: 2000 }), 'rate_limited', true],
    [
      'auth',
      new AuthenticationError({ provider, message: 'm', statusCode: 401 }),
      'authentication_failed',
      false,
    ],
    [
      'invalid request',
      new InvalidRequestError({ provider, message: 'm', statusCode: 400 }),
      'invalid_request',
      false,
    ],
    [
      'context length',
      new ContextLengthExceededError({ provider, message: 'm' }),
      'context_length_exceeded',
      false,
    ],
    [
      'unavailable',
      new ProviderUnavailableError({ provider, message: 'm', statusCode: 529 }),
      'provider_unavailable',
      true,
    ],
    [
      'stream interrupted',
      new StreamInterruptedError({ provider, message: 'm', partialText: 'Hel' }),
      'stream_interrupted',
      true,
    ],
    ['timeout', new TimeoutError({ operation: "tool 'x'", timeoutMs: 50 }), 'timeout', true],
    ['aborted', new AbortedError({ operation: 'run' }), 'aborted', false],
    [
      'limit',
      new LimitExceededError({ limit: 'jsonDepth', maximum: 64, actual: 65 }),
      'limit_exceeded',
      false,
    ],
  ];

  it.each(cases)(
    '%s has its stable code, retryability, name and base identity',
    (_, error, code, retryable) => {
      expect(error.code).toBe(code);
      expect(error.retryable).toBe(retryable);
      expect(error.name).toBe(error.constructor.name);
      expect(error).toBeInstanceOf(Error);
      expect(OrgError.isInstance(error)).toBe(true);
      expect((error.constructor as typeof OrgError).isInstance(error)).toBe(true);
    },
  );

  it('isInstance follows the class hierarchy and nothing else', () => {
    const rateLimit = new RateLimitError({ provider, message: 'slow down' });
    expect(ProviderError.isInstance(rateLimit)).toBe(true);
    expect(RateLimitError.isInstance(rateLimit)).toBe(true);
    expect(AuthenticationError.isInstance(rateLimit)).toBe(false);
    expect(RateLimitError.isInstance(new ProviderError({ provider, message: 'x' }))).toBe(false);
    expect(TimeoutError.isInstance(new AbortedError({ operation: 'x' }))).toBe(false);
  });

  it.each([undefined, null, 'rate_limited', 42, {}, new Error('plain'), { code: 'rate_limited' }])(
    'isInstance is false for %j',
    (value) => {
      expect(OrgError.isInstance(value)).toBe(false);
      expect(RateLimitError.isInstance(value)).toBe(false);
    },
  );

  it('recognises errors from another copy of the package (cross-realm marker)', () => {
    // A structurally separate object carrying the global-registry marker, as a second copy's instance would.
    const foreign = Object.create(Error.prototype, {
      [Symbol.for('org.error.OrgError')]: { value: true },
      [Symbol.for('org.error.ProviderError')]: { value: true },
      [Symbol.for('org.error.RateLimitError')]: { value: true },
    });
    expect(RateLimitError.isInstance(foreign)).toBe(true);
    expect(AuthenticationError.isInstance(foreign)).toBe(false);
  });

  it('lets other packages join the family with brandError', () => {
    class UnknownToolError extends OrgError {
      constructor(readonly toolName: string) {
        super('unknown_tool', { message: `Unknown tool '${toolName}'.` });
      }
    }
    brandError(UnknownToolError, 'UnknownToolError');
    const error = new UnknownToolError('x');
    expect(UnknownToolError.isInstance(error)).toBe(true);
    expect(OrgError.isInstance(error)).toBe(true);
    expect(UnknownToolError.isInstance(new OrgError('other', { message: 'm' }))).toBe(false);
  });

  it('keeps identity and name when a minifier renames the classes (two classes both named `e`)', () => {
    // What a minifier emits: anonymous-looking class names, the same short name in two modules.
    const minifiedA = { e: class extends OrgError {} }.e;
    const minifiedB = { e: class extends ProviderError {} }.e;
    expect(minifiedA.name).toBe(minifiedB.name);
    brandError(minifiedA, 'ToolkitSetupError');
    brandError(minifiedB, 'ToolkitProviderError');
    const a = new minifiedA('setup', { message: 'a' });
    const b = new minifiedB({ provider: 'x', message: 'b' });
    expect(a.name).toBe('ToolkitSetupError');
    expect(b.name).toBe('ToolkitProviderError');
    expect(minifiedA.isInstance(a)).toBe(true);
    expect(minifiedA.isInstance(b)).toBe(false);
    expect(minifiedB.isInstance(a)).toBe(false);
    expect(ProviderError.isInstance(b)).toBe(true);
    expect(JSON.stringify(a)).toContain('"name":"ToolkitSetupError"');
  });

  it('answers false for a subclass that was never branded, and refuses a brand that is not a name', () => {
    class Unbranded extends RateLimitError {}
    expect(Unbranded.isInstance(new Unbranded({ provider: 'x', message: 'm' }))).toBe(false);
    expect(RateLimitError.isInstance(new Unbranded({ provider: 'x', message: 'm' }))).toBe(true);
    class Named extends OrgError {}
    expect(() => brandError(Named, '')).toThrow(TypeError);
    expect(() => brandError(Named, 'not a name')).toThrow(/public name/);
    // Without a name (code written before it was required), the class's own name is used.
    class LegacyBrandedError extends OrgError {}
    brandError(LegacyBrandedError);
    const legacy = new LegacyBrandedError('legacy', { message: 'm' });
    expect(LegacyBrandedError.isInstance(legacy)).toBe(true);
    expect(legacy.name).toBe('LegacyBrandedError');
  });

  it('keeps the cause and the fields a caller acts on', () => {
    const cause = new Error('socket hang up');
    const error = new RateLimitError({
      provider: 'openai',
      message: 'Rate limited',
      statusCode: 429,
      retryAfterMs: 3_600_000,
      providerCode: 'rate_limit_exceeded',
      requestId: 'req_1',
      cause,
    });
    expect(error.cause).toBe(cause);
    expect(error).toMatchObject({
      provider: 'openai',
      statusCode: 429,
      retryAfterMs: 3_600_000,
      requestId: 'req_1',
    });
    expect(new TimeoutError({ operation: "tool 'slow'", timeoutMs: 250 }).message).toBe(
      "tool 'slow' timed out after 250 ms.",
    );
    expect(new LimitExceededError({ limit: 'planSteps', maximum: 500, actual: 100000 }).message).toContain(
      "Limit 'planSteps' exceeded: 100000 > 500",
    );
    expect(
      new StreamInterruptedError({ provider, message: 'reset', partialText: 'Hello wor' }).partialText,
    ).toBe('Hello wor');
  });

  it('explains the fix in its message where there is one', () => {
    expect(
      new IncompleteToolCallError({ toolName: 'write_file', partialArguments: '{', finishReason: 'length' })
        .message,
    ).toBe(
      "The arguments of tool call 'write_file' were cut off (finish reason 'length'); the call was not executed. Raise the output token limit or ask for smaller arguments.",
    );
    expect(
      new UnsupportedToolChoiceError({ provider: 'bedrock', modelId: 'meta.llama3', mode: 'required' })
        .message,
    ).toContain("Model 'meta.llama3' on bedrock does not support tool choice 'required'");
    expect(
      new UnsupportedSpecificationVersionError({ expected: 'v1', actual: 'v2', provider: 'x' }).message,
    ).toContain('implements LanguageModel specification "v2", but @org/core understands \'v1\'');
  });

  it('lets explicit retryability override the class default', () => {
    expect(new RateLimitError({ provider, message: 'm', retryable: false }).retryable).toBe(false);
    expect(new AuthenticationError({ provider, message: 'm', retryable: true }).retryable).toBe(false);
  });
});

describe('secrets never appear in errors', () => {
  it('redacts key-shaped values from messages and response bodies', () => {
    const error = new AuthenticationError({
      provider: 'openai',
      message:
        'Incorrect API key provided: sk-proj-abcdefghijklmnop1234. Authorization: Bearer abcdefghijk12345',
      responseBody: {
        error: {
          message: 'key sk-proj-abcdefghijklmnop1234 invalid',
          headers: { 'x-api-key': 'ant-secret-value-123' },
        },
      },
    });
    const everything = JSON.stringify({
      message: error.message,
      json: error.toJSON(),
      body: error.responseBody,
    });
    expect(everything).not.toContain('abcdefghijklmnop1234');
    expect(everything).not.toContain('abcdefghijk12345');
    expect(error.message).toContain('[REDACTED]');
  });

  it('redacts registered secrets of any shape', () => {
    registerSecret('plain-looking-secret-42');
    const error = new ProviderError({ provider, message: 'bad credential plain-looking-secret-42 rejected' });
    expect(error.message).toBe('bad credential [REDACTED] rejected');
  });

  it('toJSON has no stack or cause and is serialisable', () => {
    const json = new RateLimitError({
      provider,
      message: 'm',
      retryAfterMs: 5,
      cause: new Error('inner'),
    }).toJSON();
    expect(json).toMatchObject({
      name: 'RateLimitError',
      code: 'rate_limited',
      retryAfterMs: 5,
      retryable: true,
    });
    expect(json).not.toHaveProperty('cause');
    expect(json).not.toHaveProperty('stack');
    expect(() => JSON.stringify(json)).not.toThrow();
  });
});

describe('errorMessageOf', () => {
  it.each([
    [new Error('boom'), 'boom'],
    ['plain string', 'plain string'],
    [undefined, 'undefined was thrown'],
    [null, 'null was thrown'],
    [42, '42'],
    [{ message: 'object with message' }, 'object with message'],
    [{ code: 7 }, '{"code":7}'],
    [Object.assign(new Error(''), { name: 'NamedOnly' }), 'NamedOnly'],
  ])('describes %j', (thrown, expected) => {
    expect(errorMessageOf(thrown)).toBe(expected);
  });

  it('never throws, even for hostile values', () => {
    const hostile = {
      get message(): string {
        throw new Error('getter throws');
      },
    };
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(errorMessageOf(hostile)).toBe('An unprintable value was thrown');
    expect(errorMessageOf(circular)).toBe('An unprintable value was thrown');
    expect(errorMessageOf(Symbol('s'))).toBe('Symbol(s)');
    expect(errorMessageOf(10n)).toBe('10');
  });

  it('redacts secrets', () => {
    expect(errorMessageOf('failed with sk-live-0123456789abcdef')).toBe('failed with [REDACTED]');
  });
});

describe('eventErrorOf', () => {
  it("keeps a typed error's code and retryable, and redacts its message", () => {
    expect(eventErrorOf(new RateLimitError({ message: 'slow down', provider: 'openai' }))).toEqual({
      code: 'rate_limited',
      message: 'slow down',
      retryable: true,
    });
    expect(eventErrorOf(new AbortedError({ operation: 'agent run' }))).toEqual({
      code: 'aborted',
      message: 'agent run was aborted.',
      retryable: false,
    });
  });

  it('gives anything else the code error, without throwing', () => {
    expect(eventErrorOf(new Error('key sk-live-0123456789abcdef leaked'))).toEqual({
      code: 'error',
      message: 'key [REDACTED] leaked',
    });
    expect(eventErrorOf(undefined)).toEqual({ code: 'error', message: 'undefined was thrown' });
  });
});

describe('abort reasons in messages', () => {
  it('names the reason given to abort(reason), and nothing for the default reason', () => {
    const withReason = new AbortController();
    withReason.abort('the user closed the tab');
    expect(new AbortedError({ operation: 'agent run', cause: withReason.signal.reason }).message).toBe(
      'agent run was aborted: the user closed the tab.',
    );
    const errorReason = new AbortController();
    errorReason.abort(new Error('deploy window closed.'));
    expect(abortReasonOf(errorReason.signal.reason)).toBe('deploy window closed');
    const plain = new AbortController();
    plain.abort();
    expect(abortReasonOf(plain.signal.reason)).toBeUndefined();
    expect(new AbortedError({ operation: 'agent run', cause: plain.signal.reason }).message).toBe(
      'agent run was aborted.',
    );
  });

  it('redacts secrets and bounds the reason', () => {
    registerSecret('abort-secret-77f1');
    expect(abortReasonOf('key abort-secret-77f1 revoked')).not.toContain('abort-secret-77f1');
    const long = abortReasonOf('x'.repeat(10_000));
    expect(long?.length).toBeLessThanOrEqual(301);
    expect(long?.endsWith('…')).toBe(true);
  });
});
