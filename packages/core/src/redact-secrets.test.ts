import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactSecrets, redactSecretsDeep, registerSecret } from './redact-secrets.js';

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
