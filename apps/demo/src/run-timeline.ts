import type { RunEvent } from '@org/core';
import {
  describeCriticalPath,
  type ModelCallSpan,
  type PlacedStep,
  type PlanTimeline,
  planStepArguments,
  planTimelineOf,
  referencedSteps,
} from './plan-timeline.js';

/** One model call of a run, placed in time (milliseconds from the run's start). */
export interface TimelineModelCall {
  /** The planning step (zero-based): the live trace calls it `model call <step + 1>`. */
  readonly step: number;
  /** 1 for the step's first call; 2 and up for a retry or a repair round trip in the same step. */
  readonly attempt: number;
  /** When the request was sent (`inference-started`). */
  readonly startMs: number;
  /**
   * When the first part of the answer streamed in (text, reasoning or a tool call): the time to first token ends
   * here and generation begins. Absent when nothing streamed (a model that does not stream, a call that failed first).
   */
  readonly firstTokenMs?: number;
  /** When the answer was complete (`inference-finished`) or the call failed. */
  readonly endMs: number;
  /** `unfinished`: the events ended before the call did. */
  readonly status: 'finished' | 'failed' | 'unfinished';
  readonly outputTokens?: number;
}

/** One tool call of a run (not a plan step), placed in time. */
export interface TimelineToolCall {
  readonly id: string;
  readonly tool: string;
  /** The observation's status (`success`, `error`, ...), or `unfinished` when the events ended first. */
  readonly status: string;
  /** Offset of the start; for a call that never ran (rejected, skipped), its finish. */
  readonly startMs: number;
  readonly endMs: number;
  readonly ran: boolean;
  /** Started while a model call was still writing its answer (an `eager` tool): that call's number (step + 1). */
  readonly startedDuringModelCall?: number;
}

/** A whole agent run against time: what the model generated, and the tools and plan steps that ran beside it. */
export interface RunTimeline {
  readonly title: string;
  /** From the run's start to its end. */
  readonly durationMs: number;
  readonly modelCalls: readonly TimelineModelCall[];
  readonly toolCalls: readonly TimelineToolCall[];
  readonly plans: readonly PlanTimeline[];
}

/** Options of {@link buildRunTimeline}. */
export interface RunTimelineOptions {
  /** The time the offsets count from; default the first event's timestamp. */
  readonly origin?: number;
}

interface OpenModelCall {
  readonly step: number;
  readonly attempt: number;
  readonly startMs: number;
  firstTokenMs?: number;
}

interface MutableToolCall {
  readonly id: string;
  readonly tool: string;
  status: string;
  startMs: number;
  endMs: number | undefined;
  ran: boolean;
  startedDuringModelCall?: number;
}

interface MutableStep {
  readonly id: string;
  readonly tool: string;
  status: string;
  startMs: number | undefined;
  endMs: number | undefined;
  startedDuringModelCall?: number;
}

/** The parts of an answer that end the wait for its first token. */
const FIRST_TOKEN_EVENTS: ReadonlySet<RunEvent['type']> = new Set([
  'text-delta',
  'reasoning-delta',
  'tool-call-streaming-started',
  'tool-call-arguments-delta',
]);

/**
 * The timeline of an agent run, from its events (as `runAgent`'s `onEvent` delivers them): each model call from
 * request to complete answer, with its time to first token (its first streamed part); each tool call; and each plan's
 * steps (by their `planId`) with their dependencies (read from the plan the model wrote, in `inference-finished`) and
 * critical path. A tool call or plan step that started before the model call writing it had finished is marked with
 * that call (`startedDuringModelCall`): an eager tool, or a plan whose steps were dispatched as it streamed.
 *
 * @example
 * const events: RunEvent[] = [];
 * await runAgent({ model, tools, task, onEvent: (event) => events.push(event) });
 * writeFileSync('run.svg', renderTimelineSvg(buildRunTimeline('weather', events)));
 */
export function buildRunTimeline(
  title: string,
  events: readonly RunEvent[],
  options: RunTimelineOptions = {},
): RunTimeline {
  const origin = options.origin ?? events[0]?.timestamp ?? 0;
  let end = origin;
  let open: OpenModelCall | undefined;
  const attempts = new Map<number, number>();
  const modelCalls: TimelineModelCall[] = [];
  const toolCalls = new Map<string, MutableToolCall>();
  const writtenArguments = new Map<string, string>();
  const plans = new Map<string, Map<string, MutableStep>>();
  /** The calls among `plans` that ran programs (code mode), not plans. */
  const programs = new Set<string>();
  /** What started while the open call was writing: early only if the call was still writing after the start. */
  let startedWhileWriting: { startedDuringModelCall?: number; readonly startMs: number | undefined }[] = [];
  const closeModelCall = (
    status: TimelineModelCall['status'],
    endMs: number,
    outputTokens?: number,
  ): void => {
    // A call complete in the stream often starts in the instant the answer ends (its last token): not early.
    for (const started of startedWhileWriting) {
      if (started.startMs !== undefined && started.startMs >= endMs) delete started.startedDuringModelCall;
    }
    startedWhileWriting = [];
    if (open === undefined) return;
    modelCalls.push({
      step: open.step,
      attempt: open.attempt,
      startMs: open.startMs,
      ...(open.firstTokenMs === undefined ? {} : { firstTokenMs: open.firstTokenMs }),
      endMs,
      status,
      ...(outputTokens === undefined ? {} : { outputTokens }),
    });
    open = undefined;
  };
  const writing = (): { startedDuringModelCall?: number } =>
    open === undefined ? {} : { startedDuringModelCall: open.step + 1 };
  const planSteps = (planId: string): Map<string, MutableStep> => {
    let steps = plans.get(planId);
    if (steps === undefined) {
      steps = new Map();
      plans.set(planId, steps);
    }
    return steps;
  };

  for (const event of events) {
    end = Math.max(end, event.timestamp);
    const at = event.timestamp - origin;
    if (FIRST_TOKEN_EVENTS.has(event.type)) {
      if (open !== undefined && open.firstTokenMs === undefined) open.firstTokenMs = at;
      continue;
    }
    switch (event.type) {
      case 'inference-started': {
        closeModelCall('unfinished', at);
        const attempt = (attempts.get(event.step) ?? 0) + 1;
        attempts.set(event.step, attempt);
        open = { step: event.step, attempt, startMs: at };
        break;
      }
      case 'inference-finished':
        for (const call of event.toolCalls) writtenArguments.set(call.id, call.arguments);
        closeModelCall('finished', at, event.usage.outputTokens);
        break;
      case 'inference-failed':
        closeModelCall('failed', at);
        break;
      case 'tool-call-started':
        if (!toolCalls.has(event.action.id)) {
          const call: MutableToolCall = {
            id: event.action.id,
            tool: event.action.toolName,
            status: 'unfinished',
            startMs: at,
            endMs: undefined,
            ran: true,
            ...writing(),
          };
          toolCalls.set(call.id, call);
          if (open !== undefined) startedWhileWriting.push(call);
        }
        break;
      case 'tool-call-finished': {
        const { observation } = event;
        const call = toolCalls.get(observation.actionId) ?? {
          id: observation.actionId,
          tool: observation.toolName,
          status: observation.status,
          startMs: at,
          endMs: undefined,
          ran: false,
        };
        call.status = observation.status;
        call.endMs = at;
        toolCalls.set(call.id, call);
        break;
      }
      // A code call's own calls (`@org/code-mode` reports each as the code call's progress): drawn as the steps of
      // a plan run by that call, named by their order in the program (`#1`, `#2`, ...).
      case 'tool-call-progress': {
        const nested = event.progress as RunEvent;
        if (nested.type === 'tool-call-started') {
          const steps = planSteps(event.actionId);
          programs.add(event.actionId);
          const id = programStepId(nested.action.id);
          if (!steps.has(id)) {
            const step: MutableStep = {
              id,
              tool: nested.action.toolName,
              status: 'unfinished',
              startMs: at,
              endMs: undefined,
              ...writing(),
            };
            steps.set(id, step);
            if (open !== undefined) startedWhileWriting.push(step);
          }
        } else if (nested.type === 'tool-call-finished') {
          const steps = planSteps(event.actionId);
          programs.add(event.actionId);
          const id = programStepId(nested.observation.actionId);
          const step = steps.get(id) ?? {
            id,
            tool: nested.observation.toolName,
            status: nested.observation.status,
            startMs: undefined,
            endMs: undefined,
          };
          step.status = nested.observation.status;
          step.endMs = at;
          steps.set(id, step);
        }
        break;
      }
      case 'plan-step-started': {
        const steps = planSteps(event.planId ?? '');
        if (!steps.has(event.stepId)) {
          const step: MutableStep = {
            id: event.stepId,
            tool: event.toolName,
            status: 'unfinished',
            startMs: at,
            endMs: undefined,
            ...writing(),
          };
          steps.set(step.id, step);
          if (open !== undefined) startedWhileWriting.push(step);
        }
        break;
      }
      case 'plan-step-finished': {
        const steps = planSteps(event.planId ?? '');
        const step = steps.get(event.stepId) ?? {
          id: event.stepId,
          tool: event.toolName,
          status: event.status,
          startMs: undefined,
          endMs: undefined,
        };
        step.status = event.status;
        step.endMs = at;
        steps.set(step.id, step);
        break;
      }
      default:
        break;
    }
  }
  const endMs = end - origin;
  closeModelCall('unfinished', endMs);
  const spans: ModelCallSpan[] = modelCalls.map((call) => ({
    modelCall: call.step + 1,
    startMs: call.startMs,
    endMs: call.endMs,
  }));
  const planTimelines = [...plans].map(([planId, steps], index) => {
    const placed = placePlan(
      plans.size === 1 ? title : `${title}: ${programs.has(planId) ? 'program' : 'plan'} ${index + 1}`,
      planId,
      [...steps.values()],
      programs.has(planId) ? undefined : writtenArguments.get(planId),
      endMs,
      spans,
    );
    return programs.has(planId) ? { ...placed, kind: 'program' as const } : placed;
  });
  return {
    title,
    durationMs: endMs,
    modelCalls,
    toolCalls: [...toolCalls.values()].map((call) => ({
      id: call.id,
      tool: call.tool,
      status: call.status,
      startMs: call.startMs,
      endMs: call.endMs ?? endMs,
      ran: call.ran,
      ...(call.startedDuringModelCall === undefined
        ? {}
        : { startedDuringModelCall: call.startedDuringModelCall }),
    })),
    plans: planTimelines,
  };
}

/** Tool calls and plan steps that started before the model call writing them had finished. */
export function earlyStartCount(timeline: RunTimeline): number {
  return (
    timeline.toolCalls.filter((call) => call.startedDuringModelCall !== undefined).length +
    timeline.plans.flatMap((plan) => plan.steps).filter((step) => step.startedDuringModelCall !== undefined)
      .length
  );
}

/**
 * A run timeline in one line: its model calls, tool calls, each plan (steps, duration, critical path) and how many
 * calls or steps started while the model was writing.
 *
 * @example
 * summarizeRunTimeline(timeline);
 * // '2 model calls · 1 tool call · plan: 5 steps in 750 ms; critical path: oslo → compare · 0 started while the model was writing'
 */
export function summarizeRunTimeline(timeline: RunTimeline): string {
  const parts: string[] = [];
  const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;
  if (timeline.modelCalls.length > 0) parts.push(count(timeline.modelCalls.length, 'model call'));
  if (timeline.toolCalls.length > 0) parts.push(count(timeline.toolCalls.length, 'tool call'));
  timeline.plans.forEach((plan, index) => {
    const noun = plan.kind === 'program' ? 'program' : 'plan';
    const name = timeline.plans.length === 1 ? noun : `${noun} ${index + 1}`;
    parts.push(
      `${name}: ${count(plan.steps.length, 'step')} in ${Math.round(plan.durationMs)} ms; critical path: ${describeCriticalPath(plan)}`,
    );
  });
  if (timeline.modelCalls.length > 0) {
    parts.push(`${earlyStartCount(timeline)} started while the model was writing`);
  }
  return parts.join(' · ');
}

/**
 * A program's call as a step: `#<n>`, its place in the program's order (the end of its action id, `<call>/<n>`), or
 * `early <n>` for a call started while the model was writing the program (`<call>/early-<n>`), whose result the
 * program took when it made the same call.
 */
function programStepId(actionId: string): string {
  const suffix = actionId.slice(actionId.lastIndexOf('/') + 1);
  return suffix.startsWith('early-') ? `early ${suffix.slice('early-'.length)}` : `#${suffix}`;
}

/** A plan's steps in the plan's order, with their dependencies, their causes of skipping and the critical path. */
function placePlan(
  title: string,
  planId: string,
  steps: readonly MutableStep[],
  planText: string | undefined,
  runEndMs: number,
  modelCalls: readonly ModelCallSpan[],
): PlanTimeline {
  const declared = planStepArguments(planText);
  const order = [...declared.keys()];
  const rank = (id: string): number => {
    const index = order.indexOf(id);
    return index === -1 ? order.length : index;
  };
  // The plan's order where the plan is known; steps it does not list (it could not be read) keep the events' order.
  const sorted = [...steps].sort((a, b) => rank(a.id) - rank(b.id));
  const placed = sorted.map((step): PlacedStep => {
    const endMs = step.endMs ?? runEndMs;
    const ran = step.startMs !== undefined;
    return {
      id: step.id,
      tool: step.tool,
      status: step.status,
      dependsOn: referencedSteps(declared.get(step.id)).filter((id) => id !== step.id),
      startMs: step.startMs ?? endMs,
      endMs,
      ran,
      ...(step.startedDuringModelCall === undefined
        ? {}
        : { startedDuringModelCall: step.startedDuringModelCall }),
    };
  });
  const withCauses = placed.map((step) => {
    const cause = step.status === 'skipped' ? skipCause(step.id, placed, new Set()) : undefined;
    return cause === undefined ? step : { ...step, skippedBecauseOf: cause };
  });
  const ran = withCauses.filter((step) => step.ran);
  const startMs = Math.min(...ran.map((step) => step.startMs));
  const lastMs = Math.max(...withCauses.map((step) => step.endMs));
  return planTimelineOf(
    title,
    withCauses,
    ran.length === 0 ? 0 : lastMs - startMs,
    planId || undefined,
    modelCalls,
  );
}

/**
 * The failed step a skipped step traces back to: its first dependency (in the plan's order) that did not succeed,
 * or, when that one was skipped too, what it traces back to.
 */
function skipCause(id: string, steps: readonly PlacedStep[], seen: Set<string>): string | undefined {
  if (seen.has(id)) return undefined;
  seen.add(id);
  const step = steps.find((candidate) => candidate.id === id);
  if (step === undefined) return undefined;
  const failed = steps.find(
    (candidate) => step.dependsOn.includes(candidate.id) && candidate.status !== 'success',
  );
  if (failed === undefined) return undefined;
  return failed.status === 'skipped' ? (skipCause(failed.id, steps, seen) ?? failed.id) : failed.id;
}
