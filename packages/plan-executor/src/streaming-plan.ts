import { jsonEqual } from '@org/core';
import type { Tool, ToolRegistry } from '@org/tools';
import { type ArgumentTemplate, compileArguments, forEachReference } from './argument-template.js';
import { checkReference, resolveStepTool, type StepScope } from './check-step.js';
import { formatPlanResult } from './format-plan-result.js';
import { IncrementalJsonReader, type IncrementalJsonValue } from './incremental-json-reader.js';
import { readListStep, readMapStep, type StepParts } from './parse-plan.js';
import type { PlanStep } from './plan.js';
import type { PlanProblem } from './plan-problem.js';
import type { PlanResult, PlanStepResult } from './plan-result.js';
import { PlanRun, type PlanRunSetup } from './plan-run.js';
import { PlanValidationError } from './plan-validation-error.js';
import { graphOf, modelToolNames, validatePlan } from './validate-plan.js';

/** What a streamed plan runs with: the checked options of the plan tool, and the tools its steps call. */
export interface StreamingPlanSetup extends PlanRunSetup {
  readonly tools: ToolRegistry;
}

/** Keys JavaScript orders first in an object (`Object.keys`), ascending: canonical integers up to 2^32 - 2. */
function arrayIndexOf(key: string): number | undefined {
  if (!/^(?:0|[1-9][0-9]{0,9})$/.test(key)) return undefined;
  const value = Number(key);
  return value <= 4_294_967_294 ? value : undefined;
}

/**
 * A plan run while the model writes it (LLMCompiler's task-fetching unit): its text is read as it streams, and each
 * step is added to the run the moment its object is complete, checked as validation would check it (shape, arguments,
 * tool, references to steps already read). A step of an `eager` tool that needs no approval starts as soon as the
 * steps it uses have succeeded; every other step waits for the whole plan (`finish`), which is validated as a whole
 * plan is. A valid plan then runs to the same result as `executePlan` would give it; an invalid one stops the steps
 * that started, and its error lists the problems and what those steps did.
 */
export class StreamingPlan {
  readonly #setup: StreamingPlanSetup;
  readonly #run: PlanRun;
  readonly #reader: IncrementalJsonReader;
  /** Run positions of the steps added, by id. */
  readonly #positions = new Map<string, number>();
  /** Every id read, added or not: a second step with one of them makes the plan invalid. */
  readonly #seen = new Set<string>();
  #form: 'list' | 'map' | undefined;
  #lastIndex = -1;
  /** Set when the streamed text cannot be the plan that will run (a repeated id or `steps`): nothing more is added. */
  #conflicted = false;
  #read = 0;

  constructor(setup: StreamingPlanSetup) {
    this.#setup = setup;
    this.#run = PlanRun.forStream(setup, setup.limits.maxSteps);
    this.#reader = new IncrementalJsonReader({
      paths: ['$.steps.*'],
      maxBytes: setup.limits.maxPlanBytes,
      maxDepth: setup.limits.maxDepth + 3,
      onValue: (value) => this.#offer(value),
    });
    this.#run.start();
  }

  /** The next fragment of the plan's text. */
  write(fragment: string): void {
    this.#reader.write(fragment);
  }

  /**
   * The whole plan, as the call that carried it will run (the tool's final arguments): validated as `executePlan`
   * validates a plan. Valid, the steps not started yet run and the result comes once every step has a final state.
   * Invalid, the steps that started are stopped (what finished keeps its result) and the promise rejects with a
   * `PlanValidationError` listing the problems and those steps.
   */
  async finish(plan: unknown): Promise<PlanResult> {
    const { tools, limits } = this.#setup;
    const validated = validatePlan(plan, { tools, limits });
    if (!validated.ok) return this.#abandon(validated.error.problems);
    const graph = graphOf(validated.plan)!;
    const problems: PlanProblem[] = [];
    const positionOf = (index: number): number => this.#positions.get(graph.steps[index]!.id)!;
    // In dependency order, so that every step a new one uses has a position already.
    for (const index of graph.order) {
      const step = graph.steps[index]!;
      const position = this.#positions.get(step.id);
      if (position === undefined) {
        this.#addFinal(step, graph.stepTools[index]!, index);
        continue;
      }
      const started = this.#run.stepAt(position);
      if (
        started.tool !== step.tool ||
        this.#run.toolAt(position) !== graph.stepTools[index] ||
        !jsonEqual(started.arguments, step.arguments)
      ) {
        problems.push({
          code: 'malformed_plan',
          stepId: step.id,
          path: `steps.${step.id}`,
          message: `Step '${step.id}' of the complete plan differs from the one read while the plan streamed.`,
        });
      }
    }
    if (this.#positions.size !== graph.steps.length) {
      const known = new Set(graph.steps.map((step) => step.id));
      for (const id of this.#positions.keys()) {
        if (known.has(id)) continue;
        problems.push({
          code: 'malformed_plan',
          stepId: id,
          path: 'steps',
          message: `Step '${id}' was read while the plan streamed but is not in the complete plan.`,
        });
      }
    }
    if (problems.length > 0) return this.#abandon(problems);
    const ranks: number[] = new Array(this.#run.stepCount);
    graph.steps.forEach((_, index) => {
      ranks[positionOf(index)] = index;
    });
    this.#run.seal({
      planOrder: graph.steps.map((_, index) => positionOf(index)),
      executionOrder: Array.from(graph.order, positionOf),
      outputPositions: Array.from(graph.outputIndexes, positionOf),
      ranks,
    });
    return this.#run.done;
  }

  /** Stops what started, then rejects with the problems and what the started steps did. */
  async #abandon(problems: readonly PlanProblem[]): Promise<never> {
    this.#run.abandon();
    const result = await this.#run.done;
    const started = result.steps.filter((step) => step.startedAt !== undefined);
    throw new PlanValidationError(problems, {
      startedSteps: started,
      ...(started.length === 0 ? {} : { startedSummary: summarise(result, started) }),
    });
  }

  /** A step of the complete plan that was not added while it streamed: it waits for `seal`. */
  #addFinal(step: PlanStep, tool: Tool, index: number): void {
    const template = this.#template(step.arguments);
    const dependencies: number[] = [];
    if (template !== undefined) {
      for (const site of template.sites)
        forEachReference(site, (reference) => {
          const position = this.#positions.get(reference.stepId)!;
          reference.stepIndex = position;
          if (!dependencies.includes(position)) dependencies.push(position);
        });
    }
    this.#positions.set(step.id, this.#run.addStep(step, tool, template, dependencies, index, true));
  }

  #template(args: Readonly<Record<string, unknown>>): ArgumentTemplate | undefined {
    return compileArguments(args).template;
  }

  /** A step read from the stream: added to the run when it can be checked now, otherwise left for `finish`. */
  #offer(value: IncrementalJsonValue): void {
    if (this.#conflicted || this.#run.stopped || value.path.length !== 2) return;
    const key = value.path[1]!;
    const form = typeof key === 'number' ? 'list' : 'map';
    if (this.#form !== undefined && this.#form !== form) this.#conflicted = true;
    if (typeof key === 'number') {
      if (key <= this.#lastIndex) this.#conflicted = true;
      this.#lastIndex = key;
    }
    this.#form = form;
    const position = this.#read++;
    if (this.#conflicted || position >= this.#setup.limits.maxSteps || !value.ok) return;
    const problems: PlanProblem[] = [];
    const parts =
      typeof key === 'number'
        ? readListStep(value.value, key, this.#setup.limits, problems)
        : readMapStep(key, value.value, this.#setup.limits, problems);
    const id = typeof key === 'string' ? key : parts?.id;
    if (id !== undefined) {
      if (this.#seen.has(id)) this.#conflicted = true;
      this.#seen.add(id);
    }
    if (parts?.id === undefined || this.#conflicted || problems.length > 0) return;
    this.#add(parts, form, key, problems);
  }

  #add(parts: StepParts, form: 'list' | 'map', key: string | number, problems: PlanProblem[]): void {
    const { tools, limits } = this.#setup;
    const run = this.#run;
    const scope: StepScope = {
      tools,
      limits,
      form,
      problems,
      indexOf: (stepId) => this.#positions.get(stepId),
      stepToolName: (index) => run.stepAt(index).tool,
      toolAt: (index) => run.toolAt(index),
      // A step that cannot be checked now waits for `finish`, whose validation finds the right words.
      suggest: () => undefined,
      toolNames: () => modelToolNames(tools),
      stepIds: () => this.#positions.keys(),
    };
    const position = run.stepCount;
    const tool = resolveStepTool(scope, position, parts);
    if (tool === undefined || parts.arguments === undefined) return;
    const compiled = compileArguments(parts.arguments);
    if (compiled.malformed.length > 0) return;
    const dependencies: number[] = [];
    for (const site of compiled.template?.sites ?? []) {
      forEachReference(site, (reference) => {
        const target = checkReference(scope, position, parts, reference, site);
        if (target === undefined) return;
        reference.stepIndex = target;
        if (!dependencies.includes(target)) dependencies.push(target);
      });
    }
    if (problems.length > 0) return;
    const step: PlanStep =
      parts.argumentRepairs === undefined
        ? { id: parts.id!, tool: parts.tool!, arguments: parts.arguments }
        : {
            id: parts.id!,
            tool: parts.tool!,
            arguments: parts.arguments,
            argumentRepairs: parts.argumentRepairs,
          };
    // Only what a discarded answer would not regret starts before the whole plan is known.
    const early = tool.eager && tool.needsApproval === false;
    this.#positions.set(
      step.id,
      run.addStep(step, tool, compiled.template, dependencies, this.#rank(key, position), !early),
    );
  }

  /**
   * The step's place in plan order as far as it is known while streaming: its index in a list; in the object form,
   * the order `Object.keys` gives (integer-like ids first, ascending, then the rest as written).
   */
  #rank(key: string | number, position: number): number {
    if (typeof key === 'number') return key;
    const index = arrayIndexOf(key);
    return index ?? 2 ** 32 + position;
  }
}

/** The steps that started, as the model reads a plan's result, fitted to a share of the output budget. */
function summarise(result: PlanResult, started: readonly PlanStepResult[]): string {
  const counts = { success: 0, error: 0, skipped: 0, blocked: 0, timeout: 0, aborted: 0 };
  for (const step of started) counts[step.status]++;
  return formatPlanResult(
    {
      ...result,
      steps: started,
      outputStepIds: started.map((step) => step.id),
      counts,
    },
    { budgetBytes: 20_000 },
  );
}
