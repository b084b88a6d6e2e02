import { closestMatch, type ToolChoice, toToolChoice } from '@org/core';
import {
  defineTool,
  type Tool,
  type ToolDefinition,
  type ToolDescription,
  type ToolDescriptionExecute,
  ToolRegistry,
  toolFromDescription,
} from '@org/tools';
import type { AgentConfigProblem } from './errors.js';
import { InvalidAgentConfigError, InvalidAgentOptionsError } from './errors.js';
import { createFunctionCallingPlanner } from './function-calling-planner.js';
import type { Planner } from './planner.js';
import { createReActPlanner } from './react-planner.js';

/** The environment variable a gateway's tool choice falls back to, as seed 000's `OpenAIGateway` reads it. */
export const TOOL_CHOICE_ENVIRONMENT_VARIABLE = 'OPENAI_TOOL_CHOICE';

/** Options of `agentOptionsFromConfig`. */
export interface AgentConfigOptions {
  /**
   * Tools with real schemas and implementations: a described tool of the same name uses its schema and `execute`,
   * with the config's description (seed 000: "uses Pydantic schemas if tool objects are available"). Tools given here
   * but not described are not offered: the description list is what the model may call.
   */
  readonly tools?: ToolRegistry | Iterable<Tool>;
  /** What runs each config-only tool, by name; a described tool with neither a tool nor an implementation returns its arguments. */
  readonly implementations?:
    | ReadonlyMap<string, ToolDescriptionExecute>
    | Readonly<Record<string, ToolDescriptionExecute>>;
  /**
   * Where `OPENAI_TOOL_CHOICE` is read when no gateway sets `tool_choice`. Default: `process.env` where there is a
   * `process` (Node, Bun, Deno's compatibility layer), none elsewhere (browsers, workers). Pass `{}` to ignore it.
   */
  readonly environment?: Readonly<Record<string, string | undefined>>;
  /** Which of `resources.inference_gateways` the agent uses, by name. Default: the only one declared. */
  readonly gateway?: string;
}

/** The gateway the agent uses, for the caller to create its model (`@org/planner` imports no provider). */
export interface AgentConfigGateway {
  readonly name: string;
  /** As written, e.g. `OpenAIGateway`. */
  readonly type: string;
  readonly model?: string;
}

/** What `agentOptionsFromConfig` returns: `options` spread into `runAgent`, beside your model and task. */
export interface LoadedAgentConfig {
  readonly options: {
    readonly tools: ToolRegistry;
    readonly planner: Planner;
    readonly systemPrompt?: string;
    readonly toolChoice?: ToolChoice;
    readonly temperature?: number;
    readonly maxOutputTokens?: number;
  };
  /** The described tools, as written (name, description, args). */
  readonly toolDescriptions: readonly ToolDescription[];
  readonly plannerKind: Planner['kind'];
  readonly maxParallelToolCalls?: number;
  readonly gateway?: AgentConfigGateway;
  /**
   * Where the tool choice came from: `gateway` (its `tool_choice`), `environment` (`OPENAI_TOOL_CHOICE`), or `default`
   * (neither: `runAgent`'s default, auto).
   */
  readonly toolChoiceSource: 'gateway' | 'environment' | 'default';
}

type Segment = string | number;

const ROOT_KEYS = ['spec', 'resources'] as const;
const SPEC_KEYS = ['planner'] as const;
const PLANNER_KEYS = ['type', 'config'] as const;
const PLANNER_TYPES = ['ReActPlanner'] as const;
const CONFIG_KEYS = [
  'tool_descriptions',
  'system_prompt',
  'use_function_calling',
  'max_parallel_tool_calls',
] as const;
const TOOL_KEYS = ['name', 'description', 'args'] as const;
const RESOURCES_KEYS = ['inference_gateways'] as const;
const GATEWAY_KEYS = ['name', 'type', 'config'] as const;
const GATEWAY_CONFIG_KEYS = ['model', 'tool_choice', 'temperature', 'max_tokens'] as const;
const MODES = ['auto', 'required', 'any', 'none'] as const;

function pathText(path: readonly Segment[]): string {
  return path.reduce<string>(
    (text, segment) =>
      typeof segment === 'number' ? `${text}[${segment}]` : text === '' ? segment : `${text}.${segment}`,
    '',
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An own property only: a key such as `constructor` or `__proto__` reads nothing inherited. */
function own(record: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

function defaultEnvironment(): Readonly<Record<string, string | undefined>> {
  const process = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return process?.env ?? {};
}

/**
 * Turns an agent configuration written as seed 000 writes it (YAML or JSON, parsed by the caller) into `runAgent`
 * options: `spec.planner.type` (`ReActPlanner`) with `config.use_function_calling` picks the planner (native function
 * calling when true; the text ReAct prompt when false or unset, as in the seed), `config.tool_descriptions` become
 * tools (`toolFromDescription`, or your tools of the same name for real schemas), `config.system_prompt` the system
 * prompt, `config.max_parallel_tool_calls` the function-calling planner's limit, and the gateway's `tool_choice` (in
 * `resources.inference_gateways`) the tool choice; without one, `OPENAI_TOOL_CHOICE` from the environment, as the
 * seed's `OpenAIGateway` reads it. Every unknown key or invalid value is an `InvalidAgentConfigError` listing each
 * problem with its path; nothing is silently dropped.
 *
 * @example
 * import { parse } from 'yaml';
 * const agent = agentOptionsFromConfig(parse(readFileSync('agent.yaml', 'utf8')), {
 *   implementations: { search_database: async ({ query }) => db.search(query) },
 * });
 * const result = await runAgent({ model: openai(agent.gateway?.model ?? 'gpt-4o-mini'), ...agent.options, task });
 */
export function agentOptionsFromConfig(config: unknown, options: AgentConfigOptions = {}): LoadedAgentConfig {
  const problems: AgentConfigProblem[] = [];
  const problem = (path: readonly Segment[], message: string): void => {
    problems.push({ path: pathText(path), segments: [...path], message });
  };
  const mapping = (
    value: unknown,
    path: readonly Segment[],
    known: readonly string[],
  ): Record<string, unknown> | undefined => {
    if (!isRecord(value)) {
      problem(path, `must be a mapping (${known.join(', ')}), got ${describe(value)}.`);
      return undefined;
    }
    for (const key of Object.keys(value)) {
      if (known.includes(key)) continue;
      const suggestion = closestMatch(key, known);
      problem(
        [...path, key],
        `unknown key${suggestion === undefined ? '.' : `; did you mean '${suggestion}'?`} Known keys: ${known.join(', ')}.`,
      );
    }
    return value;
  };
  const text = (value: unknown, path: readonly Segment[]): string | undefined => {
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value.trim() === '') {
      problem(path, `must be a non-empty string, got ${describe(value)}.`);
      return undefined;
    }
    return value;
  };

  const root = mapping(config, [], ROOT_KEYS);
  const spec = root === undefined ? undefined : mapping(own(root, 'spec'), ['spec'], SPEC_KEYS);
  const plannerNode =
    spec === undefined ? undefined : mapping(own(spec, 'planner'), ['spec', 'planner'], PLANNER_KEYS);
  const type = plannerNode === undefined ? undefined : own(plannerNode, 'type');
  if (plannerNode !== undefined && !(PLANNER_TYPES as readonly unknown[]).includes(type)) {
    const suggestion = typeof type === 'string' ? closestMatch(type, PLANNER_TYPES) : undefined;
    problem(
      ['spec', 'planner', 'type'],
      `must be ${PLANNER_TYPES.join(' or ')}, got ${describe(type)}${suggestion === undefined ? '.' : `; did you mean '${suggestion}'?`}`,
    );
  }
  const configPath = ['spec', 'planner', 'config'];
  const plannerConfig =
    plannerNode === undefined || own(plannerNode, 'config') === undefined
      ? undefined
      : mapping(own(plannerNode, 'config'), configPath, CONFIG_KEYS);
  const read = (key: string): unknown => (plannerConfig === undefined ? undefined : own(plannerConfig, key));

  const systemPrompt = text(read('system_prompt'), [...configPath, 'system_prompt']);
  let useFunctionCalling = false;
  const useValue = read('use_function_calling');
  if (useValue !== undefined) {
    if (typeof useValue === 'boolean') useFunctionCalling = useValue;
    else
      problem([...configPath, 'use_function_calling'], `must be true or false, got ${describe(useValue)}.`);
  }
  let maxParallelToolCalls: number | undefined;
  const maxParallel = read('max_parallel_tool_calls');
  if (maxParallel !== undefined) {
    if (typeof maxParallel !== 'number' || !Number.isInteger(maxParallel) || maxParallel < 1) {
      problem(
        [...configPath, 'max_parallel_tool_calls'],
        `must be an integer >= 1, got ${describe(maxParallel)}.`,
      );
    } else if (!useFunctionCalling) {
      problem(
        [...configPath, 'max_parallel_tool_calls'],
        'applies to function calling only (use_function_calling: true); the ReAct prompt makes one call per decision.',
      );
    } else {
      maxParallelToolCalls = maxParallel;
    }
  }

  const given = givenTools(options.tools);
  const implementations = implementationsOf(options.implementations);
  const descriptions: ToolDescription[] = [];
  const tools: Tool[] = [];
  const descriptionsPath = [...configPath, 'tool_descriptions'];
  const list = read('tool_descriptions');
  if (list === undefined) {
    problem(
      descriptionsPath,
      'is required: a list of { name, description, args }, the tools the model may call.',
    );
  } else if (!Array.isArray(list)) {
    problem(descriptionsPath, `must be a list of { name, description, args }, got ${describe(list)}.`);
  } else {
    const seen = new Set<string>();
    list.forEach((entry: unknown, index) => {
      const path = [...descriptionsPath, index];
      const node = mapping(entry, path, TOOL_KEYS);
      if (node === undefined) return;
      const name = text(own(node, 'name'), [...path, 'name']);
      const description = text(own(node, 'description'), [...path, 'description']);
      if (own(node, 'name') === undefined) problem([...path, 'name'], 'is required (a non-empty string).');
      if (own(node, 'description') === undefined)
        problem([...path, 'description'], 'is required (a non-empty string).');
      if (name === undefined || description === undefined) return;
      if (seen.has(name)) {
        problem([...path, 'name'], `'${name}' is already the name of an earlier tool.`);
        return;
      }
      seen.add(name);
      const args = own(node, 'args');
      const described: ToolDescription = {
        name,
        description,
        ...(args === undefined ? {} : { args: args as never }),
      };
      const tool = given.get(name);
      const implementation = implementations.get(name);
      try {
        if (tool !== undefined) {
          if (implementation !== undefined) {
            throw new InvalidAgentOptionsError({
              option: 'implementations',
              message: `'${name}' is given both as a tool and as an implementation; give one.`,
            });
          }
          // Validates the description's arguments the way a config-only tool would, then checks them against the schema.
          toolFromDescription(described);
          const properties = (tool.inputSchema.properties ?? {}) as Record<string, unknown>;
          for (const argument of argumentNames(args)) {
            if (!Object.hasOwn(properties, argument)) {
              problem(
                [...path, 'args'],
                `names '${argument}', which tool '${name}' does not take (its arguments: ${Object.keys(properties).join(', ') || 'none'}).`,
              );
            }
          }
          tools.push(
            tool.description === description
              ? tool
              : defineTool({ ...tool, description } as unknown as ToolDefinition<Tool['input'], unknown>),
          );
        } else {
          tools.push(toolFromDescription(described, implementation) as unknown as Tool);
        }
        descriptions.push(described);
      } catch (error) {
        if (InvalidAgentOptionsError.isInstance(error)) throw error;
        const where = (error as { path?: unknown }).path;
        problem(
          typeof where === 'string' && where !== '' ? [...path, where] : path,
          error instanceof Error ? error.message : String(error),
        );
      }
    });
  }
  const unused = [...implementations.keys()].filter(
    (name) => !descriptions.some((tool) => tool.name === name),
  );
  if (unused.length > 0 && problems.length === 0) {
    throw new InvalidAgentOptionsError({
      option: 'implementations',
      message: `${unused.map((name) => `'${name}'`).join(', ')} ${unused.length === 1 ? 'names' : 'name'} no tool of spec.planner.config.tool_descriptions.`,
    });
  }
  const toolNames = descriptions.map((tool) => tool.name);

  const gateway = selectGateway(root, options.gateway, problem, mapping, text);
  let toolChoice: ToolChoice | undefined;
  let toolChoiceSource: LoadedAgentConfig['toolChoiceSource'] = 'default';
  if (gateway?.toolChoice !== undefined) {
    toolChoice = toolChoiceOf(gateway.toolChoice.value, gateway.toolChoice.path, toolNames, problem);
    toolChoiceSource = 'gateway';
  } else {
    const fromEnvironment = (options.environment ?? defaultEnvironment())[TOOL_CHOICE_ENVIRONMENT_VARIABLE];
    if (fromEnvironment !== undefined && fromEnvironment.trim() !== '') {
      toolChoice = toolChoiceOf(
        fromEnvironment.trim(),
        [`$${TOOL_CHOICE_ENVIRONMENT_VARIABLE}`],
        toolNames,
        problem,
      );
      toolChoiceSource = 'environment';
    }
  }

  if (problems.length > 0) throw new InvalidAgentConfigError({ problems });
  const planner = useFunctionCalling
    ? createFunctionCallingPlanner(maxParallelToolCalls === undefined ? {} : { maxParallelToolCalls })
    : createReActPlanner();
  return {
    options: {
      tools: new ToolRegistry(tools),
      planner,
      ...(systemPrompt === undefined ? {} : { systemPrompt }),
      ...(toolChoice === undefined ? {} : { toolChoice }),
      ...(gateway?.temperature === undefined ? {} : { temperature: gateway.temperature }),
      ...(gateway?.maxTokens === undefined ? {} : { maxOutputTokens: gateway.maxTokens }),
    },
    toolDescriptions: descriptions,
    plannerKind: planner.kind,
    ...(maxParallelToolCalls === undefined ? {} : { maxParallelToolCalls }),
    ...(gateway === undefined ? {} : { gateway: gateway.gateway }),
    toolChoiceSource,
  };
}

interface SelectedGateway {
  readonly gateway: AgentConfigGateway;
  readonly toolChoice?: { readonly value: unknown; readonly path: readonly Segment[] };
  readonly temperature?: number;
  readonly maxTokens?: number;
}

function selectGateway(
  root: Record<string, unknown> | undefined,
  wanted: string | undefined,
  problem: (path: readonly Segment[], message: string) => void,
  mapping: (
    value: unknown,
    path: readonly Segment[],
    known: readonly string[],
  ) => Record<string, unknown> | undefined,
  text: (value: unknown, path: readonly Segment[]) => string | undefined,
): SelectedGateway | undefined {
  const resourcesValue = root === undefined ? undefined : own(root, 'resources');
  if (resourcesValue === undefined) {
    if (wanted !== undefined)
      problem(['resources'], `declares no inference gateway, and the gateway '${wanted}' was asked for.`);
    return undefined;
  }
  const resources = mapping(resourcesValue, ['resources'], RESOURCES_KEYS);
  const list = resources === undefined ? undefined : own(resources, 'inference_gateways');
  if (resources === undefined || list === undefined) return undefined;
  const listPath: Segment[] = ['resources', 'inference_gateways'];
  if (!Array.isArray(list)) {
    problem(listPath, `must be a list of { name, type, config }, got ${describe(list)}.`);
    return undefined;
  }
  const gateways: SelectedGateway[] = [];
  list.forEach((entry: unknown, index) => {
    const path = [...listPath, index];
    const node = mapping(entry, path, GATEWAY_KEYS);
    if (node === undefined) return;
    const name = text(own(node, 'name'), [...path, 'name']);
    const type = text(own(node, 'type'), [...path, 'type']);
    if (own(node, 'name') === undefined) problem([...path, 'name'], 'is required (a non-empty string).');
    if (own(node, 'type') === undefined) problem([...path, 'type'], 'is required, e.g. OpenAIGateway.');
    const configValue = own(node, 'config');
    const config =
      configValue === undefined ? {} : mapping(configValue, [...path, 'config'], GATEWAY_CONFIG_KEYS);
    if (name === undefined || type === undefined || config === undefined) return;
    const model = text(own(config, 'model'), [...path, 'config', 'model']);
    const temperature = own(config, 'temperature');
    if (temperature !== undefined && (typeof temperature !== 'number' || !Number.isFinite(temperature))) {
      problem([...path, 'config', 'temperature'], `must be a number, got ${describe(temperature)}.`);
    }
    const maxTokens = own(config, 'max_tokens');
    if (
      maxTokens !== undefined &&
      (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1)
    ) {
      problem([...path, 'config', 'max_tokens'], `must be an integer >= 1, got ${describe(maxTokens)}.`);
    }
    const toolChoice = own(config, 'tool_choice');
    gateways.push({
      gateway: { name, type, ...(model === undefined ? {} : { model }) },
      ...(toolChoice === undefined
        ? {}
        : { toolChoice: { value: toolChoice, path: [...path, 'config', 'tool_choice'] } }),
      ...(typeof temperature === 'number' ? { temperature } : {}),
      ...(typeof maxTokens === 'number' ? { maxTokens } : {}),
    });
  });
  if (wanted !== undefined) {
    const found = gateways.find((gateway) => gateway.gateway.name === wanted);
    if (found === undefined) {
      problem(
        listPath,
        `has no gateway named '${wanted}' (declared: ${gateways.map((gateway) => gateway.gateway.name).join(', ') || 'none'}).`,
      );
    }
    return found;
  }
  if (gateways.length > 1) {
    problem(
      listPath,
      `declares ${gateways.length} gateways; name the agent's with the gateway option (${gateways.map((gateway) => gateway.gateway.name).join(', ')}).`,
    );
    return undefined;
  }
  return gateways[0];
}

/**
 * A tool choice as the seed writes it: `auto`, `required`, `none` (and `any`, our alias of required) in any case, a
 * described tool's name, OpenAI's `{ type: function, function: { name } }`, or a `ToolChoice` object.
 */
function toolChoiceOf(
  value: unknown,
  path: readonly Segment[],
  toolNames: readonly string[],
  problem: (path: readonly Segment[], message: string) => void,
): ToolChoice | undefined {
  const named = (name: unknown, at: readonly Segment[]): ToolChoice | undefined => {
    if (typeof name === 'string' && toolNames.includes(name)) return { type: 'tool', toolName: name };
    const suggestion = typeof name === 'string' ? closestMatch(name, toolNames) : undefined;
    problem(
      at,
      `names no described tool: ${describe(name)}${suggestion === undefined ? '' : `; did you mean '${suggestion}'?`} Tools: ${toolNames.join(', ') || 'none'}.`,
    );
    return undefined;
  };
  if (typeof value === 'string') {
    const trimmed = value.trim();
    if ((MODES as readonly string[]).includes(trimmed.toLowerCase())) return toToolChoice(trimmed);
    if (toolNames.includes(trimmed)) return { type: 'tool', toolName: trimmed };
    const suggestion = closestMatch(trimmed, [...MODES, ...toolNames]);
    problem(
      path,
      `must be auto, required, any, none or a described tool's name, got ${describe(value)}${suggestion === undefined ? '.' : `; did you mean '${suggestion}'?`}`,
    );
    return undefined;
  }
  if (isRecord(value) && own(value, 'type') === 'function') {
    const keys = Object.keys(value).filter((key) => key !== 'type' && key !== 'function');
    for (const key of keys)
      problem([...path, key], "unknown key; OpenAI's form is { type: function, function: { name } }.");
    const fn = own(value, 'function');
    if (!isRecord(fn) || Object.keys(fn).some((key) => key !== 'name')) {
      problem([...path, 'function'], 'must be { name: <tool> }.');
      return undefined;
    }
    return named(own(fn, 'name'), [...path, 'function', 'name']);
  }
  try {
    const choice = toToolChoice(value as never);
    return choice.type === 'tool' ? named(choice.toolName, path) : choice;
  } catch (error) {
    problem(path, error instanceof Error ? error.message : String(error));
    return undefined;
  }
}

function givenTools(tools: AgentConfigOptions['tools']): Map<string, Tool> {
  const byName = new Map<string, Tool>();
  if (tools === undefined) return byName;
  const registry = ToolRegistry.from(tools, 'tools');
  for (const tool of registry.list()) byName.set(tool.name, tool);
  return byName;
}

function implementationsOf(
  given: AgentConfigOptions['implementations'],
): Map<string, ToolDescriptionExecute> {
  if (given === undefined) return new Map();
  const entries: [string, unknown][] =
    given instanceof Map ? [...given.entries()] : Object.entries(given as Readonly<Record<string, unknown>>);
  for (const [name, execute] of entries) {
    if (typeof execute !== 'function') {
      throw new InvalidAgentOptionsError({
        option: 'implementations',
        message: `'${name}' must be a function.`,
      });
    }
  }
  return new Map(entries as [string, ToolDescriptionExecute][]);
}

function argumentNames(args: unknown): string[] {
  if (Array.isArray(args)) return args.filter((name): name is string => typeof name === 'string');
  if (isRecord(args)) return Object.keys(args);
  return [];
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'a mapping';
  return JSON.stringify(value) ?? String(value);
}
