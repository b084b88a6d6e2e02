import { assertToolCallPairing, type Message, type RunEvent } from '@org/core';
import { createToolPlanTool } from '@org/plan-executor';
import { createScriptedModel } from '@org/provider-scripted';
import { defineTool, type ToolExecutionContext, type ToolObservation, ToolRegistry } from '@org/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PARIS, ROME, TASK, weatherTools } from './__fixtures__/weather-task.js';
import {
  type AgentResult,
  defaultToolExecutor,
  InvalidToolExecutorResultError,
  runAgent,
  ToolCallFailedError,
  type ToolExecutor,
} from './index.js';

const weatherCall = (city: string, id?: string) => ({
  ...(id === undefined ? {} : { id }),
  toolName: 'get_weather',
  arguments: { city },
});

/** Every `tool-call-started` has exactly one `tool-call-finished`, and no finish comes without its start. */
function expectPairedToolEvents(events: readonly RunEvent[]): void {
  const started = new Map<string, number>();
  const finished = new Map<string, number>();
  for (const event of events) {
    if (event.type === 'tool-call-started')
      started.set(event.action.id, (started.get(event.action.id) ?? 0) + 1);
    if (event.type === 'tool-call-finished') {
      const id = event.observation.actionId;
      finished.set(id, (finished.get(id) ?? 0) + 1);
    }
  }
  for (const [id, count] of started) {
    expect(count, `started ${id}`).toBe(1);
    expect(finished.get(id), `finished ${id}`).toBe(1);
  }
}

function expectValidHistory(result: AgentResult): void {
  assertToolCallPairing(result.messages);
}

describe('runAgent: the tool executor seam', () => {
  it('runs the calls through a custom executor that wraps the default one, seeing the run and the resolved options', async () => {
    const seen: { step: number; ids: string[]; maxConcurrency: number; runId: string }[] = [];
    const executor: ToolExecutor = {
      execute: (actions, context) => {
        seen.push({
          step: context.run.step,
          ids: actions.map((action) => action.id),
          maxConcurrency: context.maxConcurrency,
          runId: context.run.runId,
        });
        return defaultToolExecutor.execute(actions, context);
      },
    };
    const events: RunEvent[] = [];
    const model = createScriptedModel({
      script: [{ toolCalls: [weatherCall('Paris', 'p'), weatherCall('Rome', 'r')] }, { text: 'Rome.' }],
    });
    const result = await runAgent({
      model,
      tools: weatherTools(),
      task: TASK,
      toolExecutor: executor,
      maxConcurrency: 3,
      runId: 'run_executor',
      onEvent: (event) => events.push(event),
    });
    expect(result).toMatchObject({ finishReason: 'final-answer', text: 'Rome.' });
    expect(seen).toEqual([{ step: 0, ids: ['p', 'r'], maxConcurrency: 3, runId: 'run_executor' }]);
    expect(result.observations.map((observation) => observation.output)).toEqual([PARIS, ROME]);
    expectPairedToolEvents(events);
  });

  it('replays journaled observations without running the tools, and announces each call once (durable runs)', async () => {
    const executions: string[] = [];
    const journal = new Map<string, ToolObservation>();
    const journaling: ToolExecutor = {
      async execute(actions, context) {
        const saved = actions.map((action) => journal.get(action.id));
        if (saved.every((observation) => observation !== undefined)) return saved as ToolObservation[];
        const observations = await defaultToolExecutor.execute(actions, context);
        for (const observation of observations) journal.set(observation.actionId, observation);
        return observations;
      },
    };
    const script = () => [{ toolCalls: [weatherCall('Paris', 'p')] }, { text: 'Paris is 18°C.' }];
    const first = await runAgent({
      model: createScriptedModel({ script: script() }),
      tools: weatherTools(executions),
      task: TASK,
      toolExecutor: journaling,
    });
    const events: RunEvent[] = [];
    const replayed = await runAgent({
      model: createScriptedModel({ script: script() }),
      tools: weatherTools(executions),
      task: TASK,
      toolExecutor: journaling,
      onEvent: (event) => events.push(event),
    });
    expect(executions).toEqual(['get_weather(Paris)']);
    expect(replayed.messages).toEqual(first.messages);
    // The replaying executor emitted nothing; the loop announced the call and its result once.
    expect(
      events.filter((event) => /^tool-call-(started|finished)$/.test(event.type)).map((event) => event.type),
    ).toEqual(['tool-call-started', 'tool-call-finished']);
  });

  it("cuts what a custom executor returns to the run's output budget, as the default executor does", async () => {
    const huge: ToolExecutor = {
      async execute(actions) {
        return actions.map((action) => ({
          actionId: action.id,
          toolName: action.toolName,
          status: 'success' as const,
          output: 'x'.repeat(2_000_000),
          durationMs: 1,
        }));
      },
    };
    const model = createScriptedModel({
      script: [{ toolCalls: [weatherCall('Paris', 'p')] }, { text: 'Done.' }],
    });
    const result = await runAgent({
      model,
      tools: weatherTools([]),
      task: TASK,
      toolExecutor: huge,
      outputBudgetBytes: 10_000,
    });
    expect(result.finishReason).toBe('final-answer');
    expect(result.observations[0]).toMatchObject({ status: 'success', truncated: true });
    const toolMessage = model.requests[1]?.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content.length).toBeLessThanOrEqual(10_000);
    expect(toolMessage?.content).toContain('truncated');
  });

  it('refuses a custom executor result that does not answer each action once, with a typed error and a valid history', async () => {
    const cases: { result: unknown; fragment: string }[] = [
      { result: undefined, fragment: 'expected an array' },
      { result: [], fragment: "no observation for 'p', 'r'" },
      {
        result: [
          { actionId: 'p', toolName: 'get_weather', status: 'success', output: 'x', durationMs: 0 },
          { actionId: 'p', toolName: 'get_weather', status: 'success', output: 'x', durationMs: 0 },
        ],
        fragment: "'p' is answered twice",
      },
      {
        result: [
          { actionId: 'p', toolName: 'get_weather', status: 'success', output: 'x', durationMs: 0 },
          { actionId: 'constructor', toolName: 'get_weather', status: 'success', output: 'x', durationMs: 0 },
        ],
        fragment: "answers 'constructor', which is not one of the step's actions",
      },
      {
        result: [
          { actionId: 'p', toolName: 'get_weather', status: 'done', durationMs: 0 },
          { actionId: 'r', toolName: 'get_weather', status: 'success', durationMs: 0 },
        ],
        fragment: 'status "done"',
      },
    ];
    for (const { result: returned, fragment } of cases) {
      const events: RunEvent[] = [];
      const executor: ToolExecutor = {
        execute: async (actions, context) => {
          // Announces the first call, then breaks the contract.
          context.emit({ type: 'tool-call-started', timestamp: 0, action: actions[0]! });
          return returned as ToolObservation[];
        },
      };
      const result = await runAgent({
        model: createScriptedModel({
          script: [{ toolCalls: [weatherCall('Paris', 'p'), weatherCall('Rome', 'r')] }],
        }),
        tools: weatherTools(),
        task: TASK,
        toolExecutor: executor,
        onEvent: (event) => events.push(event),
      });
      expect(result.finishReason).toBe('error');
      expect(InvalidToolExecutorResultError.isInstance(result.error)).toBe(true);
      expect(result.error?.message).toContain(fragment);
      expect(result.observations.map((observation) => observation.error?.code)).toEqual([
        'tool_executor_failed',
        'tool_executor_failed',
      ]);
      expectValidHistory(result);
      expectPairedToolEvents(events);
    }
  });

  it('answers every call when a custom executor throws, and ends the run with its error', async () => {
    const events: RunEvent[] = [];
    const result = await runAgent({
      model: createScriptedModel({ script: [{ toolCalls: [weatherCall('Paris', 'p')] }] }),
      tools: weatherTools(),
      task: TASK,
      toolExecutor: {
        execute: () => Promise.reject(new Error('the journal is unreachable')),
      },
      onEvent: (event) => events.push(event),
    });
    expect(result).toMatchObject({ finishReason: 'error', error: { message: 'the journal is unreachable' } });
    expect(result.messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'p', isError: true });
    expectValidHistory(result);
    expectPairedToolEvents(events);
  });

  it('keeps approval on the hook-screened arguments with a custom executor: the hook runs once per call', async () => {
    let hookCalls = 0;
    const paid: number[] = [];
    const pay = defineTool({
      name: 'pay',
      description: 'Pays an amount.',
      input: z.object({ amount: z.number() }),
      needsApproval: ({ amount }) => amount > 100,
      execute: ({ amount }) => {
        paid.push(amount);
        return 'paid';
      },
    });
    const result = await runAgent({
      model: createScriptedModel({
        script: [{ toolCalls: [{ toolName: 'pay', arguments: { amount: 50 } }] }, { text: 'done' }],
      }),
      tools: [pay],
      task: 'pay 50',
      toolExecutor: { execute: (actions, context) => defaultToolExecutor.execute(actions, context) },
      hooks: {
        beforeToolUse: ({ action }) => {
          hookCalls++;
          return { decision: 'rewrite', args: { amount: Number(action.args.amount) * 10 }, reason: 'x10' };
        },
      },
    });
    // The rewritten 500 needs approval: the run pauses instead of paying.
    expect(result.finishReason).toBe('approval-required');
    expect(result.pendingApprovals?.[0]?.args).toEqual({ amount: 500 });
    expect(paid).toEqual([]);
    expect(hookCalls).toBe(1);
  });
});

describe('runAgent: tools read the run (context.run, context.toolCall)', () => {
  it('gives each tool a frozen view of the history, the step and its own call as the model sent it', async () => {
    const seen: { step: number; roles: string[]; raw: string | undefined; frozen: boolean }[] = [];
    let mutationError: unknown;
    const inspect = defineTool({
      name: 'inspect',
      description: 'Looks at the run.',
      input: z.object({ note: z.string() }),
      execute: (_args, context: ToolExecutionContext) => {
        const history = context.run?.history ?? [];
        seen.push({
          step: context.run?.step ?? -1,
          roles: history.map((message) => message.role),
          raw: context.toolCall?.arguments,
          frozen: Object.isFrozen(history) && history.every((message) => Object.isFrozen(message)),
        });
        try {
          (history as Message[]).push({ role: 'user', content: 'injected' });
        } catch (error) {
          mutationError = error;
        }
        return 'ok';
      },
    });
    const result = await runAgent({
      model: createScriptedModel({
        script: [
          { toolCalls: [{ id: 'a', toolName: 'inspect', arguments: '{"note": "first"}' }] },
          { toolCalls: [{ id: 'b', toolName: 'inspect', arguments: { note: 'second' } }] },
          { text: 'done' },
        ],
      }),
      tools: [inspect],
      task: 'look',
    });
    expect(result.finishReason).toBe('final-answer');
    expect(seen).toEqual([
      { step: 0, roles: ['user'], raw: '{"note": "first"}', frozen: true },
      { step: 1, roles: ['user', 'assistant', 'tool'], raw: '{"note":"second"}', frozen: true },
    ]);
    expect(mutationError).toBeInstanceOf(TypeError);
    expect(result.messages.filter((message) => message.content === 'injected')).toEqual([]);
  });

  it('shows plan steps (execute_tool_plan) the same run view as the plan call', async () => {
    const views: { step: number | undefined; runId: string | undefined; length: number | undefined }[] = [];
    const lookup = defineTool({
      name: 'lookup',
      description: 'Looks something up.',
      input: z.object({ key: z.string() }),
      execute: ({ key }, context) => {
        views.push({
          step: context.run?.step,
          runId: context.run?.runId,
          length: context.run?.history.length,
        });
        return key;
      },
    });
    const plan = {
      steps: [
        { id: 'one', tool: 'lookup', arguments: { key: 'a' } },
        { id: 'two', tool: 'lookup', arguments: { key: 'b' } },
      ],
    };
    const result = await runAgent({
      model: createScriptedModel({
        script: [{ toolCalls: [{ toolName: 'execute_tool_plan', arguments: plan }] }, { text: 'done' }],
      }),
      tools: [createToolPlanTool({ tools: new ToolRegistry([lookup]) })],
      task: 'plan',
      runId: 'run_plan_view',
    });
    expect(result.finishReason).toBe('final-answer');
    expect(views).toEqual([
      { step: 0, runId: 'run_plan_view', length: 1 },
      { step: 0, runId: 'run_plan_view', length: 1 },
    ]);
  });
});

describe('runAgent: throwOnToolFailure', () => {
  it('ends the run after the step with a failed call, naming it; every call of the step is answered', async () => {
    const executions: string[] = [];
    const result = await runAgent({
      model: createScriptedModel({
        script: [
          { toolCalls: [weatherCall('Paris', 'p'), weatherCall('Atlantis', 'x')] },
          { text: 'unused' },
        ],
      }),
      tools: weatherTools(executions),
      task: TASK,
      throwOnToolFailure: true,
    });
    expect(result.finishReason).toBe('error');
    expect(ToolCallFailedError.isInstance(result.error)).toBe(true);
    expect(result.error).toMatchObject({
      code: 'tool_call_failed',
      toolCallId: 'x',
      toolName: 'get_weather',
      status: 'error',
    });
    expect(result.error?.message).toContain('No weather station in Atlantis');
    expect(executions).toEqual(['get_weather(Paris)', 'get_weather(Atlantis)']);
    expect(result.steps).toHaveLength(1);
    expect(result.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
    expectValidHistory(result);
  });

  it('does not count calls refused before running (invalid arguments) as failures, and is off by default', async () => {
    const script = () => [
      { toolCalls: [{ id: 'bad', toolName: 'get_weather', arguments: { town: 'Paris' } }] },
      { toolCalls: [weatherCall('Atlantis', 'x')] },
      { text: 'No station there.' },
    ];
    const strict = await runAgent({
      model: createScriptedModel({ script: script() }),
      tools: weatherTools(),
      task: TASK,
      throwOnToolFailure: true,
    });
    expect(strict.finishReason).toBe('error');
    expect(strict.steps).toHaveLength(2);
    expect(strict.error).toMatchObject({ toolCallId: 'x' });
    const lenient = await runAgent({
      model: createScriptedModel({ script: script() }),
      tools: weatherTools(),
      task: TASK,
    });
    expect(lenient).toMatchObject({ finishReason: 'final-answer', text: 'No station there.' });
  });
});

describe('runAgent: stopOnToolBlock', () => {
  const hooks = {
    beforeToolUse: ({ action }: { action: { args: Record<string, unknown> } }) =>
      action.args.city === 'Rome' ? { decision: 'block' as const, reason: 'Rome is off limits' } : undefined,
  };

  it("skips the step's calls after a blocked one, with a reason naming it; earlier calls run and every call is answered", async () => {
    const executions: string[] = [];
    const events: RunEvent[] = [];
    const result = await runAgent({
      model: createScriptedModel({
        script: [
          { toolCalls: [weatherCall('Paris', 'p'), weatherCall('Rome', 'r'), weatherCall('Oslo', 'o')] },
          { text: 'done' },
        ],
      }),
      tools: weatherTools(executions),
      task: TASK,
      hooks,
      stopOnToolBlock: true,
      onEvent: (event) => events.push(event),
    });
    expect(result.finishReason).toBe('final-answer');
    expect(executions).toEqual(['get_weather(Paris)']);
    expect(result.observations.map((observation) => [observation.actionId, observation.status])).toEqual([
      ['p', 'success'],
      ['r', 'blocked'],
      ['o', 'skipped'],
    ]);
    expect(result.observations[2]?.error).toMatchObject({ code: 'stopped_after_block' });
    expect(result.observations[2]?.error?.message).toContain("'r' (get_weather)");
    expectValidHistory(result);
    expectPairedToolEvents(events);
  });

  it('runs every other call by default', async () => {
    const executions: string[] = [];
    await runAgent({
      model: createScriptedModel({
        script: [
          { toolCalls: [weatherCall('Paris', 'p'), weatherCall('Rome', 'r'), weatherCall('Oslo', 'o')] },
          { text: 'done' },
        ],
      }),
      tools: weatherTools(executions),
      task: TASK,
      hooks,
    });
    expect(executions).toEqual(['get_weather(Paris)', 'get_weather(Oslo)']);
  });

  it('does not ask approval for a call it will not run', async () => {
    const approvalTool = defineTool({
      name: 'pay',
      description: 'Pays.',
      input: z.object({ amount: z.number() }),
      needsApproval: true,
      execute: () => 'paid',
    });
    const result = await runAgent({
      model: createScriptedModel({
        script: [
          {
            toolCalls: [weatherCall('Rome', 'r'), { id: 'pay', toolName: 'pay', arguments: { amount: 5 } }],
          },
          { text: 'done' },
        ],
      }),
      tools: [...weatherTools().list(), approvalTool],
      task: TASK,
      hooks,
      stopOnToolBlock: true,
    });
    expect(result.finishReason).toBe('final-answer');
    expect(result.observations.map((observation) => observation.status)).toEqual(['blocked', 'skipped']);
  });
});

describe('runAgent: the new options across a pause for approval', () => {
  it('saves stopOnToolBlock and throwOnToolFailure in the state, and asks the resume for the executor again', async () => {
    const pay = defineTool({
      name: 'pay',
      description: 'Pays.',
      input: z.object({ amount: z.number() }),
      needsApproval: true,
      execute: () => {
        throw new Error('the bank is closed');
      },
    });
    const executor: ToolExecutor = {
      execute: (actions, context) => defaultToolExecutor.execute(actions, context),
    };
    const options = {
      tools: [pay],
      task: 'pay',
      toolExecutor: executor,
      throwOnToolFailure: true,
      stopOnToolBlock: true,
    };
    const paused = await runAgent({
      ...options,
      model: createScriptedModel({
        script: [{ toolCalls: [{ id: 'p', toolName: 'pay', arguments: { amount: 5 } }] }],
      }),
    });
    expect(paused.finishReason).toBe('approval-required');
    expect(paused.state?.run).toMatchObject({ throwOnToolFailure: true, stopOnToolBlock: true });
    expect(paused.state?.run?.requires).toContain('toolExecutor');
    const state = paused.state as NonNullable<typeof paused.state>;
    await expect(
      runAgent({
        model: createScriptedModel({ script: [] }),
        tools: [pay],
        resume: { state, decisions: { p: true } },
      }),
    ).rejects.toMatchObject({ missingOptions: ['toolExecutor'] });
    const resumed = await runAgent({
      model: createScriptedModel({ script: [] }),
      tools: [pay],
      toolExecutor: executor,
      resume: { state, decisions: { p: true } },
    });
    // throwOnToolFailure came from the state.
    expect(resumed).toMatchObject({
      finishReason: 'error',
      error: { code: 'tool_call_failed', toolCallId: 'p' },
    });
    assertToolCallPairing(resumed.messages);
  });
});
