import { afterEach, describe, expect, it, vi } from 'vitest';
import { MissingCredentialsError } from '../src/errors.js';
import { createProviderModel, missingCredentials, runDemo } from '../src/index.js';

async function demo(argv: readonly string[], environment: Record<string, string | undefined>) {
  let stdout = '';
  let stderr = '';
  const outcome = await runDemo(argv, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    environment,
    cwd: process.cwd(),
  });
  return { exitCode: outcome.exitCode, stdout, stderr };
}

describe('a real provider without its credentials', () => {
  it('exits with code 2 and names the missing variable, before any model call', async () => {
    const cases: [string, Record<string, string>, string][] = [
      ['openai', {}, 'missing: OPENAI_API_KEY.'],
      ['openai', { OPENAI_API_KEY: '   ' }, 'missing: OPENAI_API_KEY.'],
      ['anthropic', { OPENAI_API_KEY: 'sk-other' }, 'missing: ANTHROPIC_API_KEY.'],
      ['mistral', { OPENAI_API_KEY: 'sk-other' }, 'missing: MISTRAL_API_KEY.'],
      ['bedrock', {}, 'missing: AWS_REGION or AWS_DEFAULT_REGION.'],
      [
        'bedrock',
        { AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMIexample' },
        'missing: AWS_REGION or AWS_DEFAULT_REGION.',
      ],
      ['bedrock', { AWS_REGION: '', AWS_DEFAULT_REGION: '  ' }, 'missing: AWS_REGION or AWS_DEFAULT_REGION.'],
      ['bedrock', { AWS_PROFILE: 'ml' }, 'missing: AWS_REGION or AWS_DEFAULT_REGION.'],
      ['google', { GEMINI_API_KEY: ' ' }, 'missing: GOOGLE_API_KEY or GEMINI_API_KEY.'],
    ];
    for (const [provider, environment, expected] of cases) {
      const outcome = await demo(['--provider', provider, '--model', 'some-model'], environment);
      expect({ provider, environment, exitCode: outcome.exitCode, stderr: outcome.stderr }).toEqual({
        provider,
        environment,
        exitCode: 2,
        stderr: `org-demo: --provider ${provider} needs credentials from the environment; ${expected}\n`,
      });
      expect(outcome.stdout).toBe('');
    }
  });

  it('never prints a secret it found', async () => {
    const outcome = await demo(['--provider', 'bedrock', '--model', 'm'], {
      AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMIexample',
    });
    expect(outcome.stderr).not.toContain('wJalrXUtnFEMIexample');
  });

  it('asks for --model with --provider, and for --provider with --model', async () => {
    expect((await demo(['--provider', 'openai'], { OPENAI_API_KEY: 'sk-test' })).stderr).toBe(
      "org-demo: --provider openai needs --model <id> (the provider's model id).\n",
    );
    expect((await demo(['--model', 'gpt-4.1'], {})).stderr).toContain('--model applies to a real provider');
    expect((await demo(['--provider', 'cohere', '--model', 'x'], {})).stderr).toContain(
      "--provider: unknown value 'cohere'; expected openai, anthropic, bedrock, google, mistral.",
    );
  });

  it('builds the provider model when the environment has what it needs (no request is made)', () => {
    expect(missingCredentials('bedrock', { AWS_PROFILE: 'ml', AWS_DEFAULT_REGION: 'us-west-2' })).toEqual([]);
    const openai = createProviderModel('openai', 'gpt-4.1-mini', { OPENAI_API_KEY: 'sk-test-key' });
    expect([openai.provider.startsWith('openai'), openai.modelId]).toEqual([true, 'gpt-4.1-mini']);
    const anthropic = createProviderModel('anthropic', 'claude-sonnet-4-5', {
      ANTHROPIC_API_KEY: 'sk-ant-test',
    });
    expect(anthropic.modelId).toBe('claude-sonnet-4-5');
    const bedrock = createProviderModel('bedrock', 'us.amazon.nova-pro-v1:0', {
      AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'secret',
      AWS_REGION: 'us-east-1',
    });
    expect(bedrock.modelId).toBe('us.amazon.nova-pro-v1:0');
    // SSO default profiles, instance/container roles and bearer tokens need nothing but a region here.
    expect(missingCredentials('bedrock', { AWS_REGION: 'us-east-1' })).toEqual([]);
    expect(missingCredentials('bedrock', { AWS_REGION: '', AWS_DEFAULT_REGION: 'eu-west-1' })).toEqual([]);
    expect(
      missingCredentials('bedrock', { AWS_BEARER_TOKEN_BEDROCK: 'tok', AWS_DEFAULT_REGION: 'x' }),
    ).toEqual([]);
    try {
      createProviderModel('anthropic', 'claude', {});
      expect.unreachable();
    } catch (error) {
      expect(MissingCredentialsError.isInstance(error)).toBe(true);
      expect((error as MissingCredentialsError).code).toBe('missing_credentials');
      expect((error as MissingCredentialsError).missing).toEqual(['ANTHROPIC_API_KEY']);
    }
  });
});

describe('bedrock credentials come from the AWS SDK chain', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  /** A process environment in which every link of the chain finds nothing, quickly and without a network call. */
  function emptyCredentialChain(): void {
    for (const name of [
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_SESSION_TOKEN',
      'AWS_PROFILE',
      'AWS_BEARER_TOKEN_BEDROCK',
      'AWS_WEB_IDENTITY_TOKEN_FILE',
      'AWS_ROLE_ARN',
      'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
      'AWS_CONTAINER_CREDENTIALS_FULL_URI',
      'AWS_REGION',
    ]) {
      vi.stubEnv(name, undefined);
    }
    vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', '/nonexistent/org-demo/credentials');
    vi.stubEnv('AWS_CONFIG_FILE', '/nonexistent/org-demo/config');
    vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
  }

  it('turns a chain that finds nothing into the missing-credentials error at the first call', async () => {
    emptyCredentialChain();
    // AWS_REGION='' is unset: AWS_DEFAULT_REGION is the region (a '' region would fail before credentials).
    const model = createProviderModel('bedrock', 'us.amazon.nova-pro-v1:0', {
      AWS_REGION: '',
      AWS_DEFAULT_REGION: 'eu-west-1',
    });
    const error = await model.generate({ messages: [{ role: 'user', content: 'hi' }] }).then(
      () => expect.unreachable(),
      (thrown: unknown) => thrown,
    );
    expect(MissingCredentialsError.isInstance(error), String(error)).toBe(true);
    expect((error as MissingCredentialsError).missing).toEqual([
      'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), AWS_PROFILE, or AWS_BEARER_TOKEN_BEDROCK',
    ]);
    expect((error as Error).message).toContain('--provider bedrock found no AWS credentials');

    const parts = [];
    for await (const part of model.stream({ messages: [{ role: 'user', content: 'hi' }] })) parts.push(part);
    const last = parts.at(-1);
    expect(last?.type).toBe('error');
    expect(MissingCredentialsError.isInstance((last as { error: unknown }).error)).toBe(true);
  });
});
