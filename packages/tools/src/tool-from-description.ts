import type { JsonSchema } from '@org/core';
import { parse as parseYaml } from 'yaml';
import { InvalidToolDefinitionError, InvalidToolDescriptionError, InvalidToolNameError } from './errors.js';
import { defineOwn, JsonParseFailure, parseJsonStrict } from './json-parser.js';
import { defineTool, type Tool, type ToolExecuteResult, type ToolExecutionContext } from './tool.js';

/** Arguments of a config-only tool: names with descriptions, or just names. Every argument is a required string. */
export type ToolDescriptionArgs = Readonly<Record<string, string>> | readonly string[];

/** A config-only tool: a name, a description and string arguments. */
export interface ToolDescription {
  readonly name: string;
  readonly description: string;
  readonly args?: ToolDescriptionArgs;
}

/** What runs a config-only tool. Without one, the tool returns its arguments (structured answers, hand-offs). */
export type ToolDescriptionExecute = (
  args: Record<string, string>,
  context: ToolExecutionContext,
) => ToolExecuteResult<unknown>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describedArgs(args: unknown, path: string): Array<readonly [string, string | undefined]> {
  if (args === undefined || args === null) return [];
  if (Array.isArray(args)) {
    return args.map((name, index) => {
      if (typeof name !== 'string' || name === '') {
        throw new InvalidToolDescriptionError({
          path: `${path}[${index}]`,
          reason: 'an argument name must be a non-empty string',
        });
      }
      return [name, undefined] as const;
    });
  }
  if (!isRecord(args)) {
    throw new InvalidToolDescriptionError({
      path,
      reason: 'args must be a map of name → description, or a list of names',
    });
  }
  return Object.entries(args).map(([name, description]) => {
    if (description !== null && description !== undefined && typeof description !== 'string') {
      throw new InvalidToolDescriptionError({
        path: `${path}.${name}`,
        reason: 'an argument description must be a string',
      });
    }
    return [name, description ?? undefined] as const;
  });
}

/**
 * A tool defined by configuration only: every argument is a required string. `execute` runs it; without one the
 * tool returns its arguments.
 *
 * @example
 * const escalate = toolFromDescription(
 *   { name: 'escalate', description: 'Hand the conversation to a human.', args: { reason: 'Why a human is needed' } },
 *   async ({ reason }) => tickets.open(reason),
 * );
 */
export function toolFromDescription(
  description: ToolDescription,
  execute?: ToolDescriptionExecute,
): Tool<Record<string, string>> {
  const properties: Record<string, JsonSchema> = {};
  const names: string[] = [];
  for (const [name, text] of describedArgs(description.args, 'args')) {
    if (names.includes(name))
      throw new InvalidToolDescriptionError({ path: `args.${name}`, reason: 'the argument is listed twice' });
    names.push(name);
    defineOwn(properties, name, {
      type: 'string',
      ...(text === undefined || text === '' ? {} : { description: text }),
    });
  }
  const input: JsonSchema = {
    type: 'object',
    properties,
    ...(names.length === 0 ? {} : { required: names }),
  };
  return defineTool({
    name: description.name,
    description: description.description,
    input,
    execute: (args, context) =>
      execute === undefined ? { ...args } : execute(args as Record<string, string>, context),
  }) as unknown as Tool<Record<string, string>>;
}

/** Options of `loadToolDescriptions`. */
export interface LoadToolDescriptionsOptions {
  /** Default: JSON when the text starts with `{` or `[`, YAML otherwise (YAML is a superset of JSON). */
  readonly format?: 'yaml' | 'json';
  /** Runs every loaded tool (receives the tool's name in `context.toolName`); default: return the arguments. */
  readonly execute?: ToolDescriptionExecute;
}

/**
 * Loads config-only tools from YAML or JSON: a list of `{ name, description, args }`, or an object with a `tools`
 * list. Every problem is an `InvalidToolDescriptionError` with its path (`[2].description`).
 *
 * @example
 * const tools = loadToolDescriptions(`
 * - name: escalate
 *   description: Hand the conversation to a human.
 *   args: { reason: Why a human is needed }
 * `);
 */
export function loadToolDescriptions(
  text: string,
  options: LoadToolDescriptionsOptions = {},
): Tool<Record<string, string>>[] {
  const format = options.format ?? (/^\s*[[{]/.test(text) ? 'json' : 'yaml');
  let document: unknown;
  try {
    // The application's own configuration, but read like YAML (`uniqueKeys`): a repeated key is an error, never
    // "last wins", so the strict reader rather than JSON.parse.
    document =
      format === 'json' ? parseJsonStrict(text) : parseYaml(text, { maxAliasCount: 100, uniqueKeys: true });
  } catch (error) {
    const reason =
      error instanceof JsonParseFailure
        ? `${error.reason} at position ${error.position}`
        : error instanceof Error
          ? error.message
          : String(error);
    throw new InvalidToolDescriptionError({
      path: '',
      reason: `not valid ${format.toUpperCase()}: ${reason}`,
      cause: error,
    });
  }
  const list = isRecord(document) && Array.isArray(document.tools) ? document.tools : document;
  const base = isRecord(document) ? 'tools' : '';
  if (!Array.isArray(list)) {
    throw new InvalidToolDescriptionError({
      path: '',
      reason: 'expected a list of tools, or an object with a "tools" list',
    });
  }
  const seen = new Set<string>();
  return list.map((entry, index) => {
    const path = `${base}[${index}]`;
    if (!isRecord(entry))
      throw new InvalidToolDescriptionError({
        path,
        reason: 'each tool must be an object with name, description and args',
      });
    const { name, description, args } = entry;
    if (typeof name !== 'string')
      throw new InvalidToolDescriptionError({ path: `${path}.name`, reason: 'must be a string' });
    if (typeof description !== 'string')
      throw new InvalidToolDescriptionError({ path: `${path}.description`, reason: 'must be a string' });
    for (const key of Object.keys(entry)) {
      if (key !== 'name' && key !== 'description' && key !== 'args') {
        throw new InvalidToolDescriptionError({
          path: `${path}.${key}`,
          reason: 'unknown field; a tool description has name, description and args',
        });
      }
    }
    if (seen.has(name))
      throw new InvalidToolDescriptionError({
        path: `${path}.name`,
        reason: `the name '${name}' is used twice`,
      });
    seen.add(name);
    try {
      describedArgs(args, `${path}.args`);
      return toolFromDescription({ name, description, args: args as ToolDescriptionArgs }, options.execute);
    } catch (error) {
      if (InvalidToolDescriptionError.isInstance(error)) throw error;
      if (InvalidToolNameError.isInstance(error) || InvalidToolDefinitionError.isInstance(error)) {
        throw new InvalidToolDescriptionError({ path, reason: error.message, cause: error });
      }
      throw error;
    }
  });
}
