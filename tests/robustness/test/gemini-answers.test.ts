// Hostile Gemini answers through @org/provider-google and the real @google/genai SDK, and hostile schemas through
// core's Gemini OpenAPI-subset converter. Whatever the server sends (wrong types anywhere, `__proto__` and
// `constructor` keys, non-object arguments, parts of unknown kinds, signatures on any part, missing finish reasons),
// `generate` returns a response or throws an error of the family, `stream` never throws and ends with exactly one
// `finish` or `error` part, both read the same answer the same way, and no prototype is touched.
import { collectStream, type JsonSchema, OrgError, type StreamPart, toGeminiOpenApiSchema } from '@org/core';
import { createGoogle } from '@org/provider-google';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeHttpServer, startFakeHttpServer } from './support/fake-http-server.js';
import { NUM_RUNS, propertyTimeout } from './support/run-helpers.js';

const TOOLS = [
  {
    name: 'get_weather',
    description: 'Weather.',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } } } as JsonSchema,
  },
];

const key = fc.constantFrom('__proto__', 'constructor', 'toString', 'text', 'args', 'id', 'name', 'thought');
const scalar = fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.boolean(), fc.constant(null));
const value = fc.letrec((tie) => ({
  any: fc.oneof(
    { depthSize: 'small' },
    scalar,
    fc.array(tie('any'), { maxLength: 3 }),
    fc.dictionary(key, tie('any'), { maxKeys: 3 }),
  ),
})).any;

const partialArg = fc.record(
  {
    jsonPath: fc.oneof(
      fc.constantFrom(
        '$.city',
        '$.a[0]',
        "$['__proto__']",
        '$.__proto__.x',
        '$',
        'city',
        '$.a[5]',
        '$.a.b',
        '$[0]',
      ),
      value,
    ),
    stringValue: fc.oneof(fc.string({ maxLength: 6 }), value),
    numberValue: fc.oneof(fc.double(), value),
    willContinue: fc.boolean(),
  },
  { requiredKeys: [] },
);
const part = fc.oneof(
  fc.record({ text: fc.oneof(fc.string({ maxLength: 20 }), value) }, { requiredKeys: [] }),
  fc.record(
    {
      text: fc.string({ maxLength: 20 }),
      thought: fc.oneof(fc.constant(true), value),
      thoughtSignature: fc.oneof(fc.base64String({ maxLength: 16 }), value),
    },
    { requiredKeys: ['text'] },
  ),
  fc.record(
    {
      functionCall: fc.oneof(
        fc.record(
          {
            name: fc.oneof(fc.constantFrom('get_weather', 'other'), value),
            args: fc.oneof(fc.dictionary(key, value, { maxKeys: 3 }), value),
            id: fc.oneof(fc.string({ maxLength: 6 }), value),
            willContinue: fc.oneof(fc.boolean(), value),
            partialArgs: fc.oneof(fc.array(partialArg, { maxLength: 3 }), value),
          },
          { requiredKeys: ['name'] },
        ),
        value,
      ),
      thoughtSignature: fc.base64String({ maxLength: 16 }),
    },
    { requiredKeys: ['functionCall'] },
  ),
  fc.dictionary(key, value, { maxKeys: 3 }),
  fc.record({ executableCode: fc.record({ code: fc.string() }) }),
);
const candidate = fc.record(
  {
    content: fc.oneof(
      fc.record({ role: fc.constant('model'), parts: fc.array(part, { maxLength: 4 }) }),
      value,
    ),
    finishReason: fc.oneof(
      fc.constantFrom('STOP', 'MAX_TOKENS', 'SAFETY', 'MALFORMED_FUNCTION_CALL', 'OTHER'),
      value,
    ),
  },
  { requiredKeys: [] },
);
const chunk = fc.record(
  {
    candidates: fc.oneof(fc.array(candidate, { maxLength: 2 }), value),
    usageMetadata: fc.oneof(
      fc.record({ promptTokenCount: fc.nat(99), candidatesTokenCount: fc.oneof(fc.nat(99), value) }),
      value,
    ),
    promptFeedback: fc.oneof(fc.record({ blockReason: fc.oneof(fc.constant('SAFETY'), value) }), value),
  },
  { requiredKeys: ['candidates'] },
);

let server: FakeHttpServer;
beforeAll(async () => {
  server = await startFakeHttpServer();
});
afterAll(async () => {
  await server.close();
});

function prototypesUntouched(): void {
  expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain('polluted');
  expect(({} as Record<string, unknown>).text).toBeUndefined();
}

describe('hostile Gemini answers', () => {
  it(
    'generate returns or throws an error of the family; stream ends with one finish or error; both agree',
    async () => {
      const model = createGoogle({ apiKey: 'robustness-key', baseURL: server.baseURL, maxRetries: 0 })(
        'gemini-3-flash',
      );
      await fc.assert(
        fc.asyncProperty(chunk, async (answer) => {
          const body = JSON.stringify(answer);
          server.enqueue((response) => {
            response.writeHead(200, { 'content-type': 'application/json' });
            response.end(body);
          });
          server.enqueue((response) => {
            response.writeHead(200, { 'content-type': 'text/event-stream' });
            response.end(`data: ${body}\r\n\r\n`);
          });
          let generated: unknown;
          try {
            generated = await model.generate({ messages: [{ role: 'user', content: 'Hi' }], tools: TOOLS });
          } catch (error) {
            expect(OrgError.isInstance(error), String(error)).toBe(true);
            generated = error;
          }
          const parts: StreamPart[] = [];
          for await (const streamed of model.stream({
            messages: [{ role: 'user', content: 'Hi' }],
            tools: TOOLS,
          })) {
            parts.push(streamed);
          }
          const ends = parts.filter((streamed) => streamed.type === 'finish' || streamed.type === 'error');
          expect(ends).toHaveLength(1);
          expect(parts.at(-1)).toBe(ends[0]);
          const last = parts.at(-1);
          expect(last?.type === 'error', 'both paths fail, or neither').toBe(OrgError.isInstance(generated));
          if (last?.type === 'error') {
            expect(OrgError.isInstance(last.error), String(last.error)).toBe(true);
          } else {
            const collected = await collectStream(
              (async function* () {
                yield* parts;
              })(),
            );
            const response = generated as {
              text: string;
              toolCalls: { toolName: string; arguments: string }[];
            };
            expect(collected.text).toBe(response.text);
            expect(collected.toolCalls.map((call) => [call.toolName, call.arguments])).toEqual(
              response.toolCalls.map((call) => [call.toolName, call.arguments]),
            );
          }
          prototypesUntouched();
        }),
        { numRuns: Math.max(1, Math.floor(NUM_RUNS / 10)) },
      );
    },
    propertyTimeout(20),
  );
});

describe('hostile Gemini streams', () => {
  it(
    'several hostile chunks, or a cut after them: exactly one finish or error part, never a throw',
    async () => {
      const model = createGoogle({ apiKey: 'robustness-key', baseURL: server.baseURL, maxRetries: 0 })(
        'gemini-3-flash',
      );
      await fc.assert(
        fc.asyncProperty(
          fc.array(chunk, { minLength: 1, maxLength: 5 }),
          fc.boolean(),
          async (chunks, cut) => {
            server.enqueue((response) => {
              response.writeHead(200, { 'content-type': 'text/event-stream' });
              for (const streamed of chunks) response.write(`data: ${JSON.stringify(streamed)}\r\n\r\n`);
              if (cut) response.write('', () => response.socket?.destroy());
              else response.end();
            });
            const parts: StreamPart[] = [];
            for await (const streamed of model.stream({
              messages: [{ role: 'user', content: 'Hi' }],
              tools: TOOLS,
            })) {
              parts.push(streamed);
            }
            const ends = parts.filter((streamed) => streamed.type === 'finish' || streamed.type === 'error');
            expect(ends).toHaveLength(1);
            expect(parts.at(-1)).toBe(ends[0]);
            const last = parts.at(-1);
            if (last?.type === 'error')
              expect(OrgError.isInstance(last.error), String(last.error)).toBe(true);
            prototypesUntouched();
          },
        ),
        { numRuns: Math.max(1, Math.floor(NUM_RUNS / 10)) },
      );
    },
    propertyTimeout(20),
  );
});

describe('hostile schemas for the Gemini OpenAPI subset', () => {
  const schemaKey = fc.constantFrom(
    'type',
    'properties',
    'items',
    'enum',
    'anyOf',
    'oneOf',
    'allOf',
    '$ref',
    '$defs',
    'nullable',
    'required',
    'additionalProperties',
    'const',
    'format',
    '__proto__',
    'constructor',
  );
  const schema = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small' },
      fc.dictionary(
        schemaKey,
        fc.oneof(
          scalar,
          tie('node'),
          fc.array(tie('node'), { maxLength: 3 }),
          fc.constantFrom('string', 'object', 'null', '#/$defs/a', '#'),
        ),
        { maxKeys: 4 },
      ),
      scalar,
    ),
  })).node;

  it('converts or refuses with a path, never throws, never touches a prototype', () => {
    fc.assert(
      fc.property(schema, (input) => {
        const result = toGeminiOpenApiSchema(input as JsonSchema);
        if (result.ok) expect(JSON.stringify(result.schema)).not.toContain('"additionalProperties"');
        else expect(typeof result.refusal.path).toBe('string');
        prototypesUntouched();
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
