/**
 * Every BFCL v4 function of ../shared/corpora, described by both @org/tools targets the planner sends Mistral
 * (`openai-strict` by default, since Mistral's chat families declare `strictSchemas`, where a schema strict mode cannot
 * express goes non-strict; `json-schema` for an `open-weights` model or a planner given `schemaTarget`), goes to
 * Mistral through the adapter and the real SDK, and the fake server, which refuses what the real API refuses, takes it.
 */
import { readFileSync } from 'node:fs';
import { ToolChoice } from '@org/core';
import { defineTool, ToolRegistry } from '@org/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MISTRAL_FUNCTION_NAME_PATTERN } from '../src/index.js';
import { type FakeMistralServer, startFakeMistralServer } from './fake-mistral-server.js';
import { testProvider } from './test-provider.js';

const CORPUS = new URL('../../../../shared/corpora/bfcl/', import.meta.url);
const CATEGORIES = ['simple_python', 'multiple', 'parallel', 'parallel_multiple'] as const;

interface BfclFunction {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

const entries = CATEGORIES.flatMap((category) =>
  readFileSync(new URL(`BFCL_v4_${category}.json`, CORPUS), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { id: string; function: BfclFunction[] }),
);

let server: FakeMistralServer;
beforeAll(async () => {
  server = await startFakeMistralServer();
});
afterAll(async () => {
  await server.close();
});

describe('BFCL v4 functions described for Mistral', { timeout: 120_000 }, () => {
  it.each(['openai-strict', 'json-schema'] as const)(
    '%s: every entry is sent, its tools refused by nothing, their names and argument names intact',
    async (target) => {
      expect(entries.length).toBe(1000);
      const model = testProvider(server)('mistral-large-latest');
      let functions = 0;
      let strict = 0;
      for (const entry of entries) {
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
        const specs = registry.specs({ target });
        server.enqueue({ type: 'response', text: 'ok' });
        const response = await model.generate({
          messages: [{ role: 'user', content: entry.id }],
          tools: specs,
          toolChoice: ToolChoice.required(),
        });
        expect(response.text, entry.id).toBe('ok');
        const sent = server.requests.at(-1)?.body.tools ?? [];
        expect(sent.map((tool) => tool.function.name)).toEqual(specs.map((spec) => spec.name));
        for (const [index, tool] of sent.entries()) {
          expect(tool.function.name).toMatch(MISTRAL_FUNCTION_NAME_PATTERN);
          expect(tool.function.parameters.type, `${entry.id} ${tool.function.name}`).toBe('object');
          expect(Object.keys(tool.function.parameters.properties ?? {})).toEqual(
            Object.keys(specs[index]?.inputSchema.properties ?? {}),
          );
          expect(JSON.stringify(tool.function.parameters)).not.toMatch(/"type":"(dict|float|tuple|any)"/);
          // A strict spec goes out with `strict: true`, one strict mode cannot express without it.
          expect(tool.function.strict === true, `${entry.id} ${tool.function.name}`).toBe(
            specs[index]?.strict === true,
          );
          if (tool.function.strict === true) strict += 1;
        }
        functions += sent.length;
      }
      expect(functions).toBeGreaterThan(1600);
      if (target === 'openai-strict') expect(strict).toBeGreaterThan(functions / 2);
      else expect(strict).toBe(0);
    },
  );
});
