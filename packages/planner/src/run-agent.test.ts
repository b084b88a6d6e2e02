import {
  addUsage,
  assertToolCallPairing,
  EMPTY_USAGE,
  RateLimitError,
  type RunEvent,
  ToolChoice,
} from '@org/core';
import { createToolPlanTool } from '@org/plan-executor';
import { createScriptedModel, createVirtualClock, LATENCY_PROFILES } from '@org/provider-scripted';
import { defineTool, ToolRegistry } from '@org/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  answerFromLastObservation,
  EXPECTED_ANSWER,
  PARIS,
  ROME,
  TASK,
  weatherTools,
} from './__fixtures__/weather-task.js';
import {
  type AgentResult,
  forceToolUse,
  InvalidAgentOptionsError,
  InvalidResumeStateError,
  preventToolUse,
  runAgent,
  ToolCallLoopError,
} from './index.js';

const weatherCall = (city: string) => ({ toolName: 'get_weather', arguments: { city } });

function expectValidHistory(result: AgentResult): void {
  assertToolCallPairing(result.messages);
}

describe('runAgent: the loop', () => {
  it('plans, runs the calls of a turn in parallel, observes, and answers; usage per step adds up to the total', async () => {
    const clock = createVirtualClock();
    const tools = new ToolRegistry([
      defineTool({
        name: 'get_weather',
        description: 'Current temperature of a city, in degrees Celsius.',
        input: z.object({ city: z.string() }),
        execute: async ({ city }) => {
          await clock.sleep(1000);
          return city === 'Paris' ? PARIS : ROME;
        },
      }),
      ...weatherTools()
        .list()
        .filter((tool) => tool.name !== 'get_weather'),
    ]);
    const model = createScriptedModel({
      clock,
      script: [
        { toolCalls: [weatherCall('Paris'), weatherCall('Rome')] },
        { toolCalls: [{ toolName: 'compare_temperatures', arguments: { first: PARIS, second: ROME } }] },
        answerFromLastObservation,
      ],
    });
    const result = await runAgent({ model, tools, task: TASK, clock });
    expect(result).toMatchObject({ finishReason: 'final-answer', text: EXPECTED_ANSWER, roundTrips: 3 });
    // The two 1 s lookups ran side by side.
    expect(clock.now()).toBe(1000);
    expect(result.steps.map((step) => [step.startedAt, step.finishedAt])).toEqual([
      [0, 1000],
      [1000, 1000],
      [1000, 1000],
    ]);
    expect(result.steps.map((step) => step.toolCalls.length)).toEqual([2, 1, 0]);
    expect(result.observations).toHaveLength(3);
    expect(result.steps.reduce((sum, step) => addUsage(sum, step.usage), EMPTY_USAGE)).toEqual(result.usage);
    expect(result.usage).toEqual(model.totalUsage);
    expect(result.toolStats).toEqual({
      get_weather: { chosen: 2, succeeded: 2, failed: 0, invalid: 0, blocked: 0, skipped: 0 },
      compare_temperatures: { chosen: 1, succeeded: 1, failed: 0, invalid: 0, blocked: 0, skipped: 0 },
    });
    expectValidHistory(result);
  });

  it('emits run, inference and tool-call events for everything, timestamps on the given clock', async () => {
    const clock = createVirtualClock({ startAt: 5_000 });
    const events: RunEvent[] = [];
    const model = createScriptedModel({
      clock,
      latency: LATENCY_PROFILES.fast,
      script: [{ toolCalls: [weatherCall('Paris'), weatherCall('Atlantis')] }, { text: 'done' }],
    });
    const result = await runAgent({
      model,
      tools: weatherTools(),
      task: TASK,
      clock,
      onEvent: (e) => events.push(e),
    });
    const types = events.map((event) => event.type);
    expect(types[0]).toBe('run-started');
    expect(types.at(-1)).toBe('run-finished');
    expect(types.filter((type) => type === 'inference-started')).toHaveLength(2);
    expect(types.filter((type) => type === 'inference-finished')).toHaveLength(2);
    expect(types.filter((type) => type === 'tool-call-started')).toHaveLength(2);
    expect(types.filter((type) => type === 'tool-call-finished')).toHaveLength(2);
    expect(events.every((event) => event.timestamp >= 5_000)).toBe(true);
    const inference = events.find((event) => event.type === 'inference-finished');
    expect(inference?.type === 'inference-finished' && inference.durationMs).toBeGreaterThan(0);
    // A turn of only tool calls has no text; the final answer's text is on its event.
    const finished = events.flatMap((event) => (event.type === 'inference-finished' ? [event] : []));
    expect(finished.map((event) => 'text' in event)).toEqual([false, true]);
    expect(finished[1]?.text).toBe('done');
    expect(result.toolStats.get_weather).toMatchObject({ chosen: 2, succeeded: 1, failed: 1 });
    expect(events.at(-1)).toMatchObject({ type: 'run-finished', reason: 'final-answer', steps: 2 });
  });

  it('isolates a throwing event listener', async () => {
    const model = createScriptedModel({ script: [{ text: 'fine' }] });
    const result = await runAgent({
      model,
      tools: weatherTools(),
      task: TASK,
      onEvent: () => {
        throw new Error('listener bug');
      },
    });
    expect(result.text).toBe('fine');
  });

  it('stops after a terminal tool, with its output as the answer', async () => {
    const tools = new ToolRegistry([
      ...weatherTools().list(),
      defineTool({
        name: 'submit_answer',
        description: 'Submit the final answer.',
        input: z.object({ answer: z.string() }),
        terminal: true,
        execute: ({ answer }) => answer,
      }),
    ]);
    const model = createScriptedModel({
      script: [{ toolCalls: [{ toolName: 'submit_answer', arguments: { answer: 'Rome.' } }] }],
    });
    const result = await runAgent({ model, tools, task: TASK });
    expect(result).toMatchObject({ finishReason: 'terminal-tool', text: 'Rome.', roundTrips: 1 });
    expectValidHistory(result);
  });

  it('stops at maxSteps and when a stopWhen condition holds', async () => {
    const looping = () =>
      createScriptedModel({
        script: (_request, context) => ({
          toolCalls: [weatherCall(context.callIndex % 2 ? 'Rome' : 'Paris')],
        }),
      });
    const capped = await runAgent({
      model: looping(),
      tools: weatherTools(),
      task: TASK,
      maxSteps: 3,
      maxIdenticalToolCalls: 5,
    });
    expect(capped).toMatchObject({ finishReason: 'max-steps', roundTrips: 3, text: '' });
    expectValidHistory(capped);

    const stopped = await runAgent({
      model: looping(),
      tools: weatherTools(),
      task: TASK,
      stopWhen: [({ steps }) => steps.length >= 2 && 'two steps are enough'],
    });
    expect(stopped).toMatchObject({
      finishReason: 'stop-condition',
      finishDetail: 'two steps are enough',
      roundTrips: 2,
    });
    expectValidHistory(stopped);
  });

  it('stops repeated identical calls with the loop guard, answering every pending call', async () => {
    const model = createScriptedModel({
      script: () => ({ toolCalls: [weatherCall('Paris'), weatherCall('Rome')] }),
    });
    const result = await runAgent({ model, tools: weatherTools(), task: TASK, maxIdenticalToolCalls: 2 });
    expect(result.finishReason).toBe('loop-guard');
    expect(ToolCallLoopError.isInstance(result.error)).toBe(true);
    expect(result.error?.message).toContain(`'get_weather' with the same arguments 3 times`);
    expect(result.roundTrips).toBe(3);
    expect(result.steps[2]?.observations.map((observation) => observation.status)).toEqual([
      'skipped',
      'skipped',
    ]);
    expectValidHistory(result);
  });

  it('counts repeats without progress: a polled job whose status moves on never trips the guard', async () => {
    const statuses = ['queued', 'running', 'running', 'running', 'done'];
    let polls = 0;
    const jobStatus = defineTool({
      name: 'job_status',
      description: 'The status of a job.',
      input: z.object({ jobId: z.string() }),
      // The third to fifth polls say `running` with a growing progress: each result differs.
      execute: ({ jobId }) => ({ jobId, status: statuses[polls], progress: polls++ * 20 }),
    });
    const poll = { toolName: 'job_status', arguments: { jobId: 'j1' } };
    const model = createScriptedModel({
      script: [...statuses.map(() => ({ toolCalls: [poll] })), { text: 'The job is done.' }],
    });
    const result = await runAgent({ model, tools: [jobStatus], task: 'Wait for job j1.', maxSteps: 10 });
    expect(result).toMatchObject({ finishReason: 'final-answer', text: 'The job is done.' });
    expect(polls).toBe(5);
  });

  it('stops a poll that keeps returning the same result, after maxIdenticalToolCalls of them', async () => {
    let polls = 0;
    const jobStatus = defineTool({
      name: 'job_status',
      description: 'The status of a job.',
      input: z.object({ jobId: z.string() }),
      execute: ({ jobId }) => {
        polls++;
        return { jobId, status: 'running' };
      },
    });
    const model = createScriptedModel({
      script: () => ({ toolCalls: [{ toolName: 'job_status', arguments: { jobId: 'j1' } }] }),
    });
    const result = await runAgent({ model, tools: [jobStatus], task: 'Wait for job j1.', maxSteps: 10 });
    expect(result.finishReason).toBe('loop-guard');
    expect(result.error?.message).toContain('getting the same result each time');
    // Three identical results in a row are allowed; the fourth identical call is refused, not run.
    expect(polls).toBe(3);
    expect(result.steps.at(-1)?.observations[0]?.status).toBe('skipped');
  });

  it('ends with finishReason error on a provider error and aborted on an abort, keeping what was done', async () => {
    const failing = createScriptedModel({
      script: [
        { toolCalls: [weatherCall('Paris')] },
        { error: new RateLimitError({ provider: 'scripted', message: 'slow down' }) },
      ],
    });
    const failed = await runAgent({ model: failing, tools: weatherTools(), task: TASK });
    expect(failed.finishReason).toBe('error');
    expect(RateLimitError.isInstance(failed.error)).toBe(true);
    expect(failed.steps).toHaveLength(1);
    expectValidHistory(failed);

    const controller = new AbortController();
    const slow = createScriptedModel({ script: [{ text: 'late' }], latency: LATENCY_PROFILES.slow });
    const pending = runAgent({ model: slow, tools: weatherTools(), task: TASK, signal: controller.signal });
    controller.abort();
    const aborted = await pending;
    expect(aborted).toMatchObject({ finishReason: 'aborted', error: { code: 'aborted' } });
  });

  it('rejects invalid options with InvalidAgentOptionsError before calling the model', async () => {
    const model = createScriptedModel({ script: [] });
    const cases = [
      { task: '' },
      {},
      { task: TASK, maxSteps: 0 },
      { task: TASK, maxIdenticalToolCalls: 1.5 },
      // Values no timer can wait (Node fires them after 1 ms) are refused, as everywhere else.
      { task: TASK, toolTimeoutMs: 2 ** 31 },
      { task: TASK, toolTimeoutMs: Number.NaN },
      { task: TASK, toolTimeoutMs: -1 },
      { task: TASK, outputBudgetBytes: Number.NaN },
      { task: TASK, toolChoice: 'sometimes' as never },
      { task: TASK, toolChoice: ToolChoice.tool('get_wether') },
      {
        messages: [
          { role: 'user' as const, content: 'hi' },
          { role: 'system' as const, content: 'late system' },
        ],
      },
    ];
    await expect(runAgent({ model, tools: 42 as never, task: TASK })).rejects.toMatchObject({
      option: 'tools',
    });
    for (const options of cases) {
      await expect(runAgent({ model, tools: weatherTools(), ...options })).rejects.toSatisfy(
        (error) =>
          InvalidAgentOptionsError.isInstance(error) ||
          (error as { code?: string }).code === 'invalid_tool_choice',
      );
    }
    expect(model.requests).toHaveLength(0);
  });

  it('accepts an array of tools in place of a registry', async () => {
    const model = createScriptedModel({
      script: [{ toolCalls: [weatherCall('Rome')] }, answerFromLastObservation],
    });
    const result = await runAgent({ model, tools: weatherTools().list(), task: TASK });
    expect(result.observations[0]?.output).toEqual(ROME);
  });

  it('continues a conversation, its leading system messages joined to the system prompt', async () => {
    const model = createScriptedModel({ script: [{ text: 'Still 18°C.' }] });
    await runAgent({
      model,
      tools: weatherTools(),
      systemPrompt: 'Be brief.',
      messages: [
        { role: 'system', content: 'Answer in English.' },
        { role: 'user', content: 'Paris?' },
        { role: 'assistant', content: '18°C.' },
      ],
      task: 'And now?',
    });
    expect(model.requests[0]?.messages).toEqual([
      { role: 'system', content: 'Be brief.\n\nAnswer in English.' },
      { role: 'user', content: 'Paris?' },
      { role: 'assistant', content: '18°C.' },
      { role: 'user', content: 'And now?' },
    ]);
  });
});

describe('runAgent: tool choice', () => {
  it('applies a static forced choice until satisfied, then resets to auto', async () => {
    const model = createScriptedModel({
      script: [{ toolCalls: [weatherCall('Paris')] }, { text: 'Paris: 18°C.' }],
    });
    const result = await runAgent({
      model,
      tools: weatherTools(),
      task: TASK,
      toolChoice: ToolChoice.tool('get_weather'),
    });
    expect(model.requests.map((request) => request.toolChoice)).toEqual([
      { type: 'tool', toolName: 'get_weather' },
      { type: 'auto' },
    ]);
    expect(result.steps.map((step) => step.toolChoice.type)).toEqual(['tool', 'auto']);

    const required = createScriptedModel({
      script: [{ toolCalls: [weatherCall('Rome')] }, { text: 'Rome: 24°C.' }],
    });
    await runAgent({ model: required, tools: weatherTools(), task: TASK, toolChoice: 'required' });
    expect(required.requests.map((request) => request.toolChoice?.type)).toEqual(['required', 'auto']);
  });

  it('takes a policy function of the step, history and last observations', async () => {
    const seen: { step: number; last: number; historyLength: number }[] = [];
    const model = createScriptedModel({
      script: [{ toolCalls: [weatherCall('Paris'), weatherCall('Rome')] }, { text: 'done' }],
    });
    await runAgent({
      model,
      tools: weatherTools(),
      task: TASK,
      toolChoice: ({ step, lastObservations, history }) => {
        seen.push({ step, last: lastObservations.length, historyLength: history.length });
        return step === 0 ? 'required' : 'none';
      },
    });
    expect(seen).toEqual([
      { step: 0, last: 0, historyLength: 1 },
      { step: 1, last: 2, historyLength: 4 },
    ]);
    expect(model.requests.map((request) => request.toolChoice?.type)).toEqual(['required', 'none']);
  });

  it('forceToolUse forces a tool until called, preventToolUse forbids tools', async () => {
    const forced = createScriptedModel({
      script: [{ toolCalls: [weatherCall('Paris')] }, { toolCalls: [weatherCall('Rome')] }, { text: 'done' }],
    });
    await runAgent({
      model: forced,
      tools: weatherTools(),
      task: TASK,
      toolChoice: forceToolUse('get_weather'),
    });
    expect(forced.requests.map((request) => request.toolChoice?.type)).toEqual(['tool', 'auto', 'auto']);

    const prevented = createScriptedModel({
      script: [{ toolCalls: [weatherCall('Paris')] }, { text: 'From what I know: Rome.' }],
    });
    const result = await runAgent({
      model: prevented,
      tools: weatherTools(),
      task: TASK,
      toolChoice: preventToolUse({ afterStep: 1 }),
    });
    expect(prevented.requests.map((request) => request.toolChoice?.type)).toEqual(['auto', 'none']);
    expect(prevented.requests[1]?.tools).toHaveLength(2);
    expect(result.text).toBe('From what I know: Rome.');
  });
});

describe('runAgent: approvals', () => {
  const bookingTools = (bookings: string[]) =>
    new ToolRegistry([
      ...weatherTools().list(),
      defineTool({
        name: 'book_flight',
        description: 'Books a flight to a city.',
        input: z.object({ city: z.string(), maxPrice: z.number() }),
        needsApproval: ({ maxPrice }) => maxPrice > 100,
        execute: ({ city }) => {
          bookings.push(city);
          return `Booked a flight to ${city}.`;
        },
      }),
    ]);
  const script = [
    {
      toolCalls: [
        { toolName: 'book_flight', arguments: { city: 'Rome', maxPrice: 300 } },
        { toolName: 'book_flight', arguments: { city: 'Paris', maxPrice: 50 } },
      ],
    },
    { text: 'Your bookings are handled.' },
  ];

  it('fails closed: a needsApproval predicate that throws or returns a truthy non-boolean pauses the run', async () => {
    const bookings: string[] = [];
    const tools = new ToolRegistry([
      defineTool({
        name: 'book_flight',
        description: 'Books a flight to a city.',
        input: z.object({ city: z.string(), maxPrice: z.number() }),
        needsApproval: ({ maxPrice }) => {
          if (maxPrice > 100) throw new Error('pricing service down');
          return 1 as unknown as boolean;
        },
        execute: ({ city }) => {
          bookings.push(city);
          return `Booked a flight to ${city}.`;
        },
      }),
    ]);
    const paused = await runAgent({
      model: createScriptedModel({ script }),
      tools,
      task: 'Book Rome and Paris.',
    });
    expect(paused.finishReason).toBe('approval-required');
    expect(paused.pendingApprovals?.map((action) => action.args.city)).toEqual(['Rome', 'Paris']);
    expect(bookings).toEqual([]);
  });

  it('pauses before running a step with a call needing approval, and resumes with the decision', async () => {
    const bookings: string[] = [];
    const events: RunEvent[] = [];
    const model = createScriptedModel({ script });
    const tools = bookingTools(bookings);
    const paused = await runAgent({
      model,
      tools,
      task: 'Book Rome and Paris.',
      onEvent: (e) => events.push(e),
    });
    expect(paused.finishReason).toBe('approval-required');
    expect(paused.pendingApprovals?.map((action) => action.args)).toEqual([{ city: 'Rome', maxPrice: 300 }]);
    expect(bookings).toEqual([]);
    expect(events.filter((event) => event.type === 'approval-requested')).toHaveLength(1);
    const state = JSON.parse(JSON.stringify(paused.state));

    const resumed = await runAgent({
      model,
      tools,
      resume: { state, decisions: { [paused.pendingApprovals?.[0]?.id ?? '']: true } },
    });
    expect(resumed).toMatchObject({
      finishReason: 'final-answer',
      text: 'Your bookings are handled.',
      runId: paused.runId,
    });
    expect(bookings.sort()).toEqual(['Paris', 'Rome']);
    expect(resumed.roundTrips).toBe(2);
    assertToolCallPairing(resumed.messages);
  });

  it('answers a denied call with a blocked result carrying the reason', async () => {
    const bookings: string[] = [];
    const model = createScriptedModel({ script });
    const tools = bookingTools(bookings);
    const paused = await runAgent({ model, tools, task: 'Book Rome and Paris.' });
    const id = paused.pendingApprovals?.[0]?.id ?? '';
    const resumed = await runAgent({
      model,
      tools,
      resume: {
        state: paused.state as NonNullable<typeof paused.state>,
        decisions: { [id]: { approved: false, reason: 'too expensive' } },
      },
    });
    expect(bookings).toEqual(['Paris']);
    const denied = resumed.observations.find((observation) => observation.actionId === id);
    expect(denied).toMatchObject({ status: 'blocked', error: { code: 'approval_denied' } });
    expect(denied?.error?.message).toContain('too expensive');
    expect(resumed.toolStats.book_flight).toMatchObject({ chosen: 2, blocked: 1, succeeded: 1 });
    assertToolCallPairing(resumed.messages);
    await expect(
      runAgent({
        model,
        tools,
        resume: { state: paused.state as NonNullable<typeof paused.state>, decisions: {} },
      }),
    ).rejects.toSatisfy((error) => InvalidResumeStateError.isInstance(error));
  });
});

describe('runAgent: approval judges the arguments that will run', () => {
  const paymentTools = (payments: number[]) =>
    new ToolRegistry([
      defineTool({
        name: 'pay',
        description: 'Pays an amount.',
        input: z.object({ amount: z.number() }),
        needsApproval: ({ amount }) => amount > 100,
        execute: ({ amount }) => {
          payments.push(amount);
          return `Paid ${amount}.`;
        },
      }),
    ]);
  const script = [{ toolCalls: [{ toolName: 'pay', arguments: { amount: 50 } }] }, { text: 'Paid.' }];

  it('asks for approval when beforeToolUse rewrites 50 into 500, shows 500, and asks the hook once', async () => {
    const payments: number[] = [];
    const model = createScriptedModel({ script });
    let hookCalls = 0;
    const hooks = {
      beforeToolUse: ({ action }: { action: { args: Record<string, unknown> } }) => {
        hookCalls++;
        return action.args.amount === 50
          ? { decision: 'rewrite' as const, args: { amount: 500 }, reason: 'fees included' }
          : undefined;
      },
    };
    const paused = await runAgent({ model, tools: paymentTools(payments), task: 'Pay 50.', hooks });
    expect(paused.finishReason).toBe('approval-required');
    expect(paused.pendingApprovals?.map((action) => action.args)).toEqual([{ amount: 500 }]);
    expect(payments).toEqual([]);
    expect(hookCalls).toBe(1);

    const id = paused.pendingApprovals?.[0]?.id ?? '';
    const resumed = await runAgent({
      model,
      tools: paymentTools(payments),
      hooks,
      resume: { state: paused.state as NonNullable<typeof paused.state>, decisions: { [id]: true } },
    });
    expect(resumed.finishReason).toBe('final-answer');
    expect(payments).toEqual([500]);
    // Asked once before the pause and once in the resuming process, never twice for one execution.
    expect(hookCalls).toBe(2);
  });

  it('runs a call without asking when no hook rewrites it above the threshold, the hook seeing it once', async () => {
    const payments: number[] = [];
    let hookCalls = 0;
    const result = await runAgent({
      model: createScriptedModel({ script }),
      tools: paymentTools(payments),
      task: 'Pay 50.',
      hooks: {
        beforeToolUse: () => {
          hookCalls++;
          return undefined;
        },
      },
    });
    expect(result.finishReason).toBe('final-answer');
    expect(payments).toEqual([50]);
    expect(hookCalls).toBe(1);
  });

  it('does not ask a human about a call the hook blocks', async () => {
    const payments: number[] = [];
    const result = await runAgent({
      model: createScriptedModel({
        script: [{ toolCalls: [{ toolName: 'pay', arguments: { amount: 900 } }] }, { text: 'Refused.' }],
      }),
      tools: paymentTools(payments),
      task: 'Pay 900.',
      hooks: { beforeToolUse: () => ({ decision: 'block', reason: 'payments are frozen' }) },
    });
    expect(result.finishReason).toBe('final-answer');
    expect(result.observations[0]).toMatchObject({ status: 'blocked', error: { code: 'blocked_by_hook' } });
    expect(payments).toEqual([]);
  });

  it('refuses an approved call whose hook, asked again on resume, would run other arguments', async () => {
    const payments: number[] = [];
    const model = createScriptedModel({
      script: [{ toolCalls: [{ toolName: 'pay', arguments: { amount: 300 } }] }, { text: 'Done.' }],
    });
    const paused = await runAgent({ model, tools: paymentTools(payments), task: 'Pay 300.' });
    const id = paused.pendingApprovals?.[0]?.id ?? '';
    const resumed = await runAgent({
      model,
      tools: paymentTools(payments),
      hooks: {
        beforeToolUse: () => ({ decision: 'rewrite', args: { amount: 3000 }, reason: 'changed its mind' }),
      },
      resume: { state: paused.state as NonNullable<typeof paused.state>, decisions: { [id]: true } },
    });
    expect(payments).toEqual([]);
    expect(resumed.observations.find((observation) => observation.actionId === id)).toMatchObject({
      status: 'blocked',
      error: { code: 'approval_stale' },
    });
  });

  it('reads decisions as own properties: a call id named constructor or toString inherits no decision', async () => {
    for (const id of ['constructor', 'toString', '__proto__']) {
      const payments: number[] = [];
      const model = createScriptedModel({
        script: [{ toolCalls: [{ id, toolName: 'pay', arguments: { amount: 300 } }] }, { text: 'Done.' }],
      });
      const paused = await runAgent({ model, tools: paymentTools(payments), task: 'Pay 300.' });
      expect(paused.pendingApprovals?.map((action) => action.id)).toEqual([id]);
      const state = paused.state as NonNullable<typeof paused.state>;
      // No decision given: refused as missing, not "denied" by an inherited value.
      await expect(
        runAgent({ model, tools: paymentTools(payments), resume: { state, decisions: {} } }),
      ).rejects.toSatisfy((error) => InvalidResumeStateError.isInstance(error));
      const decisions = JSON.parse(`{${JSON.stringify(id)}: true}`) as Record<string, boolean>;
      const resumed = await runAgent({ model, tools: paymentTools(payments), resume: { state, decisions } });
      expect(resumed.finishReason).toBe('final-answer');
      expect(payments).toEqual([300]);
    }
  });
});

describe('runAgent: a resume continues the paused run as it was configured', () => {
  const tools = (payments: number[]) =>
    new ToolRegistry([
      defineTool({
        name: 'pay',
        description: 'Pays an amount.',
        input: z.object({ amount: z.number() }),
        needsApproval: true,
        execute: ({ amount }) => {
          payments.push(amount);
          return `Paid ${amount}.`;
        },
      }),
    ]);
  const script = [{ toolCalls: [{ toolName: 'pay', arguments: { amount: 300 } }] }, { text: 'Paid.' }];
  const configured = {
    systemPrompt: 'You are a careful payments agent.',
    maxSteps: 4,
    toolTimeoutMs: 5_000,
    hooks: { afterToolUse: () => undefined },
  };

  it('keeps the system prompt, maxSteps and the rest, from { model, tools, resume } alone plus what a state cannot hold', async () => {
    const payments: number[] = [];
    const model = createScriptedModel({ script });
    const paused = await runAgent({ model, tools: tools(payments), task: 'Pay 300.', ...configured });
    const state = JSON.parse(JSON.stringify(paused.state)) as NonNullable<typeof paused.state>;
    expect(state.run).toMatchObject({
      systemPrompt: 'You are a careful payments agent.',
      maxSteps: 4,
      toolTimeoutMs: 5_000,
      tools: ['pay'],
      requires: ['hooks'],
    });
    const decisions = { [paused.pendingApprovals?.[0]?.id ?? '']: true };

    // The README's call without the hooks the paused run had: refused, naming them.
    const refused = await runAgent({ model, tools: tools(payments), resume: { state, decisions } }).catch(
      (error: unknown) => error,
    );
    expect(InvalidResumeStateError.isInstance(refused)).toBe(true);
    expect(refused).toMatchObject({ missingOptions: ['hooks'], mismatchedOptions: [] });
    expect(payments).toEqual([]);

    const resumed = await runAgent({
      model,
      tools: tools(payments),
      hooks: configured.hooks,
      resume: { state, decisions },
    });
    expect(resumed.finishReason).toBe('final-answer');
    expect(payments).toEqual([300]);
    const lastRequest = model.requests.at(-1);
    expect(lastRequest?.messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
    ]);
    expect(lastRequest?.messages[0]?.content).toBe('You are a careful payments agent.');
  });

  it('refuses a resume that gives other settings, or starts a new conversation, naming each option', async () => {
    const payments: number[] = [];
    const model = createScriptedModel({ script });
    const paused = await runAgent({ model, tools: tools(payments), task: 'Pay 300.', ...configured });
    const state = paused.state as NonNullable<typeof paused.state>;
    const decisions = { [paused.pendingApprovals?.[0]?.id ?? '']: true };
    const refusal = (options: Partial<Parameters<typeof runAgent>[0]>) =>
      runAgent({
        model,
        tools: tools(payments),
        hooks: configured.hooks,
        resume: { state, decisions },
        ...options,
      }).catch((error: unknown) => error);
    expect(await refusal({ systemPrompt: 'Be quick.', maxSteps: 9 })).toMatchObject({
      code: 'invalid_resume_state',
      mismatchedOptions: ['systemPrompt', 'maxSteps'],
    });
    expect(await refusal({ task: 'Pay 900 instead.' })).toMatchObject({ mismatchedOptions: ['task'] });
    expect(await refusal({ tools: new ToolRegistry() })).toMatchObject({ missingOptions: ['tools'] });
    // The same values again are fine.
    const same = await runAgent({
      model,
      tools: tools(payments),
      resume: { state, decisions },
      ...configured,
    });
    expect(same.finishReason).toBe('final-answer');
    expect(payments).toEqual([300]);
  });
});

describe('runAgent: hooks', () => {
  it('lets beforeToolUse block or rewrite a call and afterToolUse replace a result, the history staying valid', async () => {
    const executions: string[] = [];
    const events: RunEvent[] = [];
    const model = createScriptedModel({
      script: [
        { toolCalls: [weatherCall('paris'), weatherCall('Oslo'), weatherCall('Rome')] },
        { text: 'done' },
      ],
    });
    const result = await runAgent({
      model,
      tools: weatherTools(executions),
      task: TASK,
      onEvent: (event) => events.push(event),
      hooks: {
        beforeToolUse: ({ action }) => {
          if (action.args.city === 'Oslo') return { decision: 'block', reason: 'Oslo is out of scope.' };
          if (action.args.city === 'paris') {
            return { decision: 'rewrite', args: { city: 'Paris' }, reason: 'City names are capitalised.' };
          }
          return undefined;
        },
        afterToolUse: ({ action }) =>
          action.args.city === 'Rome'
            ? { output: { city: 'Rome', temperatureC: 25 }, reason: 'Corrected reading.' }
            : undefined,
      },
    });
    expect(executions.sort()).toEqual(['get_weather(Paris)', 'get_weather(Rome)']);
    expect(result.observations.map((observation) => observation.status)).toEqual([
      'success',
      'blocked',
      'success',
    ]);
    expect(result.observations[2]?.output).toEqual({ city: 'Rome', temperatureC: 25 });
    const blocked = model.requests[1]?.messages.find(
      (message) => message.role === 'tool' && message.toolCallId === 'call_0_1',
    );
    expect(blocked).toMatchObject({ isError: true });
    expect(blocked?.content).toContain('Oslo is out of scope.');
    expect(result.toolStats.get_weather).toMatchObject({ chosen: 3, succeeded: 2, blocked: 1 });
    expect(events.filter((event) => event.type === 'tool-call-intercepted').length).toBeGreaterThanOrEqual(2);
    assertToolCallPairing(result.messages);
  });

  it('applies the same hooks to the steps of a plan in plan mode (a guard cannot be bypassed by hiding a call in a plan)', async () => {
    const executions: string[] = [];
    const weather = weatherTools(executions);
    const tools = ToolRegistry.compose(weather, new ToolRegistry([createToolPlanTool({ tools: weather })]));
    const model = createScriptedModel({
      script: [
        {
          toolCalls: [
            {
              toolName: 'execute_tool_plan',
              arguments: {
                steps: [
                  { id: 'paris', tool: 'get_weather', arguments: { city: 'Paris' } },
                  { id: 'oslo', tool: 'get_weather', arguments: { city: 'Oslo' } },
                  {
                    id: 'compare',
                    tool: 'compare_temperatures',
                    arguments: { first: '$ref:paris', second: '$ref:oslo' },
                  },
                ],
              },
            },
          ],
        },
        { text: 'done' },
      ],
    });
    const hooked: string[] = [];
    const result = await runAgent({
      model,
      tools,
      task: TASK,
      hooks: {
        beforeToolUse: ({ action }) => {
          hooked.push(action.id);
          return action.args.city === 'Oslo'
            ? { decision: 'block', reason: 'Oslo is out of scope.' }
            : undefined;
        },
      },
    });
    expect(hooked.sort()).toEqual(['call_0_0', 'call_0_0/oslo', 'call_0_0/paris']);
    expect(executions).toEqual(['get_weather(Paris)']);
    const planResult = JSON.parse(String(result.observations[0]?.output)) as Record<string, unknown>;
    expect(planResult).toMatchObject({
      status: 'partial',
      errors: { oslo: { status: 'blocked', message: expect.stringContaining('Oslo is out of scope.') } },
      skipped: { compare: "Skipped because dependency 'oslo' failed" },
    });
    assertToolCallPairing(result.messages);
  });
});

describe('runAgent: plan mode events', () => {
  it('names the plan of every step event, so two plans in one turn with the same step ids stay apart', async () => {
    const weather = weatherTools();
    const tools = ToolRegistry.compose(weather, new ToolRegistry([createToolPlanTool({ tools: weather })]));
    const plan = (city: string) => ({
      toolName: 'execute_tool_plan',
      arguments: { steps: [{ id: 'w', tool: 'get_weather', arguments: { city } }] },
    });
    const events: RunEvent[] = [];
    await runAgent({
      model: createScriptedModel({
        script: [{ toolCalls: [plan('Paris'), plan('Rome')] }, { text: 'done' }],
      }),
      tools,
      task: TASK,
      onEvent: (event) => events.push(event),
    });
    const stepEvents = events.flatMap((event) =>
      event.type === 'plan-step-started' || event.type === 'plan-step-finished'
        ? [`${event.type}:${event.planId}:${event.stepId}`]
        : [],
    );
    expect(stepEvents.sort()).toEqual([
      'plan-step-finished:call_0_0:w',
      'plan-step-finished:call_0_1:w',
      'plan-step-started:call_0_0:w',
      'plan-step-started:call_0_1:w',
    ]);
  });
});

describe('runAgent: plan-step events from a plan tool that does not name its plans', () => {
  it('names them by the call that reported them', async () => {
    const customPlanTool = defineTool({
      name: 'my_plan',
      description: 'Runs a plan its own way.',
      input: z.object({}),
      execute: (_args, context) => {
        context.reportProgress({
          type: 'plan-step-started',
          timestamp: 1,
          stepId: 's1',
          toolName: 'get_weather',
        });
        return 'ran';
      },
    });
    const events: RunEvent[] = [];
    await runAgent({
      model: createScriptedModel({
        script: [{ toolCalls: [{ toolName: 'my_plan', arguments: {} }] }, { text: 'done' }],
      }),
      tools: new ToolRegistry([customPlanTool]),
      task: TASK,
      onEvent: (event) => events.push(event),
    });
    expect(events.find((event) => event.type === 'plan-step-started')).toMatchObject({
      planId: 'call_0_0',
      stepId: 's1',
    });
  });
});

describe('runAgent: inputs', () => {
  it('accepts the policy as `policy`, and refuses both policy and toolChoice', async () => {
    const model = createScriptedModel({ script: [{ toolCalls: [weatherCall('Paris')] }, { text: 'ok' }] });
    await runAgent({ model, tools: weatherTools(), task: TASK, policy: forceToolUse('get_weather') });
    expect(model.requests.map((request) => request.toolChoice?.type)).toEqual(['tool', 'auto']);
    await expect(
      runAgent({ model, tools: weatherTools(), task: TASK, policy: preventToolUse(), toolChoice: 'auto' }),
    ).rejects.toMatchObject({ code: 'invalid_agent_options', option: 'policy' });
  });

  it('refuses a conversation with an unanswered tool call before calling the model', async () => {
    const model = createScriptedModel({ script: [{ text: 'never' }] });
    await expect(
      runAgent({
        model,
        tools: weatherTools(),
        messages: [
          { role: 'user', content: 'Paris?' },
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'c1', toolName: 'get_weather', arguments: '{}' }],
          },
        ],
        task: 'And Rome?',
      }),
    ).rejects.toMatchObject({ code: 'invalid_message_history', toolCallId: 'c1' });
    expect(model.requests).toHaveLength(0);
  });

  it('never runs a call whose arguments were cut off by the output limit', async () => {
    const executions: string[] = [];
    const model = createScriptedModel({
      script: [
        { toolCalls: [{ toolName: 'get_weather', arguments: '{"city": "Par' }], finishReason: 'length' },
        { text: 'I could not finish the call.' },
      ],
    });
    const result = await runAgent({ model, tools: weatherTools(executions), task: TASK });
    expect(executions).toEqual([]);
    expect(result.observations[0]).toMatchObject({
      status: 'error',
      error: { code: 'incomplete_tool_call' },
    });
    assertToolCallPairing(result.messages);
  });
});

describe('runAgent: abort during a tool call', () => {
  it('aborts the running tools through their signal and ends with aborted, every call answered', async () => {
    const controller = new AbortController();
    const started: string[] = [];
    const tools = new ToolRegistry([
      defineTool({
        name: 'slow_lookup',
        description: 'A lookup that waits on its signal.',
        input: z.object({ key: z.string() }),
        execute: ({ key }, context) =>
          new Promise((_, reject) => {
            started.push(key);
            if (started.length === 2) controller.abort(new Error('user pressed stop'));
            context.signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true });
          }),
      }),
    ]);
    const model = createScriptedModel({
      script: [
        {
          toolCalls: [
            { toolName: 'slow_lookup', arguments: { key: 'a' } },
            { toolName: 'slow_lookup', arguments: { key: 'b' } },
          ],
        },
      ],
    });
    const result = await runAgent({ model, tools, task: 'Look up a and b.', signal: controller.signal });
    expect(result.finishReason).toBe('aborted');
    expect(result.observations.map((observation) => observation.status)).toEqual(['aborted', 'aborted']);
    // The reason given to abort(reason) is named where people and the model read, not only in `cause`.
    expect(result.error?.message).toBe('agent run was aborted: user pressed stop.');
    expect(result.finishDetail).toBe('agent run was aborted: user pressed stop.');
    expect(result.observations[0]?.error?.message).toContain(': user pressed stop.');
    expect(result.roundTrips).toBe(1);
    assertToolCallPairing(result.messages);
  });
});
