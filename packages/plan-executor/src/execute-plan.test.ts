import type { JsonObject, RunEvent } from '@org/core';
import { describe, expect, it } from 'vitest';
import { createTestTools } from './__fixtures__/test-tools.js';
import { VirtualClock } from './__fixtures__/virtual-clock.js';
import {
  createInProcessStepRunner,
  executePlan,
  PlanOptionsError,
  type PlanResult,
  type PlanStepInput,
  PlanValidationError,
  type StepObservation,
  type StepRunner,
  type StepRunRequest,
  validatePlan,
} from './index.js';

const wait = (
  id: string,
  ms: number,
  after: string[] = [],
  extra: Record<string, unknown> = {},
): PlanStepInput => ({
  id,
  tool: 'wait',
  arguments: {
    ms,
    label: after.length === 0 ? id : `${id}<${after.map((dep) => `$ref:${dep}.label`).join(',')}`,
    ...extra,
  },
});

function statuses(result: PlanResult): Record<string, string> {
  return Object.fromEntries(result.steps.map((step) => [step.id, step.status]));
}

describe('executePlan: scheduling', () => {
  it('starts a step the moment its last dependency finishes (skew case: critical path, not waves)', async () => {
    const clock = new VirtualClock();
    const tools = createTestTools(clock);
    const steps = [wait('A1', 900), wait('A2', 100, ['A1']), wait('B1', 100), wait('B2', 900, ['B1'])];
    const result = await clock.run(executePlan({ steps }, { tools, clock }));
    expect(result.status).toBe('success');
    expect(result.durationMs).toBe(1000);
    const byId = Object.fromEntries(result.steps.map((step) => [step.id, step]));
    expect(byId.B2!.startedAt).toBe(100);
    expect(byId.A2!.startedAt).toBe(900);
    expect(byId.A2!.output).toEqual({ label: 'A2<A1', ms: 100 });
  });

  it('never runs more than maxConcurrency steps at once, and uses all of it', async () => {
    const clock = new VirtualClock();
    const tools = createTestTools(clock);
    let running = 0;
    let peak = 0;
    const onEvent = (event: RunEvent): void => {
      if (event.type === 'plan-step-started') peak = Math.max(peak, ++running);
      if (event.type === 'plan-step-finished') running--;
    };
    const steps = Array.from({ length: 20 }, (_, index) => wait(`s${index}`, 10 + (index % 3)));
    const result = await clock.run(executePlan({ steps }, { tools, clock, maxConcurrency: 3, onEvent }));
    expect(result.status).toBe('success');
    expect(peak).toBe(3);
  });

  it('defaults to 8 concurrent steps', async () => {
    const clock = new VirtualClock();
    const tools = createTestTools(clock);
    const steps = Array.from({ length: 16 }, (_, index) => wait(`s${index}`, 10));
    const result = await clock.run(executePlan({ steps }, { tools, clock }));
    expect(result.durationMs).toBe(20);
  });

  it('validates and coerces each step’s arguments after its references are filled', async () => {
    const tools = createTestTools();
    const result = await executePlan(
      {
        steps: [
          { id: 'w', tool: 'get_weather', arguments: { city: 'Paris' } },
          { id: 'n', tool: 'add', arguments: { a: '$ref:w.temperature', b: '2' } },
          { id: 'bad', tool: 'add', arguments: { a: '$ref:w.conditions', b: 1 } },
          { id: 'after', tool: 'echo', arguments: { value: '$ref:bad' } },
        ],
      },
      { tools },
    );
    expect(statuses(result)).toEqual({ w: 'success', n: 'success', bad: 'error', after: 'skipped' });
    expect(result.steps[1]!.arguments).toEqual({ a: 21, b: 2 });
    expect(result.steps[1]!.output).toBe(23);
    expect(result.steps[2]!.error).toMatchObject({ code: 'invalid_tool_arguments' });
    expect(result.steps[2]!.arguments).toEqual({ a: 'sunny', b: 1 });
  });

  it('emits one started and one finished event per step that runs, and one finished event per skipped step', async () => {
    const tools = createTestTools();
    const events: RunEvent[] = [];
    await executePlan(
      {
        steps: [
          { id: 'f', tool: 'fail', arguments: {} },
          { id: 'g', tool: 'echo', arguments: { value: '$ref:f' } },
          { id: 'w', tool: 'get_weather', arguments: { city: 'x' } },
        ],
      },
      {
        tools,
        onEvent: (event) => {
          events.push(event);
          throw new Error('a broken listener does not break the plan');
        },
      },
    );
    const summary = events.map((event) =>
      event.type === 'plan-step-finished'
        ? `${event.type}:${event.stepId}:${event.status}`
        : `${event.type}:${'stepId' in event ? event.stepId : ''}`,
    );
    expect(summary.sort()).toEqual(
      [
        'plan-step-started:f',
        'plan-step-finished:f:error',
        'plan-step-finished:g:skipped',
        'plan-step-started:w',
        'plan-step-finished:w:success',
      ].sort(),
    );
    const finishedF = events.find((event) => event.type === 'plan-step-finished' && event.stepId === 'f');
    expect(finishedF).toMatchObject({
      toolName: 'fail',
      error: { message: expect.stringContaining('boom') },
    });
  });

  it('rejects invalid options with a typed error', async () => {
    const tools = createTestTools();
    const plan = { steps: [{ id: 'a', tool: 'json_text', arguments: {} }] };
    for (const maxConcurrency of [0, -1, 1.5, Number.NaN]) {
      await expect(executePlan(plan, { tools, maxConcurrency })).rejects.toSatisfy(
        (error: unknown) => PlanOptionsError.isInstance(error) && error.option === 'maxConcurrency',
      );
    }
    await expect(executePlan(plan, { tools, stepTimeoutMs: 0 })).rejects.toSatisfy(
      (error: unknown) => PlanOptionsError.isInstance(error) && error.option === 'stepTimeoutMs',
    );
    expect((await executePlan(plan, { tools, maxConcurrency: Number.POSITIVE_INFINITY })).status).toBe(
      'success',
    );
  });
});

describe('executePlan: fail-forward', () => {
  it('skips the transitive dependents of a failed step with the exact reason, and runs independent steps', async () => {
    const tools = createTestTools();
    const result = await executePlan(
      {
        steps: [
          { id: 's1', tool: 'fail', arguments: { message: 'disk full' } },
          { id: 's2', tool: 'echo', arguments: { value: '$ref:s1' } },
          { id: 's3', tool: 'echo', arguments: { value: 'x $ref:s2.y' } },
          { id: 'ok', tool: 'get_weather', arguments: { city: 'Lima' } },
          { id: 'mixed', tool: 'echo', arguments: { value: ['$ref:ok', '$ref:s3'] } },
          { id: 'fine', tool: 'echo', arguments: { value: '$ref:ok.city' } },
        ],
      },
      { tools },
    );
    expect(result.status).toBe('partial');
    expect(statuses(result)).toEqual({
      s1: 'error',
      s2: 'skipped',
      s3: 'skipped',
      ok: 'success',
      mixed: 'skipped',
      fine: 'success',
    });
    expect(result.steps[0]!.error?.message).toContain('disk full');
    for (const index of [1, 2, 4]) {
      const step = result.steps[index]!;
      expect(step.error).toEqual({
        code: 'dependency_failed',
        message: "Skipped because dependency 's1' failed",
        details: { dependency: 's1', dependencyStatus: 'error' },
      });
      expect(step.skippedBecauseOf).toBe('s1');
      expect(step.startedAt).toBeUndefined();
      expect(step.durationMs).toBe(0);
    }
    expect(result.counts).toEqual({ success: 2, error: 1, skipped: 3, blocked: 0, timeout: 0, aborted: 0 });
  });

  it('names the first failed dependency in plan order when several failed', async () => {
    const tools = createTestTools();
    const result = await executePlan(
      {
        steps: [
          { id: 'b', tool: 'fail', arguments: {} },
          { id: 'a', tool: 'fail', arguments: {} },
          { id: 'c', tool: 'echo', arguments: { value: ['$ref:a', '$ref:b'] } },
        ],
      },
      { tools },
    );
    expect(result.status).toBe('failed');
    expect(result.steps[2]!.error?.message).toBe("Skipped because dependency 'b' failed");
  });

  it('turns a runner that throws or rejects, or answers garbage, into an error for that step only', async () => {
    const tools = createTestTools();
    const runner: StepRunner = {
      run: ({ stepId }) => {
        if (stepId === 'throws') throw new Error('runner crashed');
        if (stepId === 'rejects') return Promise.reject('queue down');
        if (stepId === 'garbage') return Promise.resolve(undefined as unknown as StepObservation);
        return Promise.resolve({
          actionId: stepId,
          toolName: 'json_text',
          status: 'success',
          output: 'x',
          durationMs: 0,
        });
      },
    };
    const steps = ['throws', 'rejects', 'garbage', 'fine'].map((id) => ({
      id,
      tool: 'json_text',
      arguments: {},
    }));
    const result = await executePlan({ steps }, { tools, runner });
    expect(result.steps.map((step) => [step.status, step.error?.code])).toEqual([
      ['error', 'step_runner_failed'],
      ['error', 'step_runner_failed'],
      ['error', 'invalid_step_observation'],
      ['success', undefined],
    ]);
    expect(result.steps[1]!.error?.message).toBe('The step runner failed: queue down');
  });
});

describe('executePlan: hostile values from callers and tools', () => {
  it('rejects a caller-built plan whose arguments throw when read, with a typed error', async () => {
    const tools = createTestTools();
    const hostile = { value: 'x' };
    Object.defineProperty(hostile, 'boom', {
      enumerable: true,
      get: () => {
        throw new Error('getter exploded');
      },
    });
    const error = await executePlan(
      { steps: [{ id: 'h', tool: 'echo', arguments: hostile }] },
      { tools },
    ).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(PlanValidationError.isInstance(error)).toBe(true);
    expect((error as PlanValidationError).problems).toEqual([
      { code: 'malformed_plan', path: '', message: 'The plan could not be read: getter exploded' },
    ]);
  });

  it('fails only the step whose arguments start throwing after validation, and reads a throwing output getter as missing', async () => {
    const tools = createTestTools();
    let explode = false;
    const hostileArguments = { value: '$ref:w.city' };
    Object.defineProperty(hostileArguments, 'late', {
      enumerable: true,
      get: () => {
        if (explode) throw new Error('getter exploded');
        return 1;
      },
    });
    const hostileOutput = {};
    Object.defineProperty(hostileOutput, 'field', {
      enumerable: true,
      get: () => {
        throw new Error('output getter exploded');
      },
    });
    const inProcess = createInProcessStepRunner(tools);
    const runner: StepRunner = {
      run: async (request) =>
        request.action.toolName === 'json_text'
          ? {
              actionId: request.action.id,
              toolName: 'json_text',
              status: 'success',
              rawOutput: hostileOutput,
              durationMs: 0,
            }
          : inProcess.run(request),
    };
    const checked = validatePlan(
      {
        steps: [
          { id: 'w', tool: 'get_weather', arguments: { city: 'Oslo' } },
          { id: 'hostile', tool: 'echo', arguments: hostileArguments },
          { id: 'j', tool: 'json_text', arguments: {} },
          { id: 'read', tool: 'echo', arguments: { value: '$ref:j.field' } },
        ],
      },
      { tools },
    );
    if (!checked.ok) throw checked.error;
    explode = true;
    const result = await executePlan(checked.plan, { tools, runner });
    expect(statuses(result)).toEqual({ w: 'success', hostile: 'error', j: 'success', read: 'success' });
    expect(result.steps[1]!.error).toMatchObject({
      code: 'step_preparation_failed',
      message: "The arguments of step 'hostile' could not be prepared: getter exploded",
    });
    expect(result.steps[3]!.output).toBeNull();
    expect(result.steps[3]!.missingReferences).toEqual([
      { reference: '$ref:j.field', argumentPath: 'value' },
    ]);
  });
});

describe('executePlan: timeouts', () => {
  it('times out a step at stepTimeoutMs, aborts its signal, discards a late result, and skips its dependents', async () => {
    const clock = new VirtualClock();
    const tools = createTestTools(clock);
    const signals: AbortSignal[] = [];
    let resolveLate: ((observation: StepObservation) => void) | undefined;
    const runner: StepRunner = {
      run: (request: StepRunRequest) => {
        signals.push(request.signal);
        if (request.stepId === 'hang') {
          return new Promise((resolve) => {
            resolveLate = resolve;
          });
        }
        return clock.sleep(10).then(() => ({
          actionId: request.action.id,
          toolName: request.action.toolName,
          status: 'success' as const,
          output: 'fast',
          durationMs: 10,
        }));
      },
    };
    const plan = {
      steps: [
        { id: 'hang', tool: 'json_text', arguments: {} },
        { id: 'fast', tool: 'json_text', arguments: {} },
        { id: 'after', tool: 'echo', arguments: { value: '$ref:hang' } },
      ],
    };
    const result = await clock.run(executePlan(plan, { tools, clock, runner, stepTimeoutMs: 50 }));
    expect(statuses(result)).toEqual({ hang: 'timeout', fast: 'success', after: 'skipped' });
    expect(result.steps[0]).toMatchObject({
      error: {
        code: 'timeout',
        message: "Step 'hang' (tool 'json_text') timed out after 50 ms.",
        details: { timeoutMs: 50 },
      },
      durationMs: 50,
    });
    expect(result.steps[2]!.error?.message).toBe("Skipped because dependency 'hang' failed");
    expect(signals[0]!.aborted).toBe(true);
    expect(signals[1]!.aborted).toBe(false);
    resolveLate?.({
      actionId: 'hang',
      toolName: 'json_text',
      status: 'success',
      output: 'late',
      durationMs: 999,
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(result.steps[0]!.status).toBe('timeout');
    expect(clock.pendingTimers).toBe(0);
  });

  it('times out in-process tools that honour the signal', async () => {
    const clock = new VirtualClock();
    const tools = createTestTools(clock);
    const result = await clock.run(
      executePlan({ steps: [wait('slow', 1000), wait('quick', 5)] }, { tools, clock, stepTimeoutMs: 100 }),
    );
    expect(statuses(result)).toEqual({ slow: 'timeout', quick: 'success' });
    expect(result.durationMs).toBe(100);
  });
});

describe('executePlan: abort', () => {
  it('mid-plan: nothing new starts, running steps are stopped, every step ends once, finished results are kept', async () => {
    const clock = new VirtualClock();
    const tools = createTestTools(clock);
    const controller = new AbortController();
    const events: RunEvent[] = [];
    const steps = [
      wait('done', 10),
      wait('running', 100),
      wait('queued', 10, [], {}),
      wait('waiting', 10, ['running']),
      { id: 'failed', tool: 'fail', arguments: {} },
      { id: 'afterFailed', tool: 'echo', arguments: { value: ['$ref:failed', '$ref:running'] } },
    ];
    const pending = executePlan(
      { steps },
      { tools, clock, signal: controller.signal, maxConcurrency: 3, onEvent: (event) => events.push(event) },
    );
    await clock.advanceTo(50);
    controller.abort(new Error('user pressed stop'));
    const result = await clock.run(pending);
    expect(result.aborted).toBe(true);
    expect(result.status).toBe('aborted');
    expect(result.abortReason).toBe('user pressed stop');
    expect(statuses(result)).toEqual({
      done: 'success',
      running: 'aborted',
      queued: 'success',
      waiting: 'aborted',
      failed: 'error',
      afterFailed: 'skipped',
    });
    expect(result.steps[1]!.error?.message).toBe("Step 'running' was stopped: the plan was aborted.");
    expect(result.steps[3]!.error?.message).toBe("Step 'waiting' did not start: the plan was aborted.");
    expect(result.steps[3]!.startedAt).toBeUndefined();
    const finished = events
      .filter((event) => event.type === 'plan-step-finished')
      .map((event) => event.stepId);
    expect(finished.sort()).toEqual(steps.map((step) => step.id).sort());
    const started = events.filter((event) => event.type === 'plan-step-started').length;
    expect(started).toBe(4);
    expect(result.durationMs).toBe(50);
  });

  it('before start: no step runs and every step is aborted', async () => {
    const tools = createTestTools();
    const controller = new AbortController();
    controller.abort();
    let calls = 0;
    const runner: StepRunner = {
      run: () => {
        calls++;
        return Promise.reject(new Error('must not run'));
      },
    };
    const result = await executePlan(
      {
        steps: [
          { id: 'a', tool: 'json_text', arguments: {} },
          { id: 'b', tool: 'echo', arguments: { value: '$ref:a' } },
        ],
      },
      { tools, runner, signal: controller.signal },
    );
    expect(calls).toBe(0);
    expect(statuses(result)).toEqual({ a: 'aborted', b: 'aborted' });
    expect(result.aborted).toBe(true);
  });

  it('from inside an event listener: every step still ends exactly once and nothing starts afterwards', async () => {
    const tools = createTestTools();
    const inProcess = createInProcessStepRunner(tools);
    for (const trigger of ['plan-step-started', 'plan-step-finished'] as const) {
      const controller = new AbortController();
      const finished: string[] = [];
      let startedAfterAbort = 0;
      const result = await executePlan(
        {
          steps: [
            { id: 'f', tool: 'fail', arguments: {} },
            { id: 'g', tool: 'echo', arguments: { value: '$ref:f' } },
            { id: 'h', tool: 'echo', arguments: { value: '$ref:g' } },
            { id: 'w', tool: 'get_weather', arguments: { city: 'x' } },
          ],
        },
        {
          tools,
          signal: controller.signal,
          maxConcurrency: 1,
          runner: {
            run: (request) => {
              if (controller.signal.aborted) startedAfterAbort++;
              return inProcess.run(request);
            },
          },
          onEvent: (event) => {
            if (event.type === 'plan-step-started' && controller.signal.aborted) startedAfterAbort++;
            if (event.type === 'plan-step-finished') finished.push(event.stepId);
            if (event.type === trigger) controller.abort();
          },
        },
      );
      expect(finished.sort()).toEqual(['f', 'g', 'h', 'w']);
      expect(startedAfterAbort).toBe(0);
      expect(result.aborted).toBe(true);
    }
  });

  it('returns at once even when a runner ignores the signal', async () => {
    const tools = createTestTools();
    const controller = new AbortController();
    const runner: StepRunner = { run: () => new Promise<StepObservation>(() => {}) };
    const pending = executePlan(
      { steps: [{ id: 'a', tool: 'json_text', arguments: {} }] },
      { tools, runner, signal: controller.signal },
    );
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    const result = await pending;
    expect(statuses(result)).toEqual({ a: 'aborted' });
  });
});

describe('executePlan: runners', () => {
  it('gives a custom runner a plain, serialisable action and uses the observation it returns', async () => {
    const tools = createTestTools();
    const sent: string[] = [];
    const queueRunner: StepRunner = {
      run: async ({ action }) => {
        sent.push(JSON.stringify(action));
        return {
          actionId: action.id,
          toolName: action.toolName,
          status: 'success',
          output: { remote: true, args: action.args as JsonObject },
          durationMs: 1,
        };
      },
    };
    const result = await executePlan(
      {
        steps: [
          { id: 'a', tool: 'add', arguments: { a: 1, b: 2 } },
          { id: 'b', tool: 'echo', arguments: { value: '$ref:a.args.a' } },
        ],
      },
      { tools, runner: queueRunner, actionIdPrefix: 'call_1/' },
    );
    expect(sent).toEqual([
      '{"id":"call_1/a","toolName":"add","args":{"a":1,"b":2}}',
      '{"id":"call_1/b","toolName":"echo","args":{"value":1}}',
    ]);
    expect(result.steps[1]!.output).toEqual({ remote: true, args: { value: 1 } });
  });
});
