import { inspect } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AbortedError, OrgError, ProviderError } from './errors.js';
import { redactCause, redactSecrets, redactSecretsDeep, registerSecret } from './redact-secrets.js';

const numRuns = Number(process.env.FC_NUM_RUNS ?? 1000);

describe('redactSecrets', () => {
  it.each([
    [
      'OpenAI key',
      'Incorrect API key provided: sk-proj-AbC123xyz789QWE.',
      'Incorrect API key provided: [REDACTED].',
    ],
    ['Anthropic key', 'x sk-ant-api03-abcdefghijklmnop y', 'x [REDACTED] y'],
    ['AWS access key id', 'Credential=AKIAIOSFODNN7EXAMPLE/20261122', 'Credential=[REDACTED]/20261122'],
    ['bearer token', 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc', 'Authorization: [REDACTED]'],
    ['key=value', 'api_key=abcd1234efgh', 'api_key=[REDACTED]'],
    ['JSON pair', '{"x-api-key": "abcd1234efgh"}', '{"x-api-key": "[REDACTED]"}'],
    ['AWS secret', 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG', 'aws_secret_access_key = [REDACTED]'],
  ])('redacts a %s', (_, input, expected) => {
    expect(redactSecrets(input)).toBe(expected);
  });

  it('leaves ordinary text alone', () => {
    const text = 'The weather in Paris is 18°C; task-42 completed with status=ok.';
    expect(redactSecrets(text)).toBe(text);
  });

  it('never lets a registered secret through, whatever surrounds it', () => {
    const secret = 'zq-registered-secret-9f8e7d';
    registerSecret(secret);
    fc.assert(
      fc.property(fc.string(), fc.string(), (before, after) => {
        expect(redactSecrets(`${before}${secret}${after}`)).not.toContain(secret);
      }),
      { numRuns },
    );
  });

  it('ignores values too short to be secrets', () => {
    registerSecret('abc');
    registerSecret(undefined);
    registerSecret(null);
    expect(redactSecrets('abc abc')).toBe('abc abc');
  });
});

describe('redactSecretsDeep', () => {
  it('redacts nested strings and cuts cycles without touching the input', () => {
    const input: Record<string, unknown> = { a: ['Bearer abcdefgh12345678'], b: { c: 'fine', n: 1 } };
    input.self = input;
    const output = redactSecretsDeep(input);
    expect(output).toEqual({ a: ['Bearer [REDACTED]'], b: { c: 'fine', n: 1 }, self: '[Circular]' });
    expect(input.a).toEqual(['Bearer abcdefgh12345678']);
  });

  it('copies __proto__ keys as data, never as prototypes', () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}}') as object;
    const output = redactSecretsDeep(input) as Record<string, unknown>;
    expect(Object.getPrototypeOf(output)).toBe(Object.prototype);
    expect(Object.hasOwn(output, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

const REGISTERED = 'reg-secret-7f3a9c1d2e';
const OPENAI_KEY = 'sk-proj-AbC123xyz789QWEdef';
const AWS_KEY_ID = 'AKIAIOSFODNN7EXAMPLE';
const BEARER = 'Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig';
registerSecret(REGISTERED);

const LEAKS = [REGISTERED, OPENAI_KEY, AWS_KEY_ID, 'eyJhbGciOiJIUzI1NiJ9'];

function expectClean(text: string): void {
  for (const leak of LEAKS) expect(text).not.toContain(leak);
}

class ApiLikeError extends Error {
  readonly status = 401;
  headers: Record<string, string>;
  body: unknown;
  constructor(message: string, options: { cause?: unknown }) {
    super(message, options);
    this.name = 'ApiLikeError';
    this.headers = { authorization: BEARER, 'x-echo': `key ${REGISTERED}` };
    this.body = { error: { message: `Incorrect API key provided: ${OPENAI_KEY}`, tokens: [AWS_KEY_ID] } };
  }
}

function leakyCause(): ApiLikeError {
  const inner = new Error(`proxy echoed ${REGISTERED} and ${AWS_KEY_ID}`);
  return new ApiLikeError(`401 Incorrect API key provided: ${OPENAI_KEY} (${REGISTERED})`, { cause: inner });
}

describe('OrgError redacts its cause chain', () => {
  it('leaves nothing of a secret in util.inspect, keeping the cause, its class and its fields', () => {
    const cause = leakyCause();
    expect(cause.stack).toContain(OPENAI_KEY);
    const error = new ProviderError({ provider: 'test', message: 'request failed', cause });
    expectClean(inspect(error, { depth: 10 }));
    expectClean(inspect(error, { depth: 10, showHidden: true }));
    expect(error.cause).toBe(cause);
    expect(error.cause).toBeInstanceOf(ApiLikeError);
    expect(cause.status).toBe(401);
    // A credential-named field is redacted whole, whatever it holds (issue 18, class 7).
    expect(cause.headers.authorization).toBe('[REDACTED]');
    expect(cause.message).toBe('401 Incorrect API key provided: [REDACTED] ([REDACTED])');
    expect((cause.cause as Error).message).toBe('proxy echoed [REDACTED] and [REDACTED]');
  });

  it('redacts fetch Headers, replacing immutable response headers by a redacted Headers', async () => {
    const response = new Response('{}', { headers: { 'x-echo': REGISTERED, 'request-id': 'req_1' } });
    const cause = Object.assign(new Error('401'), { headers: response.headers });
    const error = new OrgError('provider_error', { message: 'failed', cause });
    expectClean(inspect(error, { depth: 10 }));
    expect(cause.headers).toBeInstanceOf(Headers);
    expect(cause.headers.get('request-id')).toBe('req_1');
    expect(cause.headers.get('x-echo')).toBe('[REDACTED]');
    await response.text();
  });

  it('copies a frozen cause, keeping its class', () => {
    const cause = Object.freeze(leakyCause());
    const error = new OrgError('provider_error', { message: 'failed', cause });
    expectClean(inspect(error, { depth: 10 }));
    expect(error.cause).not.toBe(cause);
    expect(error.cause).toBeInstanceOf(ApiLikeError);
    expect((error.cause as ApiLikeError).status).toBe(401);
  });

  it('keeps cycles, including through a frozen object, without leaking', () => {
    const a: Record<string, unknown> = { note: `token ${REGISTERED}` };
    const frozen = Object.freeze({ back: a, text: `api_key=${OPENAI_KEY}` });
    a.frozen = frozen;
    a.self = a;
    const cause = Object.assign(new Error(`loop ${REGISTERED}`), { graph: a });
    (cause as { again?: unknown }).again = cause;
    const error = new OrgError('provider_error', { message: 'failed', cause });
    expectClean(inspect(error, { depth: 10 }));
    expect(a.self).toBe(a);
  });

  it('never throws on hostile causes', () => {
    const throwingGetter = Object.defineProperty(new Error(`x ${REGISTERED}`), 'headers', {
      enumerable: true,
      get(): never {
        throw new Error('boom');
      },
    });
    const revocable = Proxy.revocable({}, {});
    revocable.revoke();
    const trap = new Proxy(
      {},
      {
        ownKeys(): never {
          throw new Error('trap');
        },
      },
    );
    let deep: Record<string, unknown> = { secret: REGISTERED };
    for (let index = 0; index < 100; index++) deep = { cause: deep };
    const hostile: unknown[] = [
      throwingGetter,
      revocable.proxy,
      trap,
      Object.freeze([`Bearer ${REGISTERED}`]),
      Object.create(null),
      deep,
      Symbol('s'),
      42n,
      () => REGISTERED,
      new Map([['k', REGISTERED]]),
      new Set([REGISTERED]),
      `string cause ${REGISTERED}`,
    ];
    for (const cause of hostile) {
      const error = new AbortedError({ operation: 'op', cause });
      expectClean(inspect(error.cause, { depth: 200 }).replace('() => REGISTERED', ''));
    }
    expect(() => redactCause(throwingGetter)).not.toThrow();
  });

  it('redacts a string cause and leaves other primitives alone', () => {
    expect(redactCause(`key ${OPENAI_KEY}`)).toBe('key [REDACTED]');
    expect(redactCause(7)).toBe(7);
    expect(redactCause(null)).toBeNull();
  });
});
