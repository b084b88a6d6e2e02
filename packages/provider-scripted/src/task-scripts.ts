import { contentText, type Message, type ModelRequest } from '@org/core';
import { InvalidScriptError } from './errors.js';
import type { ScriptedTurn, ScriptFunction } from './scripted-model.js';
import { referencedCallIds, resolveTaskReferences } from './task-references.js';

/** One tool call of a task, as a model that knows the task would make it. */
export interface TaskCall {
  /** Unique within the task; also the tool-call id in native mode and the step id in plan mode. */
  readonly id: string;
  readonly toolName: string;
  /**
   * The arguments. `$ref:<id>` or `$ref:<id>.<field>.<field>` stands for the output of an earlier call: the plan
   * keeps it as is (the plan executor resolves it); in ReAct and native mode the script fills in the value the
   * model observed, exactly as the plan executor would, so every mode sends the same arguments. A string that is
   * one reference becomes the referenced value with its own type; references inside longer text
   * (`'Rome $ref:rome.temperatureC °C'`) are interpolated as text (objects as JSON); a missing field is `null`.
   * When a referenced call failed or was skipped, this call is not made in any mode: it is reported in
   * `skipped` with the plan executor's reason.
   */
  readonly arguments: Readonly<Record<string, unknown>>;
}

/** What the final answer is computed from. */
export interface TaskOutputs {
  /** The output of each call that succeeded, by call id: parsed JSON when the result text is JSON, else the text. */
  readonly outputs: Readonly<Record<string, unknown>>;
  /** The error text of each call that failed, by call id. */
  readonly errors: Readonly<Record<string, string>>;
  /**
   * Each call that was not made because a call it references failed (or was itself skipped), by call id, with
   * the plan executor's reason: `Skipped because dependency 's1' failed` (naming the call that failed). Always
   * set by `createTaskScripts`; optional so that hand-built `TaskOutputs` stay valid.
   */
  readonly skipped?: Readonly<Record<string, string>>;
}

/** Options of `createTaskScripts`. */
export interface TaskScriptOptions {
  /** The calls, each after the calls it references. */
  readonly calls: readonly TaskCall[];
  /** The final answer, from what the model observed. */
  readonly answer: (observed: TaskOutputs) => string;
  /** Plan mode: the steps whose results the plan returns. Default: the calls no other call references. */
  readonly outputSteps?: readonly string[];
  /** Default `execute_tool_plan`. */
  readonly planToolName?: string;
  /** A thought for each ReAct decision. Default `I call <tool>.` */
  readonly thought?: (call: TaskCall) => string;
}

/** Scripts of one task for the three modes, and the analytic counts of model calls. */
export interface TaskScripts {
  /** For a model with `capabilities.toolCalls: false` driven by the ReAct planner: one call per turn. */
  readonly react: ScriptFunction;
  /** For the function-calling planner: every call whose inputs are known, in parallel, one turn per level. */
  readonly native: ScriptFunction;
  /** For the function-calling planner with the plan tool offered: one plan, then the answer. */
  readonly plan: ScriptFunction;
  /** Number of calls (n). */
  readonly callCount: number;
  /** Length of the longest chain of dependent calls. */
  readonly depth: number;
  /**
   * Model calls each mode makes when every call succeeds: ReAct n + 1, native depth + 1, plan 2. A failed call's
   * dependents are skipped, so ReAct then makes one model call less per skipped call, and native one less per
   * level left with only skipped calls.
   */
  readonly roundTrips: { readonly react: number; readonly native: number; readonly plan: number };
}

const FAILURE = /^(Error|Blocked|Timeout|Aborted|Skipped) \([a-z_]+\): /;

/**
 * Scripts a task (a set of tool calls with dependencies) for the three ways an agent can run it, so that
 * benchmarks and demos compare ReAct, native parallel function calling and plan mode on the same task. Each
 * script is a function of the request: it reads what the tools returned from the history (tool messages, or
 * ReAct `Observation:` messages, or the plan result's `results` / `errors`), copies observed values into later
 * arguments, and computes the answer with `answer` from what it observed, so a wrong tool result gives a wrong
 * answer. The formats are those of `@org/planner` (the JSON ReAct decision) and `@org/plan-executor` (the plan).
 *
 * @example
 * const scripts = createTaskScripts({
 *   calls: [
 *     { id: 'paris', toolName: 'get_weather', arguments: { city: 'Paris' } },
 *     { id: 'rome', toolName: 'get_weather', arguments: { city: 'Rome' } },
 *     { id: 'compare', toolName: 'compare', arguments: { first: '$ref:paris', second: '$ref:rome' } },
 *   ],
 *   answer: ({ outputs }) => String(outputs.compare),
 * });
 * const model = createScriptedModel({ script: scripts.native }); // 3 calls: depth 2 + 1
 */
export function createTaskScripts(options: TaskScriptOptions): TaskScripts {
  const calls = options.calls;
  const levels = new Map<string, number>();
  const referenced = new Set<string>();
  const dependencies = new Map<string, readonly string[]>();
  const indexes = new Map(calls.map((call, index) => [call.id, index]));
  calls.forEach((call, index) => {
    const path = `calls[${index}]`;
    if (typeof call.id !== 'string' || !/^[A-Za-z0-9_-]+$/.test(call.id)) {
      throw new InvalidScriptError({
        path: `${path}.id`,
        message: 'must be a non-empty id of letters, digits, _ or -.',
      });
    }
    if (levels.has(call.id))
      throw new InvalidScriptError({ path: `${path}.id`, message: `duplicates '${call.id}'.` });
    if (typeof call.toolName !== 'string' || call.toolName === '') {
      throw new InvalidScriptError({ path: `${path}.toolName`, message: 'must be a non-empty string.' });
    }
    let level = 1;
    const targets = [...new Set(referencedCallIds(call.arguments))];
    for (const target of targets) {
      const targetLevel = levels.get(target);
      if (targetLevel === undefined) {
        throw new InvalidScriptError({
          path: `${path}.arguments`,
          message: `references '${target}', which is not an earlier call. List calls after the calls they reference.`,
        });
      }
      referenced.add(target);
      level = Math.max(level, targetLevel + 1);
    }
    levels.set(call.id, level);
    dependencies.set(call.id, targets);
  });
  if (calls.length === 0)
    throw new InvalidScriptError({ path: 'calls', message: 'a task needs at least one call.' });
  const depth = Math.max(...levels.values());
  const unreferenced = calls.filter((call) => !referenced.has(call.id)).map((call) => call.id);
  const outputSteps = options.outputSteps ?? unreferenced;
  const defaultOutputs =
    outputSteps.length === unreferenced.length &&
    outputSteps.every((id, index) => id === unreferenced[index]);
  for (const id of outputSteps) {
    if (!levels.has(id))
      throw new InvalidScriptError({ path: 'outputSteps', message: `names unknown call '${id}'.` });
  }
  const planToolName = options.planToolName ?? 'execute_tool_plan';
  const thought = options.thought ?? ((call: TaskCall) => `I call ${call.toolName}.`);

  /**
   * Marks `call` skipped when a call it references failed or was skipped (the earliest such call in task order
   * names the cause, as in the plan executor). Returns whether it was skipped.
   */
  const skipIfDependencyFailed = (call: TaskCall, observed: Observed): boolean => {
    let failed: string | undefined;
    for (const dependency of dependencies.get(call.id) ?? []) {
      if (Object.hasOwn(observed.outputs, dependency)) continue;
      if (failed === undefined || (indexes.get(dependency) ?? 0) < (indexes.get(failed) ?? 0))
        failed = dependency;
    }
    if (failed === undefined) return false;
    const cause = observed.skippedBy[failed] ?? failed;
    observed.skippedBy[call.id] = cause;
    observed.skipped[call.id] = `Skipped because dependency '${cause}' failed`;
    return true;
  };

  const toAction = (call: TaskCall, observed: Observed): Record<string, unknown> =>
    resolveTaskReferences(call.arguments, observed.outputs) as Record<string, unknown>;

  const native: ScriptFunction = (request) => {
    const observed = observedFromToolMessages(request.messages);
    const settled = (id: string): boolean =>
      Object.hasOwn(observed.outputs, id) ||
      Object.hasOwn(observed.errors, id) ||
      Object.hasOwn(observed.skipped, id);
    const due: TaskCall[] = [];
    for (const call of calls) {
      if (settled(call.id)) continue;
      if (!(dependencies.get(call.id) ?? []).every(settled)) continue;
      if (!skipIfDependencyFailed(call, observed)) due.push(call);
    }
    if (due.length === 0) return { text: options.answer(view(observed)) };
    return {
      toolCalls: due.map((call) => ({
        id: call.id,
        toolName: call.toolName,
        arguments: toAction(call, observed),
      })),
    };
  };

  const react: ScriptFunction = (request) => {
    const observations = request.messages.filter(
      (message) => message.role === 'user' && contentText(message.content).startsWith('Observation: '),
    );
    const observed = emptyObserved();
    let seen = 0;
    let next: TaskCall | undefined;
    for (const call of calls) {
      if (skipIfDependencyFailed(call, observed)) continue;
      const observation = observations[seen];
      if (observation === undefined) {
        next = call;
        break;
      }
      seen++;
      record(observed, call.id, contentText(observation.content).slice('Observation: '.length));
    }
    if (next === undefined) {
      return {
        text: JSON.stringify({
          thought: 'I have what I need.',
          type: 'final_answer',
          answer: options.answer(view(observed)),
        }),
      };
    }
    return {
      text: JSON.stringify({
        thought: thought(next),
        type: 'call_tool',
        tool: next.toolName,
        args: toAction(next, observed),
      }),
    };
  };

  const plan: ScriptFunction = (request): ScriptedTurn => {
    const result = request.messages.find((message) => message.role === 'tool');
    if (result === undefined) {
      return {
        toolCalls: [
          {
            toolName: planToolName,
            // The terse plan form the plan tool teaches (docs/plan-mode.md): steps keyed by id, each `{ tool: args }`,
            // `$id.path` references, and `output_steps` left out when it is the default (the unreferenced steps).
            arguments: {
              steps: Object.fromEntries(
                calls.map((call) => [call.id, { [call.toolName]: shortReferences(call.arguments) }]),
              ),
              ...(defaultOutputs ? {} : { output_steps: outputSteps }),
            },
          },
        ],
      };
    }
    return { text: options.answer(observedFromPlanResult(contentText(result.content))) };
  };

  return {
    react,
    native,
    plan,
    callCount: calls.length,
    depth,
    roundTrips: { react: calls.length + 1, native: depth + 1, plan: 2 },
  };
}

/** What a script observed so far; `skippedBy` names the failed call behind each skip. */
interface Observed {
  readonly outputs: Record<string, unknown>;
  readonly errors: Record<string, string>;
  readonly skipped: Record<string, string>;
  readonly skippedBy: Record<string, string>;
}

/**
 * A record keyed by call ids (names a model or a script chose): no prototype, so `constructor` or `__proto__` is an
 * ordinary key, written and read as own data.
 */
function idRecord<Value>(): Record<string, Value> {
  return Object.create(null) as Record<string, Value>;
}

function emptyObserved(): Observed {
  return { outputs: idRecord(), errors: idRecord(), skipped: idRecord(), skippedBy: idRecord() };
}

function view(observed: Observed): TaskOutputs {
  return { outputs: observed.outputs, errors: observed.errors, skipped: observed.skipped };
}

function parseContent(content: string): unknown {
  try {
    return JSON.parse(content);
  } catch {
    return content;
  }
}

function record(observed: Observed, id: string, content: string, isError = FAILURE.test(content)): void {
  if (isError) observed.errors[id] = content;
  else observed.outputs[id] = parseContent(content);
}

function observedFromToolMessages(messages: ModelRequest['messages']): Observed {
  const observed = emptyObserved();
  for (const message of messages as readonly Message[]) {
    if (message.role === 'tool')
      record(observed, message.toolCallId, contentText(message.content), message.isError === true);
  }
  return observed;
}

function observedFromPlanResult(content: string): TaskOutputs {
  const parsed = parseContent(content);
  if (typeof parsed !== 'object' || parsed === null)
    return { outputs: idRecord(), errors: idRecord(), skipped: idRecord() };
  const body = parsed as {
    results?: Record<string, unknown>;
    errors?: Record<string, unknown>;
    skipped?: Record<string, unknown>;
  };
  const ownField = (name: 'results' | 'errors' | 'skipped'): Record<string, unknown> => {
    const value = Object.hasOwn(body, name) ? body[name] : undefined;
    return typeof value === 'object' && value !== null ? value : {};
  };
  const outputs = idRecord<unknown>();
  for (const [id, output] of Object.entries(ownField('results'))) outputs[id] = output;
  const errors = idRecord<string>();
  for (const [id, error] of Object.entries(ownField('errors'))) {
    errors[id] = typeof error === 'string' ? error : JSON.stringify(error);
  }
  const skipped = idRecord<string>();
  for (const [id, reason] of Object.entries(ownField('skipped'))) {
    skipped[id] = typeof reason === 'string' ? reason : JSON.stringify(reason);
  }
  return { outputs, errors, skipped };
}

/** Arguments with `$ref:<id>` written as the terse `$<id>`, and a literal `$` as `$$` (the plan form's escape). */
function shortReferences(value: unknown): unknown {
  if (typeof value === 'string')
    return value.replace(/\$(ref:)?/g, (_match, ref) => (ref === undefined ? '$$' : '$'));
  if (Array.isArray(value)) return value.map(shortReferences);
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = Object.create(null);
    for (const [key, item] of Object.entries(value)) copy[key] = shortReferences(item);
    return copy;
  }
  return value;
}
