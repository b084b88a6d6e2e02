import { AbortedError, RateLimitError, type RunEvent, registerSecret } from '@org/core';
import { createToolPlanTool } from '@org/plan-executor';
import { createScriptedModel } from '@org/provider-scripted';
import { defineTool, ToolRegistry } from '@org/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createReActPlanner, InvalidResumeStateError, runAgent } from './index.js';

/** What the pairing check found, for assertions specific to one path. */
interface Pairing {
  readonly runs: number;
  readonly inferenceEnds: RunEvent[];
  /** Tool calls that finished without starting (never ran), by id. */
  readonly toolCallsNeverStarted: Map<string, RunEvent>;
  /** Plan steps that finished without starting (skipped, not started before an abort), by `planId/stepId`. */
  readonly stepsNeverStarted: Map<string, RunEvent>;
  readonly runFinished: RunEvent[];
}

/**
 * Asserts the event contract: every `*-started` has exactly one end, of the same run, before its run ends; a run
 * makes one model call at a time; an end without a start is only for calls and steps that never ran; every event
 * names its run.
 */
function assertPairing(events: readonly RunEvent[]): Pairing {
  const openRuns = new Set<string>();
  const openInference = new Map<string, RunEvent>();
  const openTools = new Map<string, RunEvent>();
  const openSteps = new Map<string, RunEvent>();
  const toolCallsNeverStarted = new Map<string, RunEvent>();
  const stepsNeverStarted = new Map<string, RunEvent>();
  const inferenceEnds: RunEvent[] = [];
  const runFinished: RunEvent[] = [];
  let runs = 0;
  for (const event of events) {
    const runId = event.runId;
    expect(runId, `${event.type} names its run`).toBeTypeOf('string');
    const run = runId as string;
    if (event.type !== 'run-started') expect(openRuns.has(run), `${event.type} inside its run`).toBe(true);
    switch (event.type) {
      case 'run-started':
        expect(openRuns.has(run)).toBe(false);
        openRuns.add(run);
        runs++;
        break;
      case 'run-finished':
        expect(openInference.has(run), 'no model call left open').toBe(false);
        expect([...openTools.keys()].filter((key) => key.startsWith(`${run} `))).toEqual([]);
        expect([...openSteps.keys()].filter((key) => key.startsWith(`${run} `))).toEqual([]);
        openRuns.delete(run);
        runFinished.push(event);
        break;
      case 'inference-started':
        expect(openInference.has(run), 'one model call at a time').toBe(false);
        openInference.set(run, event);
        break;
      case 'inference-finished':
      case 'inference-failed': {
        const started = openInference.get(run);
        expect(started, `${event.type} closes a started call`).toBeDefined();
        expect(started?.type === 'inference-started' && started.step).toBe(event.step);
        openInference.delete(run);
        inferenceEnds.push(event);
        break;
      }
      case 'tool-call-started': {
        const key = `${run} ${event.action.id}`;
        expect(openTools.has(key)).toBe(false);
        openTools.set(key, event);
        break;
      }
      case 'tool-call-finished': {
        const key = `${run} ${event.observation.actionId}`;
        if (openTools.delete(key)) break;
        expect(toolCallsNeverStarted.has(key), 'one end per call').toBe(false);
        expect(event.observation.status, 'a call that never started did not succeed').not.toBe('success');
        toolCallsNeverStarted.set(event.observation.actionId, event);
        break;
      }
      case 'plan-step-started': {
        expect(event.planId).toBeTypeOf('string');
        const key = `${run} ${event.planId}/${event.stepId}`;
        expect(openSteps.has(key)).toBe(false);
        openSteps.set(key, event);
        break;
      }
      case 'plan-step-finished': {
        const key = `${run} ${event.planId}/${event.stepId}`;
        if (openSteps.delete(key)) break;
        expect(stepsNeverStarted.has(`${event.planId}/${event.stepId}`), 'one end per step').toBe(false);
        expect(['skipped', 'aborted']).toContain(event.status);
        stepsNeverStarted.set(`${event.planId}/${event.stepId}`, event);
        break;
      }
      default:
        break;
    }
  }
  expect([...openRuns], 'every run finished').toEqual([]);
  return { runs, inferenceEnds, toolCallsNeverStarted, stepsNeverStarted, runFinished };
}

function collect(): { events: RunEvent[]; onEvent: (event: RunEvent) => void } {
  const events: RunEvent[] = [];
  return { events, onEvent: (event) => events.push(event) };
}

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a key up.',
  input: z.object({ key: z.string() }),
  execute: ({ key }) => {
    if (key === 'missing') throw new Error(`No entry for ${key}.`);
    return { key, value: key.length };
  },
});
const hang = defineTool({
  name: 'hang',
  description: 'Never answers.',
  input: z.object({}),
  timeoutMs: 20,
  execute: () => new Promise<never>(() => undefined),
});
const guarded = defineTool({
  name: 'guarded',
  description: 'Blocked by the hook.',
  input: z.object({}),
  execute: () => 'ran',
});
const book = defineTool({
  name: 'book',
  description: 'Books something; needs approval.',
  input: z.object({ what: z.string() }),
  needsApproval: true,
  execute: ({ what }) => `booked ${what}`,
});

describe('run events: every started event has exactly one end', () => {
  it('a failed model call ends with inference-failed and run-finished carries the typed error', async () => {
    const { events, onEvent } = collect();
    const model = createScriptedModel({
      script: [
        { toolCalls: [{ toolName: 'lookup', arguments: { key: 'a' } }] },
        {
          error: new RateLimitError({ message: 'Too many requests', provider: 'scripted', retryAfterMs: 5 }),
        },
      ],
    });
    const result = await runAgent({ model, tools: new ToolRegistry([lookup]), task: 'Look a up.', onEvent });
    expect(result.finishReason).toBe('error');
    const pairing = assertPairing(events);
    expect(pairing.inferenceEnds.map((event) => event.type)).toEqual([
      'inference-finished',
      'inference-failed',
    ]);
    expect(pairing.inferenceEnds[1]).toMatchObject({
      step: 1,
      error: { code: 'rate_limited', message: 'Too many requests', retryable: true },
    });
    expect(pairing.runFinished[0]).toMatchObject({
      reason: 'error',
      error: { code: 'rate_limited', message: 'Too many requests' },
    });
  });

  it('an aborted model call ends with inference-failed (aborted) and the run with its AbortedError', async () => {
    const { events, onEvent } = collect();
    const controller = new AbortController();
    const model = createScriptedModel({ script: [{ stall: true }] });
    const result = await runAgent({
      model,
      tools: new ToolRegistry([lookup]),
      task: 'Wait.',
      signal: controller.signal,
      onEvent: (event) => {
        onEvent(event);
        if (event.type === 'inference-started') setTimeout(() => controller.abort(), 1);
      },
    });
    expect(result.finishReason).toBe('aborted');
    const pairing = assertPairing(events);
    expect(pairing.inferenceEnds).toEqual([expect.objectContaining({ type: 'inference-failed' })]);
    expect(pairing.inferenceEnds[0]).toMatchObject({ error: { code: 'aborted' } });
    expect(pairing.runFinished[0]).toMatchObject({ reason: 'aborted', error: { code: 'aborted' } });
  });

  it('ReAct re-prompts pair each attempt, and an unreadable answer ends the run with its error', async () => {
    const { events, onEvent } = collect();
    const model = createScriptedModel({
      capabilities: { toolCalls: false },
      script: [{ text: 'no decision here' }, { text: 'still none' }],
    });
    const result = await runAgent({
      model,
      tools: new ToolRegistry([lookup]),
      planner: createReActPlanner({ maxRetries: 1 }),
      task: 'Look a up.',
      onEvent,
    });
    expect(result.finishReason).toBe('error');
    const pairing = assertPairing(events);
    expect(pairing.inferenceEnds.map((event) => event.type)).toEqual([
      'inference-finished',
      'inference-finished',
    ]);
    expect(events.filter((event) => event.type === 'decision-extraction-failed')).toHaveLength(2);
    expect(pairing.runFinished[0]).toMatchObject({ error: { code: 'decision_extraction_failed' } });
  });

  it('tool calls that fail, time out, are blocked, or never run each get one end', async () => {
    const { events, onEvent } = collect();
    const model = createScriptedModel({
      script: [
        {
          toolCalls: [
            { toolName: 'lookup', arguments: { key: 'missing' } },
            { toolName: 'hang', arguments: {} },
            { toolName: 'guarded', arguments: {} },
            { toolName: 'lookup', arguments: { wrong: 1 } },
            { toolName: 'nope', arguments: {} },
          ],
        },
        { toolCalls: [{ toolName: 'lookup', arguments: { key: 'a' } }] },
        { toolCalls: [{ toolName: 'lookup', arguments: { key: 'a' } }] },
      ],
    });
    const result = await runAgent({
      model,
      tools: new ToolRegistry([lookup, hang, guarded]),
      task: 'Try everything.',
      maxIdenticalToolCalls: 1,
      hooks: {
        beforeToolUse: ({ action }) =>
          action.toolName === 'guarded' ? { decision: 'block', reason: 'not today' } : undefined,
      },
      onEvent,
    });
    expect(result.finishReason).toBe('loop-guard');
    const pairing = assertPairing(events);
    const ends = events.flatMap((event) =>
      event.type === 'tool-call-finished' ? [[event.observation.toolName, event.observation.status]] : [],
    );
    expect(ends).toEqual(
      expect.arrayContaining([
        ['lookup', 'error'],
        ['hang', 'timeout'],
        ['guarded', 'blocked'],
        ['nope', 'error'],
        ['lookup', 'skipped'],
      ]),
    );
    // Invalid arguments, an unknown tool and the loop guard's skip never started a call.
    expect(
      [...pairing.toolCallsNeverStarted.values()].map(
        (event) => event.type === 'tool-call-finished' && event.observation.error?.code,
      ),
    ).toEqual(['invalid_tool_arguments', 'unknown_tool', 'tool_call_loop']);
    expect(pairing.runFinished[0]).toMatchObject({ reason: 'loop-guard', error: { code: 'tool_call_loop' } });
  });

  it('a tool aborted mid-call ends as aborted, and so does the run', async () => {
    const { events, onEvent } = collect();
    const controller = new AbortController();
    const slow = defineTool({
      name: 'slow',
      description: 'Waits for its signal.',
      input: z.object({}),
      execute: (_args, context) =>
        new Promise((_resolve, reject) =>
          context.signal.addEventListener('abort', () => reject(new Error('stopped'))),
        ),
    });
    const model = createScriptedModel({ script: [{ toolCalls: [{ toolName: 'slow', arguments: {} }] }] });
    const result = await runAgent({
      model,
      tools: new ToolRegistry([slow]),
      task: 'Wait.',
      signal: controller.signal,
      onEvent: (event) => {
        onEvent(event);
        if (event.type === 'tool-call-started')
          setTimeout(() => controller.abort(new AbortedError({ operation: 'test' })), 1);
      },
    });
    expect(result.finishReason).toBe('aborted');
    assertPairing(events);
    expect(events.find((event) => event.type === 'tool-call-finished')).toMatchObject({
      observation: { status: 'aborted' },
    });
  });

  it('plan steps that fail, time out or are skipped each get one end, per plan, even with equal step ids', async () => {
    const { events, onEvent } = collect();
    const stepTools = new ToolRegistry([lookup, hang]);
    const plan = {
      steps: [
        { id: 's1', tool: 'lookup', arguments: { key: 'a' } },
        { id: 's2', tool: 'lookup', arguments: { key: 'missing' } },
        { id: 's3', tool: 'lookup', arguments: { key: '$ref:s2.key' } },
        { id: 's4', tool: 'hang', arguments: {} },
      ],
    };
    const model = createScriptedModel({
      script: [
        { toolCalls: [{ toolName: 'execute_tool_plan', arguments: plan }] },
        { toolCalls: [{ toolName: 'execute_tool_plan', arguments: { steps: plan.steps.slice(0, 3) } }] },
        { text: 'Done.' },
      ],
    });
    const result = await runAgent({
      model,
      tools: new ToolRegistry([
        ...stepTools.list(),
        createToolPlanTool({ tools: stepTools, stepTimeoutMs: 50 }),
      ]),
      task: 'Run the plan twice.',
      onEvent,
    });
    expect(result.finishReason).toBe('final-answer');
    const pairing = assertPairing(events);
    const planIds = [
      ...new Set(events.flatMap((event) => (event.type === 'plan-step-started' ? [event.planId] : []))),
    ];
    expect(planIds).toHaveLength(2);
    expect([...pairing.stepsNeverStarted.keys()]).toEqual(planIds.map((planId) => `${planId}/s3`));
    const statuses = events.flatMap((event) =>
      event.type === 'plan-step-finished' && event.planId === planIds[0]
        ? [`${event.stepId}:${event.status}`]
        : [],
    );
    expect(statuses.sort()).toEqual(['s1:success', 's2:error', 's3:skipped', 's4:timeout']);
  });

  it('an approval pause ends the run; the resumed run starts and ends again; a denied call gets one end', async () => {
    const first = collect();
    const model = createScriptedModel({
      script: [
        { toolCalls: [{ toolName: 'book', arguments: { what: 'a flight' } }] },
        { text: 'Not booked.' },
      ],
    });
    const tools = new ToolRegistry([book]);
    const paused = await runAgent({ model, tools, task: 'Book a flight.', onEvent: first.onEvent });
    expect(paused.finishReason).toBe('approval-required');
    expect(assertPairing(first.events).runFinished[0]).toMatchObject({ reason: 'approval-required' });
    expect(first.events.at(-1)).not.toHaveProperty('error');

    const second = collect();
    const id = paused.pendingApprovals?.[0]?.id ?? '';
    const resumed = await runAgent({
      model,
      tools,
      resume: { state: paused.state as NonNullable<typeof paused.state>, decisions: { [id]: false } },
      onEvent: second.onEvent,
    });
    expect(resumed.finishReason).toBe('final-answer');
    const pairing = assertPairing(second.events);
    expect(pairing.toolCallsNeverStarted.get(id)).toMatchObject({ observation: { status: 'blocked' } });

    // A resume that cannot proceed throws before its run starts: no run-started is left without an end.
    const third = collect();
    await expect(
      runAgent({
        model,
        tools,
        resume: { state: paused.state as NonNullable<typeof paused.state>, decisions: {} },
        onEvent: third.onEvent,
      }),
    ).rejects.toSatisfy((error) => InvalidResumeStateError.isInstance(error));
    expect(third.events).toEqual([]);
  });

  it('keeps failure messages in events redacted of registered secrets', async () => {
    const secret = 'pairing-secret-0123456789';
    registerSecret(secret);
    const { events, onEvent } = collect();
    const model = createScriptedModel({
      script: [
        { error: new RateLimitError({ message: `quota for ${secret} exceeded`, provider: 'scripted' }) },
      ],
    });
    await runAgent({ model, tools: new ToolRegistry([lookup]), task: 'Look a up.', onEvent });
    assertPairing(events);
    expect(JSON.stringify(events)).not.toContain(secret);
    expect(events.find((event) => event.type === 'inference-failed')).toMatchObject({
      error: { message: expect.stringContaining('[REDACTED]') },
    });
  });
});
