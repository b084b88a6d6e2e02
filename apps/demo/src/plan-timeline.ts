import { readStrictJson } from '@org/core';
import { type PlanResult, parsePlan } from '@org/plan-executor';

/** One step of a plan run, placed in time (milliseconds from the timeline's origin). */
export interface TimelineStep {
  readonly id: string;
  readonly tool: string;
  /** `success`, `error`, `skipped`, `timeout`, ... */
  readonly status: string;
  /** Steps whose output this one references. */
  readonly dependsOn: readonly string[];
  /** Offset of the start; for a step that never ran, its finish. */
  readonly startMs: number;
  readonly endMs: number;
  readonly ran: boolean;
  /** On the chain of steps that decided when the plan finished. */
  readonly critical: boolean;
  /** For a skipped step: the failed step it traces back to. */
  readonly skippedBecauseOf?: string;
  /**
   * Started while a model call was still writing its answer (the plan streamed, its steps dispatched as they were
   * written): that call's number in the live trace (its step + 1).
   */
  readonly startedDuringModelCall?: number;
}

/** A plan run, ready to draw. */
export interface PlanTimeline {
  readonly title: string;
  /**
   * `program`: the calls of a code-mode program (`run_code`), drawn as steps under the code call; they carry no
   * declared dependencies. Default: a plan.
   */
  readonly kind?: 'plan' | 'program';
  /** The `execute_tool_plan` call that ran it, when known (the plan events' `planId`). */
  readonly planId?: string;
  /** From the plan's start (its first step's) to its end (its last step's). */
  readonly durationMs: number;
  readonly steps: readonly TimelineStep[];
  /** The critical path, first step first. */
  readonly criticalPath: readonly string[];
  /**
   * The critical path began with the model writing its first step: that step started after the plan was running and
   * after its dependencies had finished, in the instant the model call (this number: its step + 1) completed the step
   * in its stream. A plan dispatched as it streams can be held up by its own writing.
   */
  readonly criticalPathAfterModelCall?: number;
}

const REFERENCE = /\$ref:([A-Za-z0-9_-]+)/g;

/**
 * A JSON text's value (read with the strict reader of `@org/core`: a plan is model output), or the text itself when
 * it is not JSON.
 */
function jsonOrText(text: string): unknown {
  const read = readStrictJson(text);
  return read.ok ? read.value : text;
}

/**
 * The step ids an argument value references (`$ref:<id>...`, anywhere in strings, arrays and objects).
 *
 * @example
 * referencedSteps({ readings: ['$ref:paris', 'from $ref:rome.temperatureC'] }); // ['paris', 'rome']
 */
export function referencedSteps(value: unknown): string[] {
  const found = new Set<string>();
  const visit = (item: unknown): void => {
    if (typeof item === 'string') {
      for (const match of item.matchAll(REFERENCE)) if (match[1] !== undefined) found.add(match[1]);
    } else if (Array.isArray(item)) {
      item.forEach(visit);
    } else if (typeof item === 'object' && item !== null) {
      Object.values(item).forEach(visit);
    }
  };
  visit(typeof value === 'string' ? jsonOrText(value) : value);
  return [...found];
}

/**
 * Each step's arguments by step id, in the plan's order, from a plan (its JSON text, as the model wrote it, or the
 * parsed object). Entries that are not steps with a string id are left out: the plan executor reported those.
 *
 * @example
 * planStepArguments('{"steps":[{"id":"a","tool":"t","arguments":{}}]}'); // Map { 'a' => {} }
 */
export function planStepArguments(plan: unknown): Map<string, unknown> {
  const steps = new Map<string, unknown>();
  const parsed = typeof plan === 'string' ? jsonOrText(plan) : plan;
  // Read as the plan executor reads it: either plan form, references in their canonical `$ref:` form.
  const read = parsePlan(parsed);
  if (read.ok) {
    for (const step of read.plan.steps) if (!steps.has(step.id)) steps.set(step.id, step.arguments);
    return steps;
  }
  // A plan the executor refused: what can be read of its step list.
  const list =
    typeof parsed === 'object' && parsed !== null && Object.hasOwn(parsed, 'steps')
      ? (parsed as { steps?: unknown }).steps
      : undefined;
  if (!Array.isArray(list)) return steps;
  for (const step of list) {
    if (typeof step !== 'object' || step === null || !Object.hasOwn(step, 'id')) continue;
    const { id } = step as { id?: unknown };
    if (typeof id === 'string' && !steps.has(id)) {
      steps.set(
        id,
        Object.hasOwn(step, 'arguments') ? (step as { arguments?: unknown }).arguments : undefined,
      );
    }
  }
  return steps;
}

/** A step placed in time, before the critical path is known. */
export type PlacedStep = Omit<TimelineStep, 'critical'>;

/** How long after a dependency's end a step may start and still count as waiting for it (timers, real clocks). */
const WAITED_FOR_TOLERANCE_MS = 1;

/**
 * The critical path of placed steps: from the last step to finish, back through the dependency that finished last
 * (the one it waited for), first step first. The walk stops at a step that started well after its last dependency
 * had finished: that step waited for something else (the model still writing it, a free slot), not for a step.
 *
 * @example
 * criticalPathOf(steps); // ['oslo', 'compare']
 */
export function criticalPathOf(steps: readonly PlacedStep[]): string[] {
  const byId = new Map(steps.map((step) => [step.id, step]));
  const critical: string[] = [];
  let current = [...steps].filter((step) => step.ran).sort((a, b) => b.endMs - a.endMs)[0];
  while (current !== undefined && !critical.includes(current.id)) {
    critical.unshift(current.id);
    const startMs = current.startMs;
    current = current.dependsOn
      .map((id) => byId.get(id))
      .filter((step): step is PlacedStep => step?.ran === true)
      .sort((a, b) => b.endMs - a.endMs)
      .find((step) => step.endMs >= startMs - WAITED_FOR_TOLERANCE_MS);
  }
  return critical;
}

/** What a plan's critical path may begin with besides a step: the model call that was writing it. */
export interface ModelCallSpan {
  /** The call's number (its step + 1). */
  readonly modelCall: number;
  readonly startMs: number;
  readonly endMs: number;
}

/** The plan of placed steps, its critical path marked (and begun with the model call writing it, if one did). */
export function planTimelineOf(
  title: string,
  steps: readonly PlacedStep[],
  durationMs: number,
  planId?: string,
  modelCalls: readonly ModelCallSpan[] = [],
): PlanTimeline {
  const criticalPath = criticalPathOf(steps);
  const first = steps.find((step) => step.id === criticalPath[0]);
  const planStartMs = Math.min(...steps.filter((step) => step.ran).map((step) => step.startMs));
  // The first step on the path started after the plan was running, when no step held it up: the model was still
  // writing it (it started within a model call, or in the instant the call completed it).
  const writer =
    first !== undefined && first.startMs > planStartMs + WAITED_FOR_TOLERANCE_MS
      ? modelCalls.find(
          (call) => call.startMs <= first.startMs && first.startMs <= call.endMs + WAITED_FOR_TOLERANCE_MS,
        )
      : undefined;
  return {
    title,
    ...(planId === undefined ? {} : { planId }),
    durationMs,
    steps: steps.map((step) => ({ ...step, critical: criticalPath.includes(step.id) })),
    criticalPath,
    ...(writer === undefined ? {} : { criticalPathAfterModelCall: writer.modelCall }),
  };
}

/**
 * A plan's critical path in words: `oslo → compare`, `model call 1 → compare` when the model's writing held the path
 * up, `none` when no step ran.
 *
 * @example
 * describeCriticalPath(plan); // 'model call 1 → compare'
 */
export function describeCriticalPath(plan: PlanTimeline): string {
  const steps = plan.criticalPath.join(' → ');
  if (plan.criticalPathAfterModelCall !== undefined)
    return `model call ${plan.criticalPathAfterModelCall} → ${steps}`;
  return steps === '' ? 'none' : steps;
}

/**
 * The timeline of a plan run from the executor's result (`executePlan`): each step's start and end relative to the
 * plan's start, and the critical path. A whole agent run, model calls included, is drawn from its events with
 * `buildRunTimeline`.
 *
 * @example
 * const timeline = buildPlanTimeline('weather', result, planArguments);
 * timeline.criticalPath; // ['oslo', 'compare']
 */
export function buildPlanTimeline(title: string, result: PlanResult, plan: unknown): PlanTimeline {
  const rawSteps = planStepArguments(plan);
  const origin = result.startedAt;
  const placed = result.steps.map((step): PlacedStep => {
    const raw = rawSteps.get(step.id);
    const ran = step.startedAt !== undefined;
    const endMs = (step.finishedAt ?? result.finishedAt) - origin;
    return {
      id: step.id,
      tool: step.tool,
      status: step.status,
      dependsOn: raw === undefined ? [] : referencedSteps(raw).filter((id) => id !== step.id),
      startMs: ran ? (step.startedAt as number) - origin : endMs,
      endMs,
      ran,
      ...(step.skippedBecauseOf === undefined ? {} : { skippedBecauseOf: step.skippedBecauseOf }),
    };
  });
  return planTimelineOf(title, placed, result.finishedAt - origin);
}
