/**
 * Issue 18, class 7: secrets in other shapes. A registered key is redacted in every form it is sent in (trimmed,
 * URL-encoded, JSON-escaped, base64 in HTTP Basic at any alignment), credential-named fields are redacted wherever
 * they appear (`redactSecretsDeep`, the SDK loggers, error causes), and no path by which a tool's text reaches the
 * model or an event carries a registered secret: a tool's output (the model's view), its thrown error, a hook's
 * reason. `rawOutput` is the one deliberate exception: it is the tool's value, kept untouched for the caller.
 */
import {
  isCredentialName,
  type Message,
  type RunEvent,
  redactCause,
  redactSecrets,
  redactSecretsDeep,
  registerHeaderSecrets,
  registerSecret,
} from '@org/core';
import { runAgent } from '@org/planner';
import { createScriptedModel } from '@org/provider-scripted';
import {
  defineTool,
  executeAction,
  formatObservationForModel,
  serializeOutput,
  ToolRegistry,
} from '@org/tools';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { assertEveryCallAnsweredOnce, NUM_RUNS, propertyTimeout } from './support/run-helpers.js';

/**
 * The secrets of this file, registered once (the registry is process-wide and only grows): as read from a file
 * (trailing newline), with characters that URL-encoding and JSON escape, non-ASCII, and plain.
 */
const SECRETS = [
  'plain-secret-0123456789abcdef',
  'from-a-file-5f2e9c1d7b\n',
  '  padded-key-with-spaces-77  ',
  'needs/url+encoding=&and?more',
  'quote"and\\backslash-key-42',
  'ünïcödé-ключ-密钥-2024',
  'sk-proj-AbCdEf0123456789xyz',
];
for (const secret of SECRETS) registerSecret(secret);
const PROXY_TOKEN = 'proxy-token-9f8e7d6c5b4a';
const BASIC_PASSWORD = 'basic-password-31337';
registerHeaderSecrets({
  'X-Proxy-Token': PROXY_TOKEN,
  authorization: `Basic ${btoa(`svc-user:${BASIC_PASSWORD}`)}`,
  'x-request-id': 'not-a-secret-request-id',
});

const base64 = (text: string): string => {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
};

/** The forms a secret is sent in, each as a server or a log would echo it. */
function sentForms(secret: string, user: string): string[] {
  const trimmed = secret.trim();
  return [
    trimmed,
    encodeURIComponent(trimmed),
    JSON.stringify(trimmed).slice(1, -1),
    base64(`${user}:${trimmed}`),
    base64(trimmed),
  ];
}

/** Whether `text` shows the secret: any of its sent forms whole, or its trimmed value. */
function leaks(text: string, secret: string, user: string): boolean {
  const trimmed = secret.trim();
  if (text.includes(trimmed)) return true;
  if (text.includes(encodeURIComponent(trimmed))) return true;
  if (text.includes(JSON.stringify(trimmed).slice(1, -1))) return true;
  // A base64 form leaks when its secret-only part is visible: the whole encoded value minus what the user and the
  // padding decide.
  const encoded = base64(`${user}:${trimmed}`).replace(/=+$/, '');
  const inner = encoded.slice(Math.ceil(((user.length + 1) * 4) / 3) + 4, -4);
  return inner.length >= 8 && text.includes(inner);
}

/** Events as text, without `rawOutput` (the tool's own value, kept for the caller by contract). */
function eventsText(events: readonly RunEvent[]): string {
  return JSON.stringify(events, (key, value: unknown) => (key === 'rawOutput' ? undefined : value));
}

const secretArbitrary = fc.constantFrom(...SECRETS, PROXY_TOKEN, BASIC_PASSWORD);
const userArbitrary = fc.constantFrom('', 'a', 'ab', 'abc', 'user', 'svc-user', 'ünï');
const formIndex = fc.integer({ min: 0, max: 4 });
const surrounding = fc.string({ maxLength: 40 });

describe('Issue 18 class 7: a registered secret is redacted in every form it is sent in', () => {
  it('a key with its trailing newline, URL-encoded, JSON-escaped, in HTTP Basic at any alignment, in a custom header', () => {
    for (const secret of SECRETS) {
      for (const user of ['', 'a', 'ab', 'abc', 'user', 'svc-user']) {
        for (const form of sentForms(secret, user)) {
          const text = redactSecrets(`server said: ${form} (echo)`);
          expect(leaks(text, secret, user), `${JSON.stringify(secret)} as ${form}: ${text}`).toBe(false);
        }
      }
    }
    expect(redactSecrets(`token ${PROXY_TOKEN}`)).not.toContain(PROXY_TOKEN);
    expect(redactSecrets(`pw ${BASIC_PASSWORD}`)).not.toContain(BASIC_PASSWORD);
    expect(redactSecrets('x-request-id: not-a-secret-request-id')).toContain('not-a-secret-request-id');
  });

  it('property: whatever surrounds a secret in whatever form, redactSecrets never lets it through', () => {
    fc.assert(
      fc.property(
        secretArbitrary,
        userArbitrary,
        formIndex,
        surrounding,
        surrounding,
        (secret, user, index, before, after) => {
          const form = sentForms(secret, user)[index] as string;
          expect(leaks(redactSecrets(`${before}${form}${after}`), secret, user)).toBe(false);
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });
});

describe('Issue 18 class 7: credential-named fields are redacted wherever they appear', () => {
  const CREDENTIAL_NAMES = [
    'password',
    'api_key',
    'apiKey',
    'x-api-key',
    'Authorization',
    'access_token',
    'sessionToken',
    'x-amz-security-token',
    'client_secret',
    'secretAccessKey',
    'privateKey',
    'cookie',
    'credentials',
    'X-Proxy-Token',
  ];
  const ORDINARY_NAMES = [
    'max_tokens',
    'inputTokens',
    'token_count',
    'keys',
    'name',
    'url',
    'monkey',
    'author',
  ];

  it('names: credentials recognised, counts and ordinary fields not', () => {
    for (const name of CREDENTIAL_NAMES) expect(isCredentialName(name), name).toBe(true);
    for (const name of ORDINARY_NAMES) expect(isCredentialName(name), name).toBe(false);
  });

  it('property: redactSecretsDeep redacts every credential-named field at any depth, in objects, Maps and Headers', () => {
    const value = fc.string({ minLength: 1, maxLength: 30 }).map((text) => `v4lue-${text}`);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...CREDENTIAL_NAMES), value, fc.integer({ min: 0, max: 6 })), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.constantFrom('object', 'map', 'headers', 'cause'),
        (fields, container) => {
          const root: Record<string, unknown> = { max_tokens: 5, name: 'kept' };
          for (const [name, secret, depth] of fields) {
            let node: Record<string, unknown> = root;
            for (let level = 0; level < depth; level++) {
              const next: Record<string, unknown> = {};
              node[`level${level}`] = [next];
              node = next;
            }
            if (container === 'map') node.entries = new Map([[name, secret]]);
            else if (container === 'headers')
              node.headers = new Headers([[name, secret.replace(/[^\x20-\x7e]/g, 'x')]]);
            else node[name] = secret;
          }
          const cleaned = container === 'cause' ? redactCause(root) : redactSecretsDeep(root);
          const text = JSON.stringify(cleaned, (_key, item: unknown) =>
            item instanceof Map ? Object.fromEntries(item) : item,
          );
          for (const [, secret] of fields) {
            if (container !== 'headers') expect(text).not.toContain(secret);
          }
          if (container === 'headers') {
            const headers = JSON.stringify(redactSecretsDeep(root));
            for (const [, secret] of fields)
              expect(headers).not.toContain(secret.replace(/[^\x20-\x7e]/g, 'x'));
          }
          expect(text).toContain('"max_tokens":5');
          expect(text).toContain('kept');
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });

  it('an SDK debug log line (request details with custom headers) is redacted by the deep redactor the loggers use', () => {
    const logged = redactSecretsDeep({
      method: 'post',
      url: 'https://proxy.example/v1/chat/completions',
      headers: { 'x-proxy-token': 'anything-at-all-123', 'content-type': 'application/json' },
      options: { body: { password: 'hunter2hunter2', messages: [{ content: `key ${SECRETS[0]}` }] } },
    });
    const text = JSON.stringify(logged);
    expect(text).not.toContain('anything-at-all-123');
    expect(text).not.toContain('hunter2hunter2');
    expect(text).not.toContain(SECRETS[0]);
    expect(text).toContain('application/json');
  });
});

describe('Issue 18 class 7: no registered secret reaches the model or an event through a tool', () => {
  it(
    'property: a secret in any form in a tool output (string, key, nested, shared), a thrown error or a hook reason',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          secretArbitrary,
          userArbitrary,
          formIndex,
          surrounding,
          fc.constantFrom('string', 'value', 'key', 'shared', 'throw', 'throw-object', 'block', 'rewrite'),
          async (secret, user, index, around, where) => {
            const form = sentForms(secret, user)[index] as string;
            const text = `${around}${form}${around}`;
            const shared = { echo: text };
            const output =
              where === 'string'
                ? text
                : where === 'value'
                  ? { nested: [{ deeper: { text } }] }
                  : where === 'key'
                    ? { [text]: 1 }
                    : { a: shared, b: [shared, shared] };
            const registry = new ToolRegistry([
              defineTool({
                name: 'leaky',
                description: 'Echoes what the server sent.',
                input: z.object({}),
                execute: () => {
                  if (where === 'throw') throw new Error(text);
                  if (where === 'throw-object') throw { response: { body: text } };
                  return output;
                },
              }),
            ]);
            const events: RunEvent[] = [];
            const observation = await executeAction(
              registry,
              { id: 'c', toolName: 'leaky', args: {} },
              {
                onEvent: (event) => events.push(event),
                hooks: {
                  beforeToolUse: () => (where === 'block' ? { decision: 'block', reason: text } : undefined),
                  afterToolUse: () => (where === 'rewrite' ? { output: text, reason: text } : undefined),
                },
              },
            );
            const seen = [
              JSON.stringify(observation.output ?? null),
              JSON.stringify(observation.error ?? null),
              JSON.stringify(observation.interceptions ?? null),
              formatObservationForModel(observation),
              eventsText(events),
              JSON.stringify(serializeOutput(output).output),
            ];
            for (const shown of seen) expect(leaks(shown, secret, user), shown.slice(0, 300)).toBe(false);
          },
        ),
        { numRuns: NUM_RUNS },
      );
    },
    propertyTimeout(5),
  );

  it(
    'property: through runAgent with the scripted model: no message, event, observation or answer shows the secret',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          secretArbitrary,
          userArbitrary,
          formIndex,
          fc.constantFrom('return', 'throw'),
          async (secret, user, index, how) => {
            const form = sentForms(secret, user)[index] as string;
            const tools = [
              defineTool({
                name: 'leaky',
                description: 'Echoes what the server sent.',
                input: z.object({}),
                terminal: false,
                execute: () => {
                  if (how === 'throw') throw new Error(`401: bad key ${form}`);
                  return { echoed: { headers: { 'x-echo': form } }, list: [form] };
                },
              }),
            ];
            const model = createScriptedModel({
              script: [{ toolCalls: [{ toolName: 'leaky' }] }, { text: 'done' }],
            });
            const events: RunEvent[] = [];
            const result = await runAgent({
              model,
              tools,
              task: 'Call it.',
              onEvent: (event) => events.push(event),
            });
            assertEveryCallAnsweredOnce(result);
            const toModel = result.messages.map((message: Message) => JSON.stringify(message)).join('\n');
            expect(leaks(toModel, secret, user)).toBe(false);
            // Every request the model received (what a provider would send).
            expect(leaks(JSON.stringify(model.calls), secret, user)).toBe(false);
            expect(leaks(eventsText(events), secret, user)).toBe(false);
            const observations = JSON.stringify(result.observations, (key, value: unknown) =>
              key === 'rawOutput' ? undefined : value,
            );
            expect(leaks(observations, secret, user)).toBe(false);
            expect(leaks(result.text, secret, user)).toBe(false);
          },
        ),
        { numRuns: NUM_RUNS },
      );
    },
    propertyTimeout(10),
  );
});
