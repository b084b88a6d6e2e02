import {
  assertLanguageModel,
  assertToolChoiceOffered,
  type LanguageModel,
  type ToolChoice,
  type ToolChoiceInput,
  toToolChoice,
} from '@org/core';
import { ToolRegistry } from '@org/tools';
import { InvalidAgentOptionsError } from './errors.js';
import type { Planner } from './planner.js';
import type { ToolChoiceContext } from './tool-choice-policy.js';

/** What `prepareStep` sees before each step. */
export interface PrepareStepContext extends ToolChoiceContext {
  /** The run's model. */
  readonly model: LanguageModel;
  /** All the run's tools. */
  readonly tools: ToolRegistry;
  /** The tool choice the run's `toolChoice` (or `policy`) gives this step. */
  readonly toolChoice: ToolChoice;
}

/** What `prepareStep` may change for the next step; anything left out keeps the run's setting. */
export interface StepSettings {
  /** The names of the tools offered in this step (a subset of the run's tools). A call of another tool is refused. */
  readonly activeTools?: readonly string[];
  /** The tool choice of this step; it must name an active tool. */
  readonly toolChoice?: ToolChoiceInput;
  /** The model of this step (the run's planner must support it). */
  readonly model?: LanguageModel;
}

/**
 * Called before each step to change its active tools, its tool choice or its model (the AI SDK's `prepareStep`). A
 * tool-choice policy is the special case that only returns `toolChoice`. It may be async; what it returns is checked,
 * and a setting that cannot apply (an unknown tool, a choice of an inactive tool, a model the planner cannot drive)
 * ends the run with `InvalidAgentOptionsError` (option `prepareStep`) before the step's model call.
 *
 * @example
 * await runAgent({
 *   model, tools, task,
 *   prepareStep: ({ step }) => (step === 0 ? { activeTools: ['search'], toolChoice: 'required' } : { model: cheaperModel }),
 * });
 */
export type PrepareStep = (
  context: PrepareStepContext,
) => StepSettings | undefined | PromiseLike<StepSettings | undefined>;

/** The settings of one step, after `prepareStep`. */
export interface PreparedStep {
  readonly model: LanguageModel;
  readonly tools: ToolRegistry;
  readonly toolChoice: ToolChoice;
}

/** Registries of active-tool subsets, built once per distinct subset of a run. */
export type ActiveToolRegistries = Map<string, ToolRegistry>;

/** Applies what `prepareStep` returned to a step, checking each setting. */
export async function prepareStep(
  prepare: PrepareStep,
  context: PrepareStepContext,
  planner: Planner,
  subsets: ActiveToolRegistries,
): Promise<PreparedStep> {
  const settings = await prepare(context);
  if (settings === undefined)
    return { model: context.model, tools: context.tools, toolChoice: context.toolChoice };
  if (typeof settings !== 'object' || settings === null) {
    throw invalid(`must return an object of step settings or undefined, got ${typeof settings}.`);
  }
  let model = context.model;
  if (settings.model !== undefined) {
    try {
      model = assertLanguageModel(settings.model);
      planner.assertSupports(model);
    } catch (error) {
      throw invalid(`returned a model this run cannot use: ${(error as Error).message}`);
    }
  }
  const tools =
    settings.activeTools === undefined
      ? context.tools
      : activeTools(context.tools, settings.activeTools, subsets);
  let toolChoice = context.toolChoice;
  if (settings.toolChoice !== undefined) {
    try {
      toolChoice = toToolChoice(settings.toolChoice);
      assertToolChoiceOffered(toolChoice, tools.names());
    } catch (error) {
      throw invalid(`returned a tool choice that cannot apply: ${(error as Error).message}`);
    }
  }
  return { model, tools, toolChoice };
}

function activeTools(
  registry: ToolRegistry,
  names: readonly string[],
  subsets: ActiveToolRegistries,
): ToolRegistry {
  if (!Array.isArray(names)) throw invalid('activeTools must be an array of tool names.');
  const key = JSON.stringify(names);
  const known = subsets.get(key);
  if (known !== undefined) return known;
  const unknown = names.filter((name) => typeof name !== 'string' || registry.resolve(name) === undefined);
  if (unknown.length > 0) {
    throw invalid(
      `activeTools names ${unknown.map((name) => JSON.stringify(name)).join(', ')}, not among the run's tools (${registry.names().join(', ')}).`,
    );
  }
  const active = new Set(names);
  const subset = ToolRegistry.from(registry.list().filter((tool) => active.has(tool.name)));
  subsets.set(key, subset);
  return subset;
}

function invalid(message: string): InvalidAgentOptionsError {
  return new InvalidAgentOptionsError({ option: 'prepareStep', message });
}
