import type { FinishReason, ResponseFormat } from '@org/core';
import {
  defineTool,
  type Tool,
  ToolRegistry,
  toJsonSchema,
  toolCallToAction,
  type ZodSchema,
} from '@org/tools';
import { InvalidAgentOptionsError } from './errors.js';

/** The name of the tool that carries the final answer when the model has no native structured output. */
const FINAL_ANSWER_TOOL = 'final_answer';

/** How a run with `output` gets its typed final answer. */
export interface OutputSpec {
  /** The tool the model calls with its answer where the provider has no native structured output. */
  readonly tool: Tool;
  /** The schema as a native response format, for models that declare `structuredOutput`. */
  readonly responseFormat: ResponseFormat;
  /**
   * The same in OpenAI's strict dialect (every property required, optional ones nullable), for models that declare
   * `strictSchemas`, so the provider can enforce it; `undefined` when strict mode cannot express the schema (the
   * plain one is sent, and the answer is still validated here).
   */
  readonly strictResponseFormat: ResponseFormat | undefined;
}

/** Checks the `output` schema and builds what the loop needs; throws `InvalidAgentOptionsError`. */
export function createOutputSpec(schema: unknown, registry: ToolRegistry): OutputSpec {
  if (!isZodObject(schema)) {
    throw new InvalidAgentOptionsError({
      option: 'output',
      message:
        'must be a zod object schema (z.object({...})): providers take an object at the root of a JSON answer.',
    });
  }
  let name = FINAL_ANSWER_TOOL;
  for (let index = 2; registry.resolve(name) !== undefined; index++) name = `${FINAL_ANSWER_TOOL}_${index}`;
  const tool = defineTool({
    name,
    description:
      'Give your final answer by calling this tool with it. Call it once, when you have everything the answer needs.',
    input: schema as ZodSchema,
    terminal: true,
    execute: (args) => args,
  }) as unknown as Tool;
  const format = (target: 'json-schema' | 'openai-strict'): ResponseFormat => ({
    type: 'json',
    name: 'final_answer',
    description: 'The final answer.',
    schema: toJsonSchema(schema as ZodSchema, { target }),
  });
  let strictResponseFormat: ResponseFormat | undefined;
  try {
    strictResponseFormat = format('openai-strict');
  } catch {
    strictResponseFormat = undefined;
  }
  return { tool, responseFormat: format('json-schema'), strictResponseFormat };
}

/** The outcome of reading a final answer: its value, or what was wrong, phrased for the model. */
export type OutputReading =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly problem: string };

/**
 * Reads a JSON final answer against the output schema, with the same strict reader, repairs and coercions as tool
 * arguments (so `"42"` for a number is accepted as it would be in a call).
 */
export function readOutputText(spec: OutputSpec, text: string, finishReason: FinishReason): OutputReading {
  const registry = outputRegistry(spec);
  const converted = toolCallToAction(
    registry,
    { id: 'final-answer', toolName: spec.tool.name, arguments: stripJsonFence(text) },
    { finishReason },
  );
  if (converted.ok) return { ok: true, value: converted.action.args };
  return { ok: false, problem: converted.error.message };
}

const registries = new WeakMap<OutputSpec, ToolRegistry>();

function outputRegistry(spec: OutputSpec): ToolRegistry {
  let registry = registries.get(spec);
  if (registry === undefined) {
    registry = ToolRegistry.from([spec.tool]);
    registries.set(spec, registry);
  }
  return registry;
}

/** Models often wrap JSON in a Markdown fence even when asked not to: the fence (only) is removed. */
function stripJsonFence(text: string): string {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(text);
  return fenced === null ? text : (fenced[1] as string);
}

function isZodObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const zod = (value as { _zod?: { def?: { type?: unknown } } })._zod;
  return zod?.def?.type === 'object';
}

const withToolCache = new WeakMap<ToolRegistry, WeakMap<Tool, ToolRegistry>>();

/** A registry with one more tool, built once per registry. */
export function withTool(registry: ToolRegistry, tool: Tool): ToolRegistry {
  let byTool = withToolCache.get(registry);
  if (byTool === undefined) {
    byTool = new WeakMap();
    withToolCache.set(registry, byTool);
  }
  let extended = byTool.get(tool);
  if (extended === undefined) {
    extended = ToolRegistry.from([...registry.list(), tool]);
    byTool.set(tool, extended);
  }
  return extended;
}

/** The instruction a ReAct prompt gets: the final answer is a JSON object matching the schema. */
export function outputInstructions(spec: OutputSpec): string {
  return `Your final answer must be only a JSON object matching this JSON Schema:\n${JSON.stringify(spec.responseFormat.schema)}`;
}

/** The user message of the repair round trip, saying what was wrong with the answer. */
export function outputRepairRequest(problem: string, mode: 'native' | 'tool' | 'text' | undefined): string {
  return mode === 'tool'
    ? `${problem} Do not answer with text.`
    : `Your final answer does not match the required JSON schema: ${problem} Answer again with only the corrected JSON object.`;
}
