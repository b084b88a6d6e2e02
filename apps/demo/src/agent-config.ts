import { closestMatch, ToolChoice, toToolChoice } from '@org/core';
import {
  agentOptionsFromConfig,
  InvalidAgentConfigError,
  type LoadedAgentConfig,
  TOOL_CHOICE_ENVIRONMENT_VARIABLE,
} from '@org/planner';
import { createTaskScripts, type TaskCall } from '@org/provider-scripted';
import { isMap, isScalar, LineCounter, type Node, parseDocument } from 'yaml';
import { AgentConfigError, type AgentConfigProblem } from './errors.js';
import type { Mode } from './run-mode.js';

/** A config-only tool of an agent file. */
export interface AgentToolDescription {
  readonly name: string;
  readonly description: string;
  /** Argument names with their descriptions; every argument is a required string. */
  readonly args: Readonly<Record<string, string>>;
}

/** An agent described in YAML, validated and resolved. */
export interface AgentConfig {
  readonly name: string;
  readonly systemPrompt: string;
  readonly task: string;
  /** `react` + `use_function_calling: false` → `react`; `react` + `true` → `native`; `plan` → `plan`. */
  readonly mode: Mode;
  readonly maxParallelToolCalls?: number;
  readonly toolChoice: ToolChoice;
  /** Where the tool choice came from: `tool_choice`, or the environment variable and its value. */
  readonly toolChoiceSource: string;
  readonly maxSteps: number;
  readonly tools: readonly AgentToolDescription[];
  /** How the offline model answers: the calls it makes, and the answer template (`{id.field}` placeholders). */
  readonly offline?: { readonly calls: readonly TaskCall[]; readonly answer: string };
}

const TOP_KEYS = [
  'name',
  'system_prompt',
  'task',
  'planner',
  'use_function_calling',
  'max_parallel_tool_calls',
  'tool_choice',
  'max_steps',
  'tools',
  'offline',
] as const;
const TOOL_KEYS = ['name', 'description', 'args'] as const;
/** Seed 000's layout: `spec` and `resources` (read by `@org/planner`), beside the demo's own keys. */
const SEED_KEYS = ['name', 'task', 'max_steps', 'offline', 'spec', 'resources'] as const;
const OFFLINE_KEYS = ['calls', 'answer'] as const;
const CALL_KEYS = ['id', 'tool', 'arguments'] as const;
const PLANNERS = ['react', 'plan'] as const;
const MODES = ['auto', 'required', 'any', 'none'];

type Segment = string | number;

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

/**
 * Reads an agent from YAML and validates it, collecting every problem with its key path and its line and column in
 * the file. `environment` supplies `tool_choice: { from_env: NAME }`. A file in seed 000's layout (`spec.planner`,
 * `resources.inference_gateways`, beside `name`, `task`, `max_steps`, `offline`) is read by `agentOptionsFromConfig`
 * of `@org/planner`, which also reads `OPENAI_TOOL_CHOICE` from `environment` when no gateway sets `tool_choice`.
 *
 * @example
 * const config = parseAgentConfig(readFileSync('agent.yaml', 'utf8'), { file: 'agent.yaml', environment: process.env });
 * config.mode; // 'plan'
 */
export function parseAgentConfig(
  text: string,
  options: { readonly file: string; readonly environment: Readonly<Record<string, string | undefined>> },
): AgentConfig {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const problems: AgentConfigProblem[] = [];
  const at = (offset: number | undefined): { line?: number; column?: number } => {
    if (offset === undefined) return {};
    const position = lineCounter.linePos(offset);
    return { line: position.line, column: position.col };
  };
  for (const error of document.errors) {
    problems.push({ path: '', message: error.message.split('\n')[0] ?? error.message, ...at(error.pos[0]) });
  }
  if (problems.length > 0) throw new AgentConfigError({ file: options.file, problems });

  /** The node at `path`, or its key when `key` is set (to point at an unknown key rather than its value). */
  const locate = (path: readonly Segment[], key = false): { line?: number; column?: number } => {
    if (key && path.length > 0) {
      const parent = path.length === 1 ? document.contents : document.getIn(path.slice(0, -1), true);
      if (isMap(parent)) {
        const pair = parent.items.find((item) => isScalar(item.key) && item.key.value === path.at(-1));
        const keyNode = pair?.key as Node | undefined;
        if (keyNode?.range !== undefined && keyNode.range !== null) return at(keyNode.range[0]);
      }
    }
    for (let length = path.length; length >= 0; length -= 1) {
      const node = (length === 0 ? document.contents : document.getIn(path.slice(0, length), true)) as
        | Node
        | null
        | undefined;
      if (node?.range !== undefined && node.range !== null) return at(node.range[0]);
    }
    return {};
  };
  const problem = (path: readonly Segment[], message: string, key = false): void => {
    problems.push({ path: pathText(path), message, ...locate(path, key) });
  };
  const unknownKeys = (
    value: Record<string, unknown>,
    path: readonly Segment[],
    known: readonly string[],
  ): void => {
    for (const name of Object.keys(value)) {
      if (known.includes(name)) continue;
      const suggestion = closestMatch(name, known);
      problem(
        [...path, name],
        `unknown key${suggestion === undefined ? '.' : `; did you mean '${suggestion}'?`} Known keys: ${known.join(', ')}.`,
        true,
      );
    }
  };
  const text_ = (value: unknown, path: readonly Segment[], required: boolean): string | undefined => {
    if (value === undefined || value === null) {
      if (required) problem(path, 'is required (a non-empty string).');
      return undefined;
    }
    if (typeof value !== 'string' || value.trim() === '') {
      problem(path, `must be a non-empty string, got ${JSON.stringify(value)}.`);
      return undefined;
    }
    return value;
  };
  const positiveInteger = (value: unknown, path: readonly Segment[]): number | undefined => {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
      problem(path, `must be a positive integer, got ${JSON.stringify(value)}.`);
      return undefined;
    }
    return value;
  };

  const root: unknown = document.toJS({ maxAliasCount: 100 });
  if (!isRecord(root)) {
    throw new AgentConfigError({
      file: options.file,
      problems: [
        { path: '', message: 'the file must be a YAML mapping (name, task, tools, ...).', ...locate([]) },
      ],
    });
  }
  // Seed 000's layout: the planner and gateway parts are read by @org/planner, the demo's own keys here.
  let seed: LoadedAgentConfig | undefined;
  const seedLayout = Object.hasOwn(root, 'spec');
  if (seedLayout) {
    unknownKeys(root, [], SEED_KEYS);
    try {
      seed = agentOptionsFromConfig(
        {
          spec: root.spec,
          ...(Object.hasOwn(root, 'resources') ? { resources: root.resources } : {}),
        },
        { environment: options.environment },
      );
    } catch (error) {
      if (!InvalidAgentConfigError.isInstance(error)) throw error;
      for (const found of error.problems) problem(found.segments, found.message, true);
    }
  } else {
    unknownKeys(root, [], TOP_KEYS);
  }
  const name = text_(root.name, ['name'], true);
  const systemPrompt = seedLayout
    ? seed?.options.systemPrompt
    : text_(root.system_prompt, ['system_prompt'], false);
  const task = text_(root.task, ['task'], true);

  let planner: (typeof PLANNERS)[number] = 'react';
  if (!seedLayout && root.planner !== undefined) {
    if (typeof root.planner === 'string' && (PLANNERS as readonly string[]).includes(root.planner)) {
      planner = root.planner as (typeof PLANNERS)[number];
    } else {
      const suggestion = typeof root.planner === 'string' ? closestMatch(root.planner, PLANNERS) : undefined;
      problem(
        ['planner'],
        `must be 'react' (one step per model call) or 'plan' (the model writes a whole plan), got ${JSON.stringify(
          root.planner,
        )}${suggestion === undefined ? '.' : `; did you mean '${suggestion}'?`}`,
      );
    }
  }
  let useFunctionCalling = seed === undefined ? true : seed.plannerKind === 'function-calling';
  if (!seedLayout && root.use_function_calling !== undefined) {
    if (typeof root.use_function_calling === 'boolean') useFunctionCalling = root.use_function_calling;
    else
      problem(
        ['use_function_calling'],
        `must be true or false, got ${JSON.stringify(root.use_function_calling)}.`,
      );
  }
  if (planner === 'plan' && !useFunctionCalling) {
    problem(
      ['use_function_calling'],
      'must be true with planner: plan (the plan is sent as a call of the execute_tool_plan tool).',
    );
  }
  const maxParallelToolCalls = seedLayout
    ? seed?.maxParallelToolCalls
    : positiveInteger(root.max_parallel_tool_calls, ['max_parallel_tool_calls']);
  if (!seedLayout && maxParallelToolCalls !== undefined && !useFunctionCalling) {
    problem(
      ['max_parallel_tool_calls'],
      'applies to native function calling only; with use_function_calling: false the model makes one call per turn.',
    );
  }
  const maxSteps = positiveInteger(root.max_steps, ['max_steps']) ?? 10;

  const tools: AgentToolDescription[] = [];
  if (seedLayout && seed === undefined) {
    // The seed part was refused (its problems are listed): its tool names still let the offline calls be checked,
    // without a cascade of "names no tool" problems.
    const described = seedToolNames(root.spec);
    for (const toolName of described) tools.push({ name: toolName, description: '', args: {} });
  } else if (seedLayout) {
    for (const described of seed?.toolDescriptions ?? []) {
      const args: Record<string, string> = {};
      if (Array.isArray(described.args)) for (const argument of described.args) args[argument] = '';
      else Object.assign(args, described.args);
      tools.push({ name: described.name, description: described.description, args });
    }
  } else if (!Array.isArray(root.tools) || root.tools.length === 0) {
    problem(['tools'], 'is required: a list of tools, each with name, description and args.');
  } else {
    root.tools.forEach((entry: unknown, index) => {
      const path: Segment[] = ['tools', index];
      if (!isRecord(entry)) {
        problem(path, 'must be a mapping with name, description and args.');
        return;
      }
      unknownKeys(entry, path, TOOL_KEYS);
      const toolName = text_(entry.name, [...path, 'name'], true);
      if (toolName !== undefined && !/^[a-zA-Z0-9_-]{1,64}$/.test(toolName)) {
        problem([...path, 'name'], `'${toolName}' is not a tool name: 1 to 64 letters, digits, _ or -.`);
      } else if (toolName !== undefined && tools.some((tool) => tool.name === toolName)) {
        problem([...path, 'name'], `'${toolName}' is already the name of an earlier tool.`);
      }
      const description = text_(entry.description, [...path, 'description'], true);
      const args: Record<string, string> = {};
      if (Array.isArray(entry.args)) {
        entry.args.forEach((argument: unknown, argumentIndex) => {
          if (typeof argument === 'string' && argument !== '') args[argument] = '';
          else problem([...path, 'args', argumentIndex], 'an argument name must be a non-empty string.');
        });
      } else if (isRecord(entry.args)) {
        for (const [argument, argumentDescription] of Object.entries(entry.args)) {
          if (typeof argumentDescription === 'string' || argumentDescription === null) {
            args[argument] = argumentDescription ?? '';
          } else {
            problem([...path, 'args', argument], 'an argument description must be a string.');
          }
        }
      } else if (entry.args !== undefined && entry.args !== null) {
        problem([...path, 'args'], 'must be a mapping of argument name → description, or a list of names.');
      }
      if (toolName !== undefined && description !== undefined)
        tools.push({ name: toolName, description, args });
    });
  }
  const toolNames = tools.map((tool) => tool.name);

  const toolChoiceFrom = (
    value: unknown,
    path: readonly Segment[],
    source: string,
  ): ToolChoice | undefined => {
    if (typeof value === 'string' && MODES.includes(value.trim().toLowerCase())) return toToolChoice(value);
    if (typeof value === 'string' && toolNames.includes(value.trim())) return ToolChoice.tool(value.trim());
    if (isRecord(value) && Object.keys(value).length === 1 && typeof value.tool === 'string') {
      if (toolNames.includes(value.tool)) return ToolChoice.tool(value.tool);
      const suggestion = closestMatch(value.tool, toolNames);
      problem(
        [...path, 'tool'],
        `names no tool of this agent${suggestion === undefined ? '.' : `; did you mean '${suggestion}'?`} Tools: ${toolNames.join(', ')}.`,
      );
      return undefined;
    }
    const suggestion = typeof value === 'string' ? closestMatch(value, [...MODES, ...toolNames]) : undefined;
    problem(
      path,
      `${source} must be auto, required, any, none, a tool name or { tool: <name> }; got ${JSON.stringify(value)}${
        suggestion === undefined ? '.' : `; did you mean '${suggestion}'?`
      }`,
    );
    return undefined;
  };
  let toolChoice: ToolChoice = ToolChoice.auto();
  let toolChoiceSource = 'default (auto)';
  const choice = root.tool_choice;
  if (seed !== undefined) {
    // The library's reading: the gateway's tool_choice, else OPENAI_TOOL_CHOICE, else auto.
    toolChoice = seed.options.toolChoice ?? toolChoice;
    const variable = TOOL_CHOICE_ENVIRONMENT_VARIABLE;
    toolChoiceSource =
      seed.toolChoiceSource === 'gateway'
        ? `resources.inference_gateways (${seed.gateway?.name ?? ''}) tool_choice`
        : seed.toolChoiceSource === 'environment'
          ? `${variable}=${(options.environment[variable] ?? '').trim()}`
          : `default (auto; ${variable} is not set)`;
  } else if (seedLayout) {
    // The seed part had problems, reported above.
  } else if (isRecord(choice) && 'from_env' in choice) {
    unknownKeys(choice, ['tool_choice'], ['from_env', 'default']);
    const variable = choice.from_env;
    if (typeof variable !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable)) {
      problem(
        ['tool_choice', 'from_env'],
        `must name an environment variable, got ${JSON.stringify(variable)}.`,
      );
    } else {
      const fromEnvironment = options.environment[variable];
      if (fromEnvironment !== undefined && fromEnvironment.trim() !== '') {
        toolChoice =
          toolChoiceFrom(fromEnvironment.trim(), ['tool_choice', 'from_env'], `The value of ${variable}`) ??
          toolChoice;
        toolChoiceSource = `${variable}=${fromEnvironment.trim()}`;
      } else if (choice.default !== undefined) {
        toolChoice =
          toolChoiceFrom(choice.default, ['tool_choice', 'default'], 'tool_choice.default') ?? toolChoice;
        toolChoiceSource = `tool_choice.default (${variable} is not set)`;
      } else {
        toolChoiceSource = `default (auto; ${variable} is not set)`;
      }
    }
  } else if (choice !== undefined && choice !== null) {
    toolChoice = toolChoiceFrom(choice, ['tool_choice'], 'tool_choice') ?? toolChoice;
    toolChoiceSource = 'tool_choice';
  }

  let offline: AgentConfig['offline'];
  if (root.offline !== undefined) {
    if (!isRecord(root.offline)) {
      problem(['offline'], 'must be a mapping with calls and answer.');
    } else {
      unknownKeys(root.offline, ['offline'], OFFLINE_KEYS);
      const answer = text_(root.offline.answer, ['offline', 'answer'], true);
      const calls: TaskCall[] = [];
      if (!Array.isArray(root.offline.calls) || root.offline.calls.length === 0) {
        problem(
          ['offline', 'calls'],
          'is required: the calls the offline model makes, each { id, tool, arguments }.',
        );
      } else {
        root.offline.calls.forEach((entry: unknown, index) => {
          const path: Segment[] = ['offline', 'calls', index];
          if (!isRecord(entry)) {
            problem(path, 'must be a mapping with id, tool and arguments.');
            return;
          }
          unknownKeys(entry, path, CALL_KEYS);
          const id = text_(entry.id, [...path, 'id'], true);
          const tool = text_(entry.tool, [...path, 'tool'], true);
          if (tool !== undefined && !toolNames.includes(tool)) {
            const suggestion = closestMatch(tool, toolNames);
            problem(
              [...path, 'tool'],
              `names no tool of this agent${suggestion === undefined ? '.' : `; did you mean '${suggestion}'?`} Tools: ${toolNames.join(', ')}.`,
            );
          }
          const args = entry.arguments ?? {};
          if (!isRecord(args)) problem([...path, 'arguments'], 'must be a mapping of argument name → value.');
          if (id !== undefined && tool !== undefined && isRecord(args))
            calls.push({ id, toolName: tool, arguments: args });
        });
        if (problems.length === 0) {
          try {
            createTaskScripts({ calls, answer: () => '' });
          } catch (error) {
            const where = /^calls\[(\d+)\]\.?(.*)$/.exec((error as { path?: string }).path ?? '');
            const segments: Segment[] =
              where === null
                ? ['offline', 'calls']
                : [
                    'offline',
                    'calls',
                    Number(where[1]),
                    ...(where[2] === '' || where[2] === undefined ? [] : [where[2]]),
                  ];
            const message = error instanceof Error ? error.message : String(error);
            // The scripts' error names its own path (`calls[0].arguments: ...`); the problem carries ours.
            problem(segments, message.replace(/^calls(?:\[\d+\])?[\w.]*: /, ''));
          }
        }
      }
      if (answer !== undefined) offline = { calls, answer };
    }
  }

  if (problems.length > 0 || name === undefined || task === undefined) {
    throw new AgentConfigError({ file: options.file, problems });
  }
  return {
    name,
    systemPrompt: systemPrompt ?? '',
    task,
    mode: planner === 'plan' ? 'plan' : useFunctionCalling ? 'native' : 'react',
    ...(maxParallelToolCalls === undefined ? {} : { maxParallelToolCalls }),
    toolChoice,
    toolChoiceSource,
    maxSteps,
    tools,
    ...(offline === undefined ? {} : { offline }),
  };
}

/** The tool names a seed-layout `spec` describes, read leniently (own keys only) from a spec that may be invalid. */
function seedToolNames(spec: unknown): string[] {
  const at = (value: unknown, key: string): unknown =>
    isRecord(value) && Object.hasOwn(value, key) ? value[key] : undefined;
  const list = at(at(at(spec, 'planner'), 'config'), 'tool_descriptions');
  if (!Array.isArray(list)) return [];
  return list.flatMap((entry: unknown) => {
    const toolName = at(entry, 'name');
    return typeof toolName === 'string' ? [toolName] : [];
  });
}

/**
 * Fills an answer template from what the model observed: `{id}` is a call's whole output, `{id.field.0}` a part of
 * it, `{id.error}` is `failed` when the call failed; an unknown placeholder reads `unknown`.
 *
 * @example
 * fillAnswerTemplate('Paris: {paris.temperatureC}°C', { outputs: { paris: { temperatureC: 18 } }, errors: {} });
 */
export function fillAnswerTemplate(
  template: string,
  observed: {
    readonly outputs: Readonly<Record<string, unknown>>;
    readonly errors: Readonly<Record<string, string>>;
  },
): string {
  return template.replace(
    /\{([A-Za-z0-9_-]+)((?:\.[A-Za-z0-9_-]+)*)\}/g,
    (_match, id: string, rest: string) => {
      // Own properties only: call ids and fields are model-chosen names (`constructor` inherits nothing).
      if (rest === '.error') return Object.hasOwn(observed.errors, id) ? 'failed' : 'none';
      let current: unknown = Object.hasOwn(observed.outputs, id) ? observed.outputs[id] : undefined;
      for (const field of rest.split('.').filter((part) => part !== '')) {
        current =
          (isRecord(current) || Array.isArray(current)) && Object.hasOwn(current, field)
            ? (current as Record<string, unknown>)[field]
            : undefined;
      }
      if (current === undefined || current === null) return 'unknown';
      return typeof current === 'string' ? current : JSON.stringify(current);
    },
  );
}
