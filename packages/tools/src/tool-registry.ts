import type { ToolSpec } from '@org/core';
import { compiledToolOf } from './compiled-tool.js';
import { DuplicateToolError, InvalidToolDefinitionError, InvalidToolOptionError } from './errors.js';
import { type SchemaTarget, toJsonSchema } from './to-json-schema.js';
import type { Tool } from './tool.js';
import { assertValidToolName, ToolNameMapping } from './tool-name.js';

/** Options of `ToolRegistry.specs`. */
export interface ToolSpecsOptions {
  /** The schema dialect; default `json-schema`. */
  readonly target?: SchemaTarget;
}

/**
 * The spec of one tool for a target, named with `name` (its provider name). For `openai-strict`, a tool whose schema
 * strict mode cannot express (free-form objects, tuples, untyped values) is sent with `strict: false` and a plain
 * JSON Schema, unless it was defined with `strict: false`; `strict: true` tools were checked at definition. A tool
 * defined with `strict: true` gets `strict: true` and its schema in the strict dialect for every target (the strict
 * dialect is valid JSON Schema for every provider; validation reads its `null` for an optional field as absent).
 * For `gemini-openapi`, a tool whose schema the OpenAPI subset cannot express is an `InvalidToolSchemaError` naming the
 * tool and the node.
 */
export function toToolSpec(
  tool: Tool,
  options: ToolSpecsOptions & { readonly name?: string } = {},
): ToolSpec {
  const target = options.target ?? 'json-schema';
  const compiled = compiledToolOf(tool);
  const name = options.name ?? tool.name;
  if (target === 'gemini-openapi') {
    // Gemini's OpenAPI subset has no strict mode; the tool's own schema is converted (and refused where it cannot be).
    return {
      name,
      description: tool.description,
      inputSchema: toJsonSchema(compiled.inputSchema, { target, toolName: tool.name }),
    };
  }
  if (tool.strict === true && !(compiled.strictSchema instanceof Error)) {
    return { name, description: tool.description, inputSchema: compiled.strictSchema, strict: true };
  }
  if (target === 'openai-strict') {
    if (tool.strict !== false && !(compiled.strictSchema instanceof Error)) {
      return { name, description: tool.description, inputSchema: compiled.strictSchema, strict: true };
    }
    return {
      name,
      description: tool.description,
      inputSchema: toJsonSchema(compiled.inputSchema),
      strict: false,
    };
  }
  return {
    name,
    description: tool.description,
    inputSchema: toJsonSchema(compiled.inputSchema, { target, toolName: tool.name }),
  };
}

function describeOption(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object that is not iterable' : `a ${typeof value}`;
}

function assertTool(tool: unknown): asserts tool is Tool {
  const candidate = tool as Partial<Tool> | null;
  if (typeof candidate !== 'object' || candidate === null || typeof candidate.execute !== 'function') {
    throw new InvalidToolDefinitionError({
      toolName: String(candidate?.name ?? '(unnamed)'),
      field: 'execute',
      reason: 'not a tool; create tools with defineTool or toolFromDescription',
    });
  }
}

/**
 * The tools a model may call, by name. Backed by a `Map`, so names such as `__proto__` or `constructor` are ordinary
 * unknown names. Names that providers reject (`math.factorial`) are mapped to valid ones in `specs` and mapped back
 * by `resolve`, collision-safe.
 *
 * @example
 * const registry = new ToolRegistry([getWeather, searchFlights]);
 * const tools = registry.specs({ target: 'anthropic' });
 * const tool = registry.resolve(toolCall.toolName);
 */
export class ToolRegistry {
  readonly #tools = new Map<string, Tool>();
  #mapping: ToolNameMapping | undefined;
  readonly #specs = new Map<SchemaTarget, ToolSpec[]>();

  constructor(tools?: Iterable<Tool>) {
    if (tools !== undefined) for (const tool of tools) this.register(tool);
  }

  /** Adds a tool. Throws `DuplicateToolError` when the name is taken, and the definition errors for a bad tool. */
  register(tool: Tool): this {
    assertTool(tool);
    assertValidToolName(tool.name);
    const existing = this.#tools.get(tool.name);
    if (existing !== undefined) throw new DuplicateToolError({ toolName: tool.name });
    compiledToolOf(tool); // checks a tool that was not made by defineTool
    this.#tools.set(tool.name, tool);
    this.#mapping = undefined;
    this.#specs.clear();
    return this;
  }

  /**
   * Removes the tool registered under exactly this name; returns whether there was one. Provider names are
   * recomputed and the spec cache cleared, so the next `specs()` (the agent loop reads it every step) no longer
   * offers it. For tool sets that change at run time (an MCP server's `notifications/tools/list_changed`).
   *
   * @example
   * registry.unregister('search'); // true; registry.has('search') is now false
   */
  unregister(name: string): boolean {
    if (!this.#tools.delete(name)) return false;
    this.#mapping = undefined;
    this.#specs.clear();
    return true;
  }

  /** The tool registered under exactly this name. */
  get(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  /** Whether a tool of this name (its own name, not a provider's mapped one) is registered. */
  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /** The tool for a name a model sent: its registered name, or the provider name it was sent as. */
  resolve(name: string): Tool | undefined {
    const direct = this.#tools.get(name);
    if (direct !== undefined) return direct;
    const original = this.#currentMapping().fromProvider(name);
    return original === undefined ? undefined : this.#tools.get(original);
  }

  /** The name a tool is sent to providers as (itself when valid, `math.factorial` → `math_factorial`). */
  providerName(name: string): string | undefined {
    return this.#currentMapping().toProvider(name);
  }

  /** The registered tools, in registration order (a copy). */
  list(): Tool[] {
    return [...this.#tools.values()];
  }

  /** The registered tools' names, in registration order. */
  names(): string[] {
    return [...this.#tools.keys()];
  }

  get size(): number {
    return this.#tools.size;
  }

  /**
   * The specs to send to a model, in registration order, named with provider names. Cached per target.
   *
   * @example
   * const request = { messages, tools: registry.specs({ target: 'openai-strict' }) };
   */
  specs(options: ToolSpecsOptions = {}): ToolSpec[] {
    const target = options.target ?? 'json-schema';
    let specs = this.#specs.get(target);
    if (specs === undefined) {
      const mapping = this.#currentMapping();
      specs = this.list().map((tool) =>
        deepFreeze(toToolSpec(tool, { target, name: mapping.toProvider(tool.name) ?? tool.name })),
      );
      this.#specs.set(target, specs);
    }
    // Built once per target and frozen, so no caller can change what others are sent (a caller that needs to edit a
    // schema copies it). The loop asks for them on every step: a deep copy each time was a tenth of its CPU.
    return [...specs];
  }

  /**
   * A registry from what the agent loop and the plan tool accept as `tools`: a registry (returned as is), or tools in
   * an array or any iterable. A registry from another copy of `@org/tools` (which fails `instanceof`) is rebuilt from
   * its tools. Anything else is an `InvalidToolOptionError` naming `option`, the option the caller was given.
   *
   * @example
   * const registry = ToolRegistry.from([getWeather, searchFlights]);
   */
  static from(tools: ToolRegistry | Iterable<Tool>, option = 'tools'): ToolRegistry {
    if (tools instanceof ToolRegistry) return tools;
    const candidate = tools as unknown as { list?: unknown; specs?: unknown } | null | undefined;
    if (typeof candidate?.list === 'function' && typeof candidate.specs === 'function') {
      return new ToolRegistry((candidate.list as () => Tool[]).call(candidate));
    }
    if (
      candidate === null ||
      candidate === undefined ||
      typeof candidate === 'string' ||
      typeof (candidate as Partial<Iterable<Tool>>)[Symbol.iterator] !== 'function'
    ) {
      throw new InvalidToolOptionError({
        option,
        reason: `must be a ToolRegistry or an array of tools; got ${describeOption(candidate)}.`,
      });
    }
    return new ToolRegistry(candidate as Iterable<Tool>);
  }

  /**
   * A registry with the tools of all the given registries. The same tool object in two of them is kept once; two
   * different tools with one name are a `DuplicateToolError`.
   */
  static compose(...registries: ToolRegistry[]): ToolRegistry {
    const composed = new ToolRegistry();
    for (const registry of registries) {
      for (const tool of registry.list()) {
        if (composed.get(tool.name) === tool) continue;
        composed.register(tool);
      }
    }
    return composed;
  }

  #currentMapping(): ToolNameMapping {
    this.#mapping ??= new ToolNameMapping(this.#tools.keys());
    return this.#mapping;
  }
}

/** Freezes a JSON value and everything in it. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}
