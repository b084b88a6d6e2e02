/**
 * Every BFCL v4 function of ../shared/corpora, described by @org/tools' `gemini` target, goes to Gemini through the
 * adapter and the real SDK, and the fake server, which refuses what the real API refuses (function names, OpenAPI
 * `parameters` outside the subset, both schema fields at once), takes it: as `parametersJsonSchema` for a Gemini 3
 * model, and converted to the OpenAPI subset for a model declared `gemini-2.0`, where a schema the subset cannot
 * express is refused before sending with a typed error naming the tool and the node a user has to change.
 */
import { readFileSync } from 'node:fs';
import { InvalidRequestError, ToolChoice, type ToolSpec } from '@org/core';
import { defineTool, ToolRegistry } from '@org/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOOGLE_FUNCTION_NAME_PATTERN } from '../src/index.js';
import { type FakeGoogleServer, geminiProvider, startFakeGoogleServer } from './fake-google-server.js';

const CORPUS = new URL('../../../../shared/corpora/bfcl/', import.meta.url);
const CATEGORIES = ['simple_python', 'multiple', 'parallel', 'parallel_multiple'] as const;

interface BfclEntry {
  readonly id: string;
  readonly function: readonly { name: string; description: string; parameters: Record<string, unknown> }[];
}

type Json = Record<string, unknown>;

const entries: BfclEntry[] = CATEGORIES.flatMap((category) =>
  readFileSync(new URL(`BFCL_v4_${category}.json`, CORPUS), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as BfclEntry),
);

function specsOf(entry: BfclEntry): ToolSpec[] {
  const registry = new ToolRegistry(
    entry.function.map((fn) =>
      defineTool({
        name: fn.name,
        description: fn.description,
        input: fn.parameters,
        execute: (args) => args,
      }),
    ),
  );
  return registry.specs({ target: 'gemini' });
}

/** The node a path names in a schema (`properties/a/items`), or `undefined` when it names none. */
function nodeAt(schema: unknown, path: string): unknown {
  let node = schema;
  for (const segment of path === '' ? [] : path.split('/')) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, segment)) return undefined;
    node = (node as Json)[segment];
  }
  return node;
}

let server: FakeGoogleServer;
beforeAll(async () => {
  server = await startFakeGoogleServer();
});
afterAll(async () => {
  await server.close();
});

describe('BFCL v4 functions described for Gemini', { timeout: 120_000 }, () => {
  it('every entry is taken as parametersJsonSchema (Gemini 3), names and argument names intact', async () => {
    expect(entries.length).toBe(1000);
    const model = geminiProvider(server.baseURL)('gemini-3-flash');
    let functions = 0;
    for (const entry of entries) {
      const specs = specsOf(entry);
      server.enqueue({ type: 'response', text: 'ok' });
      const response = await model.generate({
        messages: [{ role: 'user', content: entry.id }],
        tools: specs,
        toolChoice: ToolChoice.required(),
      });
      expect(response.text, entry.id).toBe('ok');
      const body = server.requests.at(-1)?.body as Json;
      const declarations = (body.tools as { functionDeclarations: Json[] }[])[0]?.functionDeclarations ?? [];
      expect(declarations.map((declaration) => declaration.name)).toEqual(specs.map((spec) => spec.name));
      for (const [index, declaration] of declarations.entries()) {
        expect(String(declaration.name)).toMatch(GOOGLE_FUNCTION_NAME_PATTERN);
        expect(declaration.parameters, `${entry.id} ${String(declaration.name)}`).toBeUndefined();
        const schema = declaration.parametersJsonSchema as Json;
        expect(schema.type).toBe('object');
        // BFCL's property names are all ones Gemini takes: none is renamed.
        expect(Object.keys((schema.properties as Json | undefined) ?? {})).toEqual(
          Object.keys(specs[index]?.inputSchema.properties ?? {}),
        );
      }
      expect(response.adjustments.filter((adjustment) => adjustment.kind === 'schema-adapted')).toEqual([]);
      functions += declarations.length;
    }
    expect(functions).toBeGreaterThan(1600);
  });

  it('every entry is taken in the OpenAPI subset (Gemini 2.0), or refused before sending naming the tool and the node', async () => {
    const model = geminiProvider(server.baseURL)('gemini-2.0-flash', { family: 'gemini-2.0' });
    let described = 0;
    let refused = 0;
    const refusedTools = new Set<string>();
    for (const entry of entries) {
      const specs = specsOf(entry);
      const before = server.requests.length;
      server.enqueue({ type: 'response', text: 'ok' });
      const outcome = await model
        .generate({
          messages: [{ role: 'user', content: entry.id }],
          tools: specs,
          toolChoice: ToolChoice.required(),
        })
        .catch((thrown: unknown) => thrown);
      if (outcome instanceof Error) {
        expect(InvalidRequestError.isInstance(outcome), `${entry.id}: ${String(outcome)}`).toBe(true);
        expect((outcome as InvalidRequestError).providerCode).toBe('schema_not_expressible');
        expect(server.requests.length, `${entry.id}: nothing sent`).toBe(before);
        const located = /^Tool '([^']+)': the schema(?: at '([^']+)')? cannot be sent/.exec(outcome.message);
        expect(located, outcome.message).not.toBeNull();
        const [, toolName = '', path = ''] = located ?? [];
        const spec = specs.find((candidate) => candidate.name === toolName);
        expect(spec, `${entry.id}: the refusal names a tool of the request`).toBeDefined();
        expect(nodeAt(spec?.inputSchema, path), `${entry.id}: '${path}' exists`).toBeDefined();
        refusedTools.add(toolName);
        refused++;
        // The scripted reply was not used: take it back off the queue with a request that succeeds.
        await model.generate({ messages: [{ role: 'user', content: 'drain' }] });
        continue;
      }
      expect((outcome as { text: string }).text, entry.id).toBe('ok');
      const body = server.requests.at(-1)?.body as Json;
      const declarations = (body.tools as { functionDeclarations: Json[] }[])[0]?.functionDeclarations ?? [];
      expect(declarations.map((declaration) => declaration.name)).toEqual(specs.map((spec) => spec.name));
      for (const [index, declaration] of declarations.entries()) {
        expect(declaration.parametersJsonSchema).toBeUndefined();
        const schema = declaration.parameters as Json;
        expect(schema.type).toBe('OBJECT');
        expect(Object.keys((schema.properties as Json | undefined) ?? {})).toEqual(
          Object.keys(specs[index]?.inputSchema.properties ?? {}),
        );
      }
      described++;
    }
    expect(described + refused).toBe(entries.length);
    // v4: 11 entries (6 distinct functions) hold an object without properties or an untyped value.
    expect(refused).toBe(11);
    expect(refusedTools.size).toBe(6);
  });
});
