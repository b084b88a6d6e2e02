import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InvalidToolSchemaError, SCHEMA_TARGETS, toJsonSchema } from './index.js';

const order = z.object({
  customer: z.string().describe('Customer id'),
  quantity: z.number().int().min(1),
  size: z.enum(['S', 'M', 'L']).optional(),
  gift: z.literal(true).optional(),
  note: z.string().max(200).default(''),
  items: z.array(z.object({ sku: z.string(), price: z.number() })),
  address: z.object({ city: z.string(), zip: z.string().optional() }).optional(),
});

describe('toJsonSchema', () => {
  it('describes a zod schema as JSON Schema: enums from literals, optional vs required, items, descriptions', () => {
    const schema = toJsonSchema(order);
    expect(schema).toMatchObject({
      type: 'object',
      required: ['customer', 'quantity', 'items'],
      properties: {
        customer: { type: 'string', description: 'Customer id' },
        quantity: { type: 'integer', minimum: 1 },
        size: { type: 'string', enum: ['S', 'M', 'L'] },
        gift: { type: 'boolean', const: true },
        note: { type: 'string', maxLength: 200, default: '' },
        items: {
          type: 'array',
          items: {
            type: 'object',
            properties: { sku: { type: 'string' }, price: { type: 'number' } },
            required: ['sku', 'price'],
          },
        },
      },
    });
    expect(schema).not.toHaveProperty('$schema');
  });

  it('makes openai-strict schemas: all required, optional nullable, objects closed, unsupported keywords restated', () => {
    const schema = toJsonSchema(order, { target: 'openai-strict' });
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(['customer', 'quantity', 'size', 'gift', 'note', 'items', 'address']);
    expect(schema.properties?.size).toEqual({ type: ['string', 'null'], enum: ['S', 'M', 'L', null] });
    expect(schema.properties?.gift).toEqual({ type: ['boolean', 'null'], enum: [true, null] });
    expect(schema.properties?.note).toEqual({
      type: ['string', 'null'],
      description: '(default: ""; maxLength: 200)',
    });
    expect(schema.properties?.address).toEqual({
      type: ['object', 'null'],
      properties: { city: { type: 'string' }, zip: { type: ['string', 'null'] } },
      required: ['city', 'zip'],
      additionalProperties: false,
    });
    expect(schema.properties?.items?.items).toMatchObject({
      additionalProperties: false,
      required: ['sku', 'price'],
    });
  });

  it('turns oneOf into anyOf and nullable unions into anyOf with null for strict mode', () => {
    const schema = toJsonSchema(
      { type: 'object', properties: { id: { oneOf: [{ type: 'string' }, { type: 'integer' }] } } },
      { target: 'openai-strict' },
    );
    expect(schema.properties?.id).toEqual({
      anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }],
    });
  });

  it('refuses what strict mode cannot express, with the path and the target', () => {
    const cases = [
      { type: 'object', properties: { meta: { type: 'object' } } },
      { type: 'object', properties: { meta: { type: 'object', additionalProperties: { type: 'string' } } } },
      { type: 'object', properties: { anything: {} } },
      {
        type: 'object',
        properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] } },
      },
    ];
    for (const schema of cases) {
      try {
        toJsonSchema(schema, { target: 'openai-strict', toolName: 't' });
        throw new Error('expected a failure');
      } catch (error) {
        expect(InvalidToolSchemaError.isInstance(error)).toBe(true);
        expect((error as InvalidToolSchemaError).target).toBe('openai-strict');
        expect((error as InvalidToolSchemaError).path).toMatch(/^properties\//);
      }
    }
  });

  it('requires an object at the root for anthropic and bedrock', () => {
    for (const target of ['anthropic', 'bedrock'] as const) {
      expect(() => toJsonSchema({ type: 'string' }, { target })).toThrow(InvalidToolSchemaError);
      expect(() =>
        toJsonSchema({ anyOf: [{ type: 'object' }, { type: 'object' }], type: 'object' }, { target }),
      ).toThrow(/single object type/);
      expect(toJsonSchema(order, { target })).toEqual(toJsonSchema(order));
    }
  });

  it('never aliases the input: every call returns a fresh copy', () => {
    const input = { type: 'object', properties: { a: { type: 'string' } } };
    for (const target of SCHEMA_TARGETS) {
      const schema = toJsonSchema(input, { target });
      (schema.properties as Record<string, unknown>).b = 1;
    }
    expect(input).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
  });
});

describe('toJsonSchema provider limits', () => {
  it('keeps property names Anthropic and Bedrock reject, for their adapters to map on the wire', () => {
    for (const target of SCHEMA_TARGETS) {
      const schema = toJsonSchema(
        { type: 'object', properties: { 'user name': { type: 'string' } } },
        { target },
      );
      expect(Object.keys(schema.properties ?? {})).toEqual(['user name']);
    }
  });

  it('refuses strict schemas nested deeper than OpenAI accepts', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 11; level++)
      schema = { type: 'object', properties: { next: schema }, required: ['next'] };
    expect(() => toJsonSchema(schema, { target: 'openai-strict' })).toThrow(/nested more than 10 levels/);
  });
});
