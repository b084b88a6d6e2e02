import { describe, expect, it } from 'vitest';
import { type InvalidToolSchemaError, normalizeJsonSchema } from './index.js';

describe('normalizeJsonSchema', () => {
  it('maps the loose type names found in the wild', () => {
    const loose = {
      type: 'dict',
      properties: {
        a: { type: 'float' },
        b: { type: 'double' },
        c: { type: 'long' },
        d: { type: 'tuple', items: { type: 'integer' } },
        e: { type: 'any' },
        f: { type: 'HashMap' },
        g: { type: 'str' },
        h: { type: 'bool' },
        i: { type: 'List', items: { type: 'Dict', properties: { x: { type: 'int' } } } },
      },
      required: ['a'],
    };
    expect(normalizeJsonSchema(loose)).toEqual({
      type: 'object',
      properties: {
        a: { type: 'number' },
        b: { type: 'number' },
        c: { type: 'integer' },
        d: { type: 'array', items: { type: 'integer' } },
        e: {},
        f: { type: 'object' },
        g: { type: 'string' },
        h: { type: 'boolean' },
        i: { type: 'array', items: { type: 'object', properties: { x: { type: 'integer' } } } },
      },
      required: ['a'],
    });
  });

  it('folds optional: true and per-property required: true into the parent', () => {
    expect(
      normalizeJsonSchema({
        type: 'object',
        properties: { a: { type: 'string', required: true }, b: { type: 'string', optional: true } },
        required: ['b'],
      }),
    ).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
      required: ['a'],
    });
  });

  it('turns draft-7 tuples into prefixItems and OpenAPI nullable into a null type', () => {
    expect(
      normalizeJsonSchema({
        type: 'array',
        items: [{ type: 'string' }, { type: 'number' }],
        additionalItems: false,
      }),
    ).toEqual({
      type: 'array',
      prefixItems: [{ type: 'string' }, { type: 'number' }],
      items: false,
    });
    expect(normalizeJsonSchema({ type: 'string', nullable: true, enum: ['a'] })).toEqual({
      type: ['string', 'null'],
      enum: ['a', null],
    });
    expect(normalizeJsonSchema({ properties: { a: { type: 'string' } } })).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
    });
  });

  it('refuses unknown types and malformed keywords with the path', () => {
    const attempt = (schema: unknown) => {
      try {
        normalizeJsonSchema(schema);
      } catch (error) {
        return error as InvalidToolSchemaError;
      }
      throw new Error('expected a failure');
    };
    expect(attempt({ type: 'object', properties: { a: { type: 'complex' } } }).path).toBe(
      'properties/a/type',
    );
    expect(attempt({ type: 'object', properties: { a: { type: 'string', enum: 'x' } } }).path).toBe(
      'properties/a/enum',
    );
    expect(attempt({ type: 'object', required: [1] }).code).toBe('invalid_tool_schema');
    expect(attempt('string').code).toBe('invalid_tool_schema');
  });

  it('keeps a property named __proto__ as data', () => {
    const loose = JSON.parse('{"type": "object", "properties": {"__proto__": {"type": "string"}}}');
    const schema = normalizeJsonSchema(loose);
    expect(Object.hasOwn(schema.properties ?? {}, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(schema.properties)).toBe(Object.prototype);
  });
});
