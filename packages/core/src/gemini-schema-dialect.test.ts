import { describe, expect, it } from 'vitest';
import { toGeminiOpenApiSchema } from './gemini-schema-dialect.js';
import type { JsonSchema } from './json.js';

function converted(schema: JsonSchema): JsonSchema {
  const result = toGeminiOpenApiSchema(schema);
  if (!result.ok) throw new Error(`refused at '${result.refusal.path}': ${result.refusal.message}`);
  return result.schema;
}

function refusal(schema: JsonSchema): { path: string; message: string } {
  const result = toGeminiOpenApiSchema(schema);
  if (result.ok) throw new Error(`converted: ${JSON.stringify(result.schema)}`);
  return result.refusal;
}

describe('toGeminiOpenApiSchema', () => {
  it('turns null types, null enum members and null anyOf branches into nullable', () => {
    expect(
      converted({
        type: 'object',
        properties: {
          unit: { type: ['string', 'null'], enum: ['c', 'f', null] },
          days: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }], description: 'How many days.' },
        },
        required: ['unit'],
        additionalProperties: false,
      }),
    ).toEqual({
      type: 'object',
      properties: {
        unit: { type: 'string', enum: ['c', 'f'], nullable: true },
        days: { type: 'integer', minimum: 1, nullable: true, description: 'How many days.' },
      },
      required: ['unit'],
    });
  });

  it('restates what only constrains values (non-string enums, const, multipleOf, formats) in the description', () => {
    expect(
      converted({
        type: 'object',
        properties: {
          level: { type: 'integer', enum: [1, 2, 3], description: 'Level.' },
          step: { type: 'number', multipleOf: 0.5 },
          email: { type: 'string', format: 'email' },
          when: { type: 'string', format: 'date-time' },
          kind: { type: 'string', const: 'fixed' },
        },
      }),
    ).toEqual({
      type: 'object',
      properties: {
        level: { type: 'integer', description: 'Level. (one of: 1, 2, 3)' },
        step: { type: 'number', description: '(multipleOf: 0.5)' },
        email: { type: 'string', description: '(format: email)' },
        when: { type: 'string', format: 'date-time' },
        kind: { type: 'string', enum: ['fixed'] },
      },
    });
  });

  it('inlines local references, turns oneOf and several types into anyOf', () => {
    expect(
      converted({
        type: 'object',
        $defs: { Point: { type: 'object', properties: { x: { type: 'number' } } } },
        properties: {
          at: { $ref: '#/$defs/Point' },
          id: { type: ['string', 'integer'] },
          shape: { oneOf: [{ type: 'string' }, { $ref: '#/$defs/Point' }] },
        },
      }),
    ).toEqual({
      type: 'object',
      properties: {
        at: { type: 'object', properties: { x: { type: 'number' } } },
        id: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
        shape: { anyOf: [{ type: 'string' }, { type: 'object', properties: { x: { type: 'number' } } }] },
      },
    });
  });

  it('refuses what it cannot express, naming the node', () => {
    expect(
      refusal({
        type: 'object',
        properties: { tags: { type: 'object', additionalProperties: { type: 'string' } } },
      }).path,
    ).toBe('properties/tags/additionalProperties');
    expect(refusal({ type: 'object', properties: { blob: {} } }).path).toBe('properties/blob');
    expect(refusal({ type: 'object', properties: { pair: { type: 'array', prefixItems: [] } } }).path).toBe(
      'properties/pair/prefixItems',
    );
    expect(refusal({ type: 'object', properties: { a: { allOf: [] } } }).path).toBe('properties/a/allOf');
    const tree: JsonSchema = {
      type: 'object',
      $defs: { Node: { type: 'object', properties: { child: { $ref: '#/$defs/Node' } } } },
      properties: { root: { $ref: '#/$defs/Node' } },
    };
    expect(refusal(tree)).toMatchObject({ path: 'properties/root/properties/child' });
    expect(refusal(tree).message).toContain('recursive');
  });

  it('keeps a property named __proto__ as data', () => {
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}') as JsonSchema;
    const result = converted(schema);
    expect(Object.keys(result.properties ?? {})).toEqual(['__proto__']);
  });
});
