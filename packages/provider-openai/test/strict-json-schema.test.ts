import type { JsonSchema } from '@org/core';
import { describe, expect, it } from 'vitest';
import { strictSchemaProblem } from '../src/strict-json-schema.js';

const closed = (properties: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});

describe('strictSchemaProblem: is the schema strict-expressible as it stands', () => {
  it('accepts the strict dialect: closed objects, all required, nullable types, anyOf, $defs and $ref, arrays', () => {
    const schema: JsonSchema = {
      ...closed({
        city: { type: 'string', pattern: '^[A-Z]' },
        days: { type: ['integer', 'null'], minimum: 1 },
        when: { type: 'string', format: 'date' },
        tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, maxItems: 3 },
        place: { $ref: '#/$defs/place' },
        either: { anyOf: [{ type: 'string' }, closed({ n: { type: 'number' } })] },
      }),
      $defs: { place: closed({ name: { type: 'string' } }) },
    };
    expect(strictSchemaProblem(schema)).toBeUndefined();
  });

  const PROBLEMS: readonly [string, JsonSchema, string][] = [
    ['an array at the root', { type: 'array', items: { type: 'string' } }, 'root must be a single object'],
    [
      'an open object',
      { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
      'additionalProperties must be false',
    ],
    [
      'an optional property',
      { ...closed({ a: { type: 'string' } }), required: [] },
      'every property must be required (not: a)',
    ],
    ['an unsupported keyword', closed({ a: { type: 'string', minLength: 2 } }), "'minLength'"],
    ['an unsupported format', closed({ a: { type: 'string', format: 'uri' } }), "format 'uri'"],
    ['an untyped value', closed({ a: {} }), 'without a type'],
    ['an array without items', closed({ a: { type: 'array' } }), 'needs items'],
    [
      'a nested open object',
      closed({ a: { type: 'object', properties: {} } }),
      'at /properties/a: additionalProperties',
    ],
  ];
  for (const [name, schema, fragment] of PROBLEMS) {
    it(`refuses ${name}`, () => {
      expect(strictSchemaProblem(schema)).toContain(fragment);
    });
  }

  it('refuses more than 10 levels of objects', () => {
    let schema: JsonSchema = closed({ leaf: { type: 'string' } });
    for (let level = 0; level < 10; level++) schema = closed({ child: schema });
    expect(strictSchemaProblem(schema)).toContain('more than 10 levels');
  });
});
