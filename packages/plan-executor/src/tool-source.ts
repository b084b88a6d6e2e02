import type { JsonSchema } from '@org/core';
import { type Tool, toJsonSchema } from '@org/tools';

const outputSchemas = new WeakMap<Tool, JsonSchema | null>();

/** The JSON Schema of a tool's declared output, converted once per tool; undefined when it declares none. */
export function toolOutputSchema(tool: Tool): JsonSchema | undefined {
  let schema = outputSchemas.get(tool);
  if (schema === undefined) {
    try {
      schema = tool.output === undefined ? null : toJsonSchema(tool.output);
    } catch {
      // A schema that cannot be described cannot check references either; execution still validates outputs.
      schema = null;
    }
    outputSchemas.set(tool, schema);
  }
  return schema ?? undefined;
}
