import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from './json.js';
import { mapPropertyNames, type PropertyNameRules } from './property-name-mapping.js';

const RULES: PropertyNameRules = {
  allowedCharacter: /[a-zA-Z0-9_.-]/,
  maxLength: 64,
  description: '^[a-zA-Z0-9_.-]{1,64}$',
};
const ACCEPTED = /^[a-zA-Z0-9_.-]{1,64}$/;

function rewrite(
  rewriter: ReturnType<ReturnType<typeof mapPropertyNames>['argumentsFromWire']>,
  text: string,
) {
  return rewriter.push(text) + rewriter.end();
}

describe('mapPropertyNames', () => {
  it('renames refused names readably and one-to-one, keeping accepted ones and the caller’s schema', () => {
    const long = 'x'.repeat(70);
    const schema: JsonSchema = {
      type: 'object',
      properties: {
        año_vehiculo: { type: 'integer' },
        ano_vehiculo: { type: 'string' },
        'filter[id]': { type: 'string' },
        $top: { type: 'integer' },
        [long]: { type: 'string' },
        '': { type: 'string' },
        properties: { type: 'object', properties: { 'a b': { type: 'string' } }, required: ['a b'] },
      },
      required: ['año_vehiculo', 'filter[id]'],
    };
    const copy = structuredClone(schema);
    const mapping = mapPropertyNames(schema, RULES);
    expect(schema).toEqual(copy);
    expect(Object.fromEntries(mapping.renamed)).toEqual({
      año_vehiculo: 'ano_vehiculo_2',
      'filter[id]': 'filter_id_',
      $top: '_top',
      [long]: expect.stringMatching(/^x{56}_[0-9a-z]{7}$/),
      '': '_',
      'a b': 'a_b',
    });
    expect(Object.keys(mapping.schema.properties ?? {})).toEqual([
      'ano_vehiculo_2',
      'ano_vehiculo',
      'filter_id_',
      '_top',
      mapping.renamed.get(long),
      '_',
      'properties',
    ]);
    expect(mapping.schema.required).toEqual(['ano_vehiculo_2', 'filter_id_']);
    expect(mapping.schema.properties?.properties).toEqual({
      type: 'object',
      properties: { a_b: { type: 'string' } },
      required: ['a_b'],
    });
  });

  it('follows $ref, anyOf and array items, and never touches free-form keys', () => {
    const schema: JsonSchema = {
      type: 'object',
      $defs: { Driver: { type: 'object', properties: { años: { type: 'integer' } } } },
      properties: {
        conductores: { type: 'array', items: { $ref: '#/$defs/Driver' } },
        opcion: { anyOf: [{ type: 'object', properties: { só: { type: 'string' } } }, { type: 'string' }] },
        libre: { type: 'object', additionalProperties: { type: 'integer' } },
      },
    };
    const mapping = mapPropertyNames(schema, RULES);
    expect(mapping.schema.$defs).toEqual({
      Driver: { type: 'object', properties: { anos: { type: 'integer' } } },
    });
    const sent = '{"conductores":[{"anos":3},{"anos":4}],"opcion":{"so":"x"},"libre":{"anos":1,"so":2}}';
    expect(rewrite(mapping.argumentsFromWire(), sent)).toBe(
      '{"conductores":[{"años":3},{"años":4}],"opcion":{"só":"x"},"libre":{"anos":1,"so":2}}',
    );
  });

  it('reads a name the model wrote in the tool’s own form, and a recursive schema', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: { 'nodo hijo': { $ref: '#' }, 'valor€': { type: 'integer' } },
    };
    const mapping = mapPropertyNames(schema, RULES);
    expect(rewrite(mapping.argumentsFromWire(), '{"nodo_hijo":{"nodo hijo":{"valor_":1}},"valor€":2}')).toBe(
      '{"nodo hijo":{"nodo hijo":{"valor€":1}},"valor€":2}',
    );
  });

  it('keeps a property named __proto__ an ordinary key', () => {
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"},"a b":{}}}');
    const mapping = mapPropertyNames(schema, RULES);
    expect(Object.keys(mapping.schema.properties ?? {})).toEqual(['__proto__', 'a_b']);
    expect(Object.getPrototypeOf(mapping.schema.properties)).toBe(Object.prototype);
  });

  it('always sends accepted, distinct names, and maps arguments there and back unchanged', () => {
    const name = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 8 }),
      fc.constantFrom('año', 'ano', 'a b', 'a_b', '_', '', 'x'.repeat(80)),
    );
    fc.assert(
      fc.property(
        fc.uniqueArray(
          name.filter((key) => key !== 'nested'),
          { maxLength: 6 },
        ),
        fc.uniqueArray(name, { maxLength: 4 }),
        fc.array(
          fc.oneof(
            fc.bigInt().map(String),
            fc.string().map((text) => JSON.stringify(text)),
          ),
          {
            minLength: 10,
            maxLength: 10,
          },
        ),
        (outer, inner, values) => {
          const schema: JsonSchema = {
            type: 'object',
            properties: Object.fromEntries([
              ...outer.map((key) => [key, { type: 'string' }]),
              ['nested', { type: 'object', properties: Object.fromEntries(inner.map((key) => [key, {}])) }],
            ]),
          };
          const mapping = mapPropertyNames(schema, RULES);
          const sentNames = [...mapping.renamed.values()];
          for (const sent of sentNames) expect(sent).toMatch(ACCEPTED);
          const all = [...new Set([...outer, ...inner, 'nested'])].map(
            (key) => mapping.renamed.get(key) ?? key,
          );
          expect(new Set(all).size).toBe(all.length);

          let next = 0;
          const value = (): string => values[next++ % values.length] ?? 'null';
          const own = `{${outer.map((key) => `${JSON.stringify(key)}: ${value()}`).join(', ')}${
            outer.length > 0 ? ', ' : ''
          }"nested": {${inner.map((key) => `${JSON.stringify(key)}:${value()}`).join(',')}}}`;
          const wire = rewrite(mapping.argumentsToWire(), own);
          expect(rewrite(mapping.argumentsFromWire(), wire)).toBe(own);
          // Sorted: an object lists integer-like keys first.
          expect(Object.keys(JSON.parse(wire) as object).sort()).toEqual(
            [...outer.map((key) => mapping.renamed.get(key) ?? key), 'nested'].sort(),
          );
        },
      ),
    );
  });
});
