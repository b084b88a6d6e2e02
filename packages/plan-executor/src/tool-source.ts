import type { JsonSchema } from '@org/core';

/** A tool as the plan executor sees it. */
export type PlanTool = object;

/** The registry steps call into. */
export interface PlanToolSource {
  has(name: string): boolean;
  get(name: string): PlanTool | undefined;
  names(): string[];
}

/** The JSON Schema of a tool's output, when it declares one. */
export function toolOutputSchema(tool: PlanTool): JsonSchema | undefined {
  const schema = (tool as { outputSchema?: unknown }).outputSchema;
  return typeof schema === 'object' && schema !== null ? (schema as JsonSchema) : undefined;
}
