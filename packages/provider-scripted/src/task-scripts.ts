import { contentText, type Message, type ModelRequest } from '@org/core';
import { InvalidScriptError, ScriptMismatchError } from './errors.js';
import type { ScriptedTurn, ScriptFunction } from './scripted-model.js';
import { literalCallOrder, pickedFields, taskProgram } from './task-program.js';
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
  /**
   * A fan-out: `$ref:<id>` or `$ref:<id>.<path>` naming a list an earlier call returns. The call is made once per
   * item, `$item` or `$item.<field>` in the arguments standing for the item (as `$ref:` does for a call). The number
   * of calls is known only once the list is, which no plan can say in advance: native and plan mode make them one
   * model call after the list arrives, code mode in the same program (`Promise.all` over the list). Each is made with
   * the id `<id>_<n>` (n from 1); its output, to the calls, aggregates and answer that read `<id>`, is the list of
   * their outputs in the list's order.
   */
  readonly forEach?: string;
}

/**
 * A value computed from earlier outputs, with no tool: what a model does in its head after native calls or a plan,
 * and in the program in code mode. Its output is read by the answer (and by later aggregates) under its id.
 */
export interface TaskAggregate {
  /** Unique among the calls and aggregates. */
  readonly id: string;
  /** `$ref:<id>` or `$ref:<id>.<path>`: the list it is computed over (a fan-out's outputs, a list a call returned). */
  readonly of: string;
  /** Keep only the items whose fields equal these values. */
  readonly where?: Readonly<Record<string, string | number | boolean | null>>;
  /**
   * `count` of the kept items, the kept `items` themselves, the `sum` of a numeric field, or the item with the
   * largest (`max`) or smallest (`min`) field (the first such; `null` when none is kept).
   */
  readonly reduce:
    | 'count'
    | 'items'
    | { readonly sum: string }
    | { readonly max: string }
    | { readonly min: string };
  /**
   * Keep only these fields of each kept item (and the field `reduce` reads): what the answer reads of a large record,
   * so that a program returns `{ id, published }` rather than the whole page. The same in every mode, so the answer
   * reads the same values; a field an item lacks is left out.
   */
  readonly pick?: readonly string[];
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
  /**
   * Plan mode: the steps whose results the plan returns; code mode: the values the program returns (with the
   * aggregates nothing reads). May name aggregates (a plan then returns the calls they read). Default: the calls no
   * other call references.
   */
  readonly outputSteps?: readonly string[];
  /** Values computed from the outputs with no tool (a filter, a sum, the newest): see {@link TaskAggregate}. */
  readonly aggregates?: readonly TaskAggregate[];
  /** Default `execute_tool_plan`. */
  readonly planToolName?: string;
  /** Default `run_code`: the code tool, whose description declares one function per tool. */
  readonly codeToolName?: string;
  /** A thought for each ReAct decision. Default `I call <tool>.` */
  readonly thought?: (call: TaskCall) => string;
}

/** Scripts of one task for the three modes, and the analytic counts of model calls. */
export interface TaskScripts {
  /** For a model with `capabilities.toolCalls: false` driven by the ReAct planner: one call per turn. */
  readonly react: ScriptFunction;
  /** For the function-calling planner: every call whose inputs are known, in parallel, one turn per level. */
  readonly native: ScriptFunction;
  /**
   * For the function-calling planner with the plan tool offered: one plan, then the answer; a fan-out needs its
   * list first, so one more plan per fan-out level.
   */
  readonly plan: ScriptFunction;
  /**
   * For the function-calling planner with the code tool offered (`createCodeModeTool` of `@org/code-mode`): one
   * program that makes every call (each as soon as what it reads is ready, fan-outs with `Promise.all`, aggregates
   * computed in it) and returns what the answer needs, then the answer from the program's result. The functions are
   * those the code tool's description declares (`declare function <name>(`), read from the request.
   */
  readonly code: ScriptFunction;
  /** Number of calls (n). */
  readonly callCount: number;
  /** Length of the longest chain of dependent calls (a fan-out counts as one level). */
  readonly depth: number;
  /**
   * Model calls each mode makes when every call succeeds: ReAct n + 1 (n counting each fan-out call once; it makes
   * one more per further item), native depth + 1, plan 2 + the fan-out levels, code 2. A failed call's dependents are
   * skipped, so ReAct then makes one model call less per skipped call, and native one less per level left with only
   * skipped calls.
   */
  readonly roundTrips: {
    readonly react: number;
    readonly native: number;
    readonly plan: number;
    readonly code: number;
  };
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
  const aggregates = options.aggregates ?? [];
  const levels = new Map<string, number>();
  /** Fan-out levels on the longest chain up to each id: a plan waits for a list once per level. */
  const stages = new Map<string, number>();
  const referenced = new Set<string>();
  const dependencies = new Map<string, readonly string[]>();
  const indexes = new Map(calls.map((call, index) => [call.id, index]));
  const fanOuts = new Map<string, TaskCall>();
  const dependOn = (path: string, targets: readonly string[]): number[] => {
    const found: number[] = [];
    for (const target of targets) {
      const targetLevel = levels.get(target);
      if (targetLevel === undefined) {
        throw new InvalidScriptError({
          path,
          message: `references '${target}', which is not an earlier call. List calls after the calls they reference.`,
        });
      }
      referenced.add(target);
      found.push(targetLevel);
    }
    return found;
  };
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
    const source = call.forEach === undefined ? [] : [wholeReference(call.forEach, `${path}.forEach`)];
    const targets = [...new Set([...source, ...referencedCallIds(call.arguments)])];
    const targetLevels = dependOn(`${path}.arguments`, targets);
    const level = Math.max(0, ...targetLevels) + 1;
    levels.set(call.id, level);
    stages.set(
      call.id,
      Math.max(0, ...targets.map((target) => stages.get(target) ?? 0)) + (call.forEach === undefined ? 0 : 1),
    );
    dependencies.set(call.id, targets);
    if (call.forEach !== undefined) fanOuts.set(call.id, call);
  });
  if (calls.length === 0)
    throw new InvalidScriptError({ path: 'calls', message: 'a task needs at least one call.' });
  aggregates.forEach((aggregate, index) => {
    const path = `aggregates[${index}]`;
    if (
      typeof aggregate.id !== 'string' ||
      !/^[A-Za-z0-9_-]+$/.test(aggregate.id) ||
      levels.has(aggregate.id)
    ) {
      throw new InvalidScriptError({
        path: `${path}.id`,
        message: 'must be an id of letters, digits, _ or - that no call or other aggregate has.',
      });
    }
    const target = wholeReference(aggregate.of, `${path}.of`);
    if (
      aggregate.pick !== undefined &&
      (!Array.isArray(aggregate.pick) ||
        aggregate.pick.length === 0 ||
        !aggregate.pick.every((field) => typeof field === 'string' && /^[A-Za-z0-9_-]+$/.test(field)))
    ) {
      throw new InvalidScriptError({
        path: `${path}.pick`,
        message: 'must be a non-empty list of field names of letters, digits, _ or -.',
      });
    }
    dependOn(`${path}.of`, [target]);
    // An aggregate is not a call: no level of its own, but later aggregates may read it.
    levels.set(aggregate.id, levels.get(target) ?? 0);
    stages.set(aggregate.id, stages.get(target) ?? 0);
    dependencies.set(aggregate.id, [target]);
  });
  const depth = Math.max(...calls.map((call) => levels.get(call.id) ?? 1));
  const fanOutLevels = Math.max(...calls.map((call) => stages.get(call.id) ?? 0));
  const unreferenced = calls.filter((call) => !referenced.has(call.id)).map((call) => call.id);
  const outputSteps = options.outputSteps ?? unreferenced;
  const defaultOutputs =
    outputSteps.length === unreferenced.length &&
    outputSteps.every((id, index) => id === unreferenced[index]);
  for (const id of outputSteps) {
    if (!levels.has(id))
      throw new InvalidScriptError({ path: 'outputSteps', message: `names unknown call '${id}'.` });
  }
  // What a program returns: the output steps, and the aggregates nothing else reads.
  const returned = [
    ...new Set([
      ...outputSteps,
      ...aggregates.filter((entry) => !referenced.has(entry.id)).map((entry) => entry.id),
    ]),
  ];
  // The calls whose outputs the answer reads: the output steps, an aggregate standing for the calls it reads.
  const aggregateIds = new Set(aggregates.map((entry) => entry.id));
  const outputCalls = new Set<string>();
  const addOutput = (id: string): void => {
    if (!aggregateIds.has(id)) outputCalls.add(id);
    else for (const input of dependencies.get(id) ?? []) addOutput(input);
  };
  for (const id of outputSteps) addOutput(id);
  const planToolName = options.planToolName ?? 'execute_tool_plan';
  const codeToolName = options.codeToolName ?? 'run_code';
  const thought = options.thought ?? ((call: TaskCall) => `I call ${call.toolName}.`);

  /** The calls of a fan-out, once its list is observed; `undefined` before. */
  const expansionsOf = (call: TaskCall, observed: Observed): ConcreteCall[] | undefined => {
    const sourceId = dependencies.get(call.id)?.[0] ?? '';
    if (!Object.hasOwn(observed.outputs, sourceId)) return undefined;
    const list = resolveTaskReferences(call.forEach, observed.outputs);
    const items = Array.isArray(list) ? list : [];
    return items.map((item, index) => ({
      id: `${call.id}_${index + 1}`,
      toolName: call.toolName,
      arguments: substituteItem(call.arguments, item) as Record<string, unknown>,
      taskId: call.id,
    }));
  };

  /** Fills the outputs of fan-outs (the list of their calls' outputs) and aggregates whose inputs are observed. */
  const complete = (observed: Observed): void => {
    for (const call of calls) {
      if (call.forEach === undefined || Object.hasOwn(observed.outputs, call.id)) continue;
      const expansions = expansionsOf(call, observed);
      if (expansions === undefined) continue;
      const failed = expansions.find((expansion) => !Object.hasOwn(observed.outputs, expansion.id));
      if (failed === undefined) {
        observed.outputs[call.id] = expansions.map((expansion) => observed.outputs[expansion.id]);
        continue;
      }
      if (Object.hasOwn(observed.errors, failed.id) || Object.hasOwn(observed.skipped, failed.id)) {
        const all = expansions.every(
          (expansion) =>
            Object.hasOwn(observed.outputs, expansion.id) ||
            Object.hasOwn(observed.errors, expansion.id) ||
            Object.hasOwn(observed.skipped, expansion.id),
        );
        if (all) observed.skippedBy[call.id] = observed.skippedBy[failed.id] ?? failed.id;
      }
    }
    for (const aggregate of aggregates) {
      const value = computeAggregate(aggregate, observed.outputs);
      if (value !== MISSING) observed.outputs[aggregate.id] = value;
    }
  };

  /** Settled: observed (output, error, skip), run in an earlier plan, or a fan-out whose calls all are. */
  const settled = (id: string, observed: Observed): boolean => {
    if (
      Object.hasOwn(observed.outputs, id) ||
      Object.hasOwn(observed.errors, id) ||
      Object.hasOwn(observed.skipped, id) ||
      Object.hasOwn(observed.skippedBy, id) ||
      observed.ran.has(id)
    )
      return true;
    const fanOut = fanOuts.get(id);
    const expansions = fanOut === undefined ? undefined : expansionsOf(fanOut, observed);
    return expansions?.every((expansion) => settled(expansion.id, observed)) === true;
  };

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

  const toAction = (call: { readonly arguments: unknown }, observed: Observed): Record<string, unknown> =>
    resolveTaskReferences(call.arguments, observed.outputs) as Record<string, unknown>;

  /** The concrete calls of `call`: itself, or its fan-out's calls (once the list is observed). */
  const concrete = (call: TaskCall, observed: Observed): ConcreteCall[] =>
    call.forEach === undefined
      ? [{ id: call.id, toolName: call.toolName, arguments: call.arguments, taskId: call.id }]
      : (expansionsOf(call, observed) ?? []);

  const native: ScriptFunction = (request) => {
    const observed = observedFromToolMessages(request.messages);
    complete(observed);
    const due: ConcreteCall[] = [];
    for (const call of calls) {
      if (settled(call.id, observed)) continue;
      if (!(dependencies.get(call.id) ?? []).every((id) => settled(id, observed))) continue;
      if (skipIfDependencyFailed(call, observed)) continue;
      for (const each of concrete(call, observed)) if (!settled(each.id, observed)) due.push(each);
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
    let next: ConcreteCall | undefined;
    everyCall: for (const call of calls) {
      complete(observed);
      if (skipIfDependencyFailed(call, observed)) continue;
      for (const each of concrete(call, observed)) {
        const observation = observations[seen];
        if (observation === undefined) {
          next = each;
          break everyCall;
        }
        seen++;
        record(observed, each.id, contentText(observation.content).slice('Observation: '.length));
      }
    }
    complete(observed);
    if (next === undefined) {
      return {
        text: JSON.stringify({
          thought: 'I have what I need.',
          type: 'final_answer',
          answer: options.answer(view(observed)),
        }),
      };
    }
    const decided = next;
    return {
      text: JSON.stringify({
        thought: thought(calls.find((call) => call.id === decided.taskId) ?? calls[0]!),
        type: 'call_tool',
        tool: decided.toolName,
        args: toAction(decided, observed),
      }),
    };
  };

  const plan: ScriptFunction = (request): ScriptedTurn => {
    const observed = emptyObserved();
    for (const message of request.messages) {
      if (message.role === 'tool') mergePlanResult(observed, contentText(message.content));
      // Every step of a plan that ran is settled, whether or not the plan returned its output.
      if (message.role === 'assistant') {
        for (const call of message.toolCalls ?? []) {
          if (call.toolName !== planToolName) continue;
          const body = bodyOf(call.arguments);
          for (const id of Object.keys(body === undefined ? {} : ownRecord(body, 'steps')))
            observed.ran.add(id);
        }
      }
    }
    complete(observed);
    // This plan: every call not yet settled whose inputs are observed or in the plan (a fan-out only once its list
    // is observed: the number of its steps is not known before).
    const included = new Map<string, ConcreteCall[]>();
    for (const call of calls) {
      if (settled(call.id, observed)) continue;
      const inputs = dependencies.get(call.id) ?? [];
      if (inputs.some((id) => !Object.hasOwn(observed.outputs, id) && !included.has(id))) {
        if (inputs.every((id) => settled(id, observed))) skipIfDependencyFailed(call, observed);
        continue;
      }
      if (call.forEach !== undefined && !Object.hasOwn(observed.outputs, inputs[0] ?? '')) continue;
      included.set(call.id, concrete(call, observed));
    }
    const steps = [...included.values()].flat();
    if (steps.length === 0) return { text: options.answer(view(observed)) };
    const stepArguments = (value: unknown): unknown => planReferences(value, observed.outputs, included);
    const inPlan = new Set(steps.map((step) => step.id));
    const referencedInPlan = new Set(
      steps.flatMap((step) => referencedCallIds(stepArguments(step.arguments))),
    );
    const defaultOutput = steps.map((step) => step.id).filter((id) => !referencedInPlan.has(id));
    // What later turns need of this plan: the task's output steps, and the inputs of calls left for a later plan.
    const later = calls.filter((call) => !included.has(call.id) && !settled(call.id, observed));
    const wanted = new Set(
      [...outputCalls, ...later.flatMap((call) => dependencies.get(call.id) ?? [])].flatMap(
        (id) => included.get(id)?.map((step) => step.id) ?? [],
      ),
    );
    const output =
      defaultOutputs && later.length === 0 ? defaultOutput : [...inPlan].filter((id) => wanted.has(id));
    const sameAsDefault =
      output.length === defaultOutput.length && output.every((id, index) => id === defaultOutput[index]);
    return {
      toolCalls: [
        {
          toolName: planToolName,
          // The terse plan form the plan tool teaches (docs/plan-mode.md): steps keyed by id, each `{ tool: args }`,
          // `$id.path` references, and `output_steps` left out when it is the default (the unreferenced steps).
          arguments: {
            steps: Object.fromEntries(
              steps.map((step) => [
                step.id,
                { [step.toolName]: shortReferences(stepArguments(step.arguments)) },
              ]),
            ),
            ...(sameAsDefault ? {} : { output_steps: output }),
          },
        },
      ],
    };
  };

  // The order in which a program makes its literal calls: how a failed program's result numbers them.
  const literalCalls = literalCallOrder({ calls, aggregates, returned, dependencies });
  const code: ScriptFunction = (request, context): ScriptedTurn => {
    const result = request.messages.find(
      (message) => message.role === 'tool' && message.toolName === codeToolName,
    );
    if (result !== undefined) {
      const content = contentText(result.content);
      return { text: options.answer(observedFromCodeResult(content, calls, returned, literalCalls)) };
    }
    const functions = declaredFunctions(request, codeToolName, context.callIndex);
    const functionOf = (toolName: string): string => {
      const declared = functions.get(toolName.replace(/[^A-Za-z0-9_$]/g, '_').replace(/^(\d)/, '_$1'));
      if (declared !== undefined) return declared;
      throw new ScriptMismatchError({
        callIndex: context.callIndex,
        mismatch: 'code-function-not-declared',
        message: `the task calls '${toolName}', but '${codeToolName}' declares no function for it.`,
      });
    };
    return {
      toolCalls: [
        {
          toolName: codeToolName,
          arguments: { code: taskProgram({ calls, aggregates, returned, functionOf, dependencies }) },
        },
      ],
    };
  };

  return {
    react,
    native,
    plan,
    code,
    callCount: calls.length,
    depth,
    roundTrips: { react: calls.length + 1, native: depth + 1, plan: 2 + fanOutLevels, code: 2 },
  };
}

/** One call as a model makes it: a task call, or one call of a fan-out (`<id>_<n>`). */
interface ConcreteCall {
  readonly id: string;
  readonly toolName: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** The task call it comes from. */
  readonly taskId: string;
}

/** The id of a value that is exactly one reference, `$ref:<id>` or `$ref:<id>.<path>`. */
function wholeReference(value: unknown, path: string): string {
  const match =
    typeof value === 'string' ? /^\$ref:([A-Za-z0-9_-]+)(?:\.[A-Za-z0-9_-]+)*$/.exec(value) : null;
  if (match === null) {
    throw new InvalidScriptError({ path, message: 'must be one reference, $ref:<id> or $ref:<id>.<path>.' });
  }
  return match[1] as string;
}

/** `value` with `$item` and `$item.<path>` filled from `item`, as `$ref:` is filled from a call's output. */
function substituteItem(value: unknown, item: unknown): unknown {
  if (typeof value === 'string') {
    if (!value.includes('$item')) return value;
    return resolveTaskReferences(value.replace(/\$item/g, '$ref:__item__'), { __item__: item });
  }
  if (Array.isArray(value)) return value.map((entry) => substituteItem(entry, item));
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = Object.create(null);
    for (const [key, entry] of Object.entries(value)) copy[key] = substituteItem(entry, item);
    return { ...copy };
  }
  return value;
}

const MISSING: unique symbol = Symbol('missing');

function fieldOf(item: unknown, field: string): unknown {
  return typeof item === 'object' && item !== null && Object.hasOwn(item, field)
    ? (item as Record<string, unknown>)[field]
    : undefined;
}

/** An aggregate's value once its list is observed (`MISSING` before), computed as its program does. */
function computeAggregate(aggregate: TaskAggregate, outputs: Readonly<Record<string, unknown>>): unknown {
  const source = /^\$ref:([A-Za-z0-9_-]+)/.exec(aggregate.of)?.[1] ?? '';
  if (!Object.hasOwn(outputs, source)) return MISSING;
  const list = resolveTaskReferences(aggregate.of, outputs);
  const kept = (Array.isArray(list) ? list : []).filter((item) =>
    Object.entries(aggregate.where ?? {}).every(([field, value]) => fieldOf(item, field) === value),
  );
  const fields = aggregate.pick === undefined ? undefined : pickedFields(aggregate);
  const items =
    fields === undefined
      ? kept
      : kept.map((item) => {
          const picked: Record<string, unknown> = {};
          for (const field of fields) {
            const value = fieldOf(item, field);
            if (value !== undefined)
              Object.defineProperty(picked, field, {
                value,
                enumerable: true,
                writable: true,
                configurable: true,
              });
          }
          return picked;
        });
  const reduce = aggregate.reduce;
  if (reduce === 'count') return items.length;
  if (reduce === 'items') return items;
  if ('sum' in reduce) return items.reduce((sum: number, item) => sum + Number(fieldOf(item, reduce.sum)), 0);
  const field = 'max' in reduce ? reduce.max : reduce.min;
  const better = (a: unknown, b: unknown): boolean =>
    'max' in reduce ? (a as number) > (b as number) : (a as number) < (b as number);
  return items.reduce<unknown>(
    (best, item) => (best === null || better(fieldOf(item, field), fieldOf(best, field)) ? item : best),
    null,
  );
}

/**
 * A plan step's arguments: references to calls observed in earlier plans filled in with their values (a plan can
 * only reference its own steps), references to a fan-out in this plan turned into its steps (`$ref:f` into the
 * list `['$ref:f_1', ...]`, `$ref:f.0.x` into `$ref:f_1.x`).
 */
function planReferences(
  value: unknown,
  outputs: Readonly<Record<string, unknown>>,
  included: ReadonlyMap<string, readonly ConcreteCall[]>,
): unknown {
  if (typeof value === 'string') {
    const ids = referencedCallIds(value);
    if (ids.length === 0) return value;
    if (ids.every((id) => Object.hasOwn(outputs, id) && !included.has(id)))
      return resolveTaskReferences(value, outputs);
    const whole = /^\$ref:([A-Za-z0-9_-]+)(?:\.(\d+))?((?:\.[A-Za-z0-9_-]+)*)$/.exec(value);
    const fanOut = whole === null ? undefined : included.get(whole[1] as string);
    if (whole !== null && fanOut !== undefined && fanOut[0]?.id !== whole[1]) {
      if (whole[2] === undefined) return fanOut.map((step) => `$ref:${step.id}`);
      const step = fanOut[Number(whole[2])];
      return step === undefined ? null : `$ref:${step.id}${whole[3] ?? ''}`;
    }
    return value;
  }
  if (Array.isArray(value)) return value.map((entry) => planReferences(entry, outputs, included));
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(value)) {
      Object.defineProperty(copy, key, {
        value: planReferences(entry, outputs, included),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  }
  return value;
}

/**
 * The functions the code tool declares (`declare function <name>(`), by name: a model calls what it was told
 * exists. A request without the code tool is out of script.
 */
function declaredFunctions(
  request: ModelRequest,
  codeToolName: string,
  callIndex: number,
): Map<string, string> {
  const tool = request.tools?.find((candidate) => candidate.name === codeToolName);
  if (tool === undefined) {
    throw new ScriptMismatchError({
      callIndex,
      mismatch: 'code-tool-not-offered',
      message: `the code script writes a program for '${codeToolName}', which the request does not offer.`,
    });
  }
  const functions = new Map<string, string>();
  for (const match of tool.description.matchAll(/declare function ([A-Za-z_$][\w$]*)\(/g)) {
    const name = match[1] as string;
    functions.set(name, name);
  }
  return functions;
}

/** What a script observed so far; `skippedBy` names the failed call behind each skip. */
interface Observed {
  readonly outputs: Record<string, unknown>;
  readonly errors: Record<string, string>;
  readonly skipped: Record<string, string>;
  readonly skippedBy: Record<string, string>;
  /** Plan steps that ran (plan mode), returned or not. */
  readonly ran: Set<string>;
}

/**
 * A record keyed by call ids (names a model or a script chose): no prototype, so `constructor` or `__proto__` is an
 * ordinary key, written and read as own data.
 */
function idRecord<Value>(): Record<string, Value> {
  return Object.create(null) as Record<string, Value>;
}

function emptyObserved(): Observed {
  return {
    outputs: idRecord(),
    errors: idRecord(),
    skipped: idRecord(),
    skippedBy: idRecord(),
    ran: new Set(),
  };
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

/** A tool result's JSON body as an own-keyed record, or `undefined` when it is not a JSON object. */
function bodyOf(content: string): Record<string, unknown> | undefined {
  const parsed = parseContent(content);
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : undefined;
}

function ownRecord(body: Record<string, unknown>, name: string): Record<string, unknown> {
  const value = Object.hasOwn(body, name) ? body[name] : undefined;
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

const asText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** Adds a plan result's `results`, `errors` and `skipped` to what was observed. */
function mergePlanResult(observed: Observed, content: string): void {
  const body = bodyOf(content);
  if (body === undefined) return;
  for (const [id, output] of Object.entries(ownRecord(body, 'results'))) observed.outputs[id] = output;
  for (const [id, error] of Object.entries(ownRecord(body, 'errors'))) observed.errors[id] = asText(error);
  for (const [id, reason] of Object.entries(ownRecord(body, 'skipped'))) {
    observed.skipped[id] = asText(reason);
    observed.skippedBy[id] = /'([A-Za-z0-9_-]+)'/.exec(asText(reason))?.[1] ?? id;
  }
}

/**
 * What the model reads from a program's result (`formatCodeResult` of `@org/code-mode`): the returned object's
 * entries as outputs. After a failed program: each failed call under the id of the task call with the same tool and
 * arguments, and the results that took effect; the calls without dependencies are made first, in the order the
 * program writes them (`literalCalls`: `#1`, `#2`, ...), so those results are read under their ids, and any other
 * under the result's own key (`#5 sum`), since the result alone does not say which call it answered.
 */
function observedFromCodeResult(
  content: string,
  calls: readonly TaskCall[],
  returned: readonly string[],
  literalCalls: readonly string[],
): TaskOutputs {
  const observed = emptyObserved();
  const body = bodyOf(content);
  if (body === undefined) {
    observed.errors.run_code = content;
    return view(observed);
  }
  if (body.status === 'success') {
    const value = ownRecord(body, 'value');
    for (const id of returned) if (Object.hasOwn(value, id)) observed.outputs[id] = value[id];
    return view(observed);
  }
  const byId = new Map(calls.map((call) => [call.id, call]));
  const first = literalCalls.flatMap((id) => byId.get(id) ?? []);
  for (const [key, entry] of Object.entries(ownRecord(body, 'failedCalls'))) {
    const failure = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : {};
    const toolName = / (.+)$/.exec(key)?.[1];
    const match = first.find(
      (call) => call.toolName === toolName && JSON.stringify(call.arguments) === JSON.stringify(failure.args),
    );
    observed.errors[match?.id ?? key] = asText(failure.message ?? failure.status ?? entry);
  }
  for (const [key, output] of Object.entries(ownRecord(body, 'tookEffect'))) {
    const index = Number(/^#(\d+) /.exec(key)?.[1] ?? 0);
    const call = first[index - 1];
    observed.outputs[call !== undefined && key === `#${index} ${call.toolName}` ? call.id : key] = output;
  }
  if (Object.keys(observed.errors).length === 0 && body.error !== undefined)
    observed.errors.run_code = asText(body.error);
  return view(observed);
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
