import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, InvalidToolSchemaError, SCHEMA_TARGETS, ToolRegistry, toJsonSchema } from './index.js';

/** A BFCL live function's shape: a Spanish parameter name Anthropic and Bedrock refuse on the wire. */
const quoteInput = {
  type: 'object',
  properties: {
    marca: { type: 'string' },
    año_vehiculo: { type: 'integer', description: 'Año del vehículo' },
    conductor: { type: 'object', properties: { 'años de experiencia': { type: 'integer' } } },
  },
  required: ['marca', 'año_vehiculo'],
} as const;

function refusal(run: () => unknown): InvalidToolSchemaError {
  try {
    run();
  } catch (error) {
    if (InvalidToolSchemaError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected an InvalidToolSchemaError');
}

describe('property names at definition', () => {
  it('accepts a name some providers refuse but their adapters map (año_vehiculo), for every target', () => {
    const tool = defineTool({
      name: 'cotizar_seguro',
      description: 'Cotiza un seguro de auto.',
      input: quoteInput,
      execute: () => 'ok',
    });
    const registry = new ToolRegistry([tool]);
    // OpenAI receives the name as written; Anthropic and Bedrock receive it here as written too, and their adapters
    // rename it reversibly on the wire (core's mapToolPropertyNames), where the target's rule is known.
    for (const target of SCHEMA_TARGETS) {
      const [spec] = registry.specs({ target });
      expect(Object.keys(spec?.inputSchema.properties ?? {})).toContain('año_vehiculo');
    }
    const zodTool = defineTool({
      name: 'cotizar',
      description: 'Cotiza.',
      input: z.object({ año_vehiculo: z.number().int() }),
      execute: ({ año_vehiculo }) => año_vehiculo,
    });
    expect(
      new ToolRegistry([zodTool]).specs({ target: 'anthropic' })[0]?.inputSchema.properties,
    ).toHaveProperty('año_vehiculo');
  });

  it('refuses, with its location, a name no provider can carry (not well-formed Unicode)', () => {
    const input = {
      type: 'object',
      properties: { conductor: { type: 'object', properties: { 'nombre\uD800': { type: 'string' } } } },
    };
    const error = refusal(() => defineTool({ name: 'bad', description: 'Bad.', input, execute: () => 'ok' }));
    expect(error.path).toBe('properties/conductor/properties/nombre\uD800');
    expect(error.toolName).toBe('bad');
    expect(error.message).toMatch(/not well-formed Unicode/);
    // Every path agrees: toJsonSchema refuses it for every target, with the same location.
    for (const target of SCHEMA_TARGETS)
      expect(refusal(() => toJsonSchema(input, { target })).path).toBe(error.path);
  });
});
