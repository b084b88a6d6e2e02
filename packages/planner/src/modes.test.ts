import { assertToolCallPairing, type Message, type RunEvent, ToolChoice } from '@org/core';
import { createToolPlanTool } from '@org/plan-executor';
import {
  countMessageTokens,
  countRequestTokens,
  createScriptedModel,
  createVirtualClock,
  LATENCY_PROFILES,
  type ScriptedModel,
} from '@org/provider-scripted';
import { ToolRegistry } from '@org/tools';
import { describe, expect, it } from 'vitest';
import {
  answerFromLastObservation,
  EXPECTED_ANSWER,
  PARIS,
  ROME,
  reactAnswerFromLastObservation,
  reactCall,
  SYSTEM_PROMPT,
  TASK,
  weatherTools,
} from './__fixtures__/weather-task.js';
import {
  type AgentResult,
  createFunctionCallingPlanner,
  createReActPlanner,
  renderReActInstructions,
  runAgent,
} from './index.js';

// The task: two lookups that do not depend on each other, then a comparison of both (n = 3 calls, depth 2).
const N_CALLS = 3;
const DEPTH = 2;

interface ModeRun {
  result: AgentResult;
  model: ScriptedModel;
  /** Input tokens of the first request: system prompt (+ tools) + task. */
  prefix: number;
  executions: string[];
}

async function runReAct(): Promise<ModeRun> {
  const executions: string[] = [];
  const tools = weatherTools(executions);
  const model = createScriptedModel({
    capabilities: { toolCalls: false },
    latency: LATENCY_PROFILES.typical,
    clock: createVirtualClock(),
    script: [
      reactCall('get_weather', { city: 'Paris' }),
      reactCall('get_weather', { city: 'Rome' }),
      reactCall('compare_temperatures', { first: PARIS, second: ROME }),
      reactAnswerFromLastObservation,
    ],
  });
  const result = await runAgent({
    model,
    tools,
    planner: createReActPlanner(),
    systemPrompt: SYSTEM_PROMPT,
    task: TASK,
  });
  const system = `${SYSTEM_PROMPT}\n\n${renderReActInstructions(tools.specs(), ToolChoice.auto())}`;
  const prefix = countRequestTokens({
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: TASK },
    ],
  });
  return { result, model, prefix, executions };
}

async function runNative(): Promise<ModeRun> {
  const executions: string[] = [];
  const tools = weatherTools(executions);
  const model = createScriptedModel({
    latency: LATENCY_PROFILES.typical,
    clock: createVirtualClock(),
    script: [
      {
        toolCalls: [
          { toolName: 'get_weather', arguments: { city: 'Paris' } },
          { toolName: 'get_weather', arguments: { city: 'Rome' } },
        ],
      },
      { toolCalls: [{ toolName: 'compare_temperatures', arguments: { first: PARIS, second: ROME } }] },
      answerFromLastObservation,
    ],
  });
  const result = await runAgent({
    model,
    tools,
    planner: createFunctionCallingPlanner(),
    systemPrompt: SYSTEM_PROMPT,
    task: TASK,
  });
  return { result, model, prefix: prefixWithTools(tools), executions };
}

async function runPlanMode(onEvent?: (event: RunEvent) => void): Promise<ModeRun> {
  const executions: string[] = [];
  const weather = weatherTools(executions);
  const tools = ToolRegistry.compose(weather, new ToolRegistry([createToolPlanTool({ tools: weather })]));
  const model = createScriptedModel({
    latency: LATENCY_PROFILES.typical,
    clock: createVirtualClock(),
    script: [
      {
        toolCalls: [
          {
            toolName: 'execute_tool_plan',
            arguments: {
              steps: [
                { id: 'paris', tool: 'get_weather', arguments: { city: 'Paris' } },
                { id: 'rome', tool: 'get_weather', arguments: { city: 'Rome' } },
                {
                  id: 'compare',
                  tool: 'compare_temperatures',
                  arguments: { first: '$ref:paris', second: '$ref:rome' },
                },
              ],
              output_steps: ['compare'],
            },
          },
        ],
      },
      answerFromLastObservation,
    ],
  });
  const result = await runAgent({
    model,
    tools,
    planner: createFunctionCallingPlanner(),
    systemPrompt: SYSTEM_PROMPT,
    task: TASK,
    ...(onEvent === undefined ? {} : { onEvent }),
  });
  return { result, model, prefix: prefixWithTools(tools), executions };
}

function prefixWithTools(tools: ToolRegistry): number {
  return countRequestTokens({
    messages: [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: TASK },
    ],
    // The scripted model declares strictSchemas, so the function-calling planner sends the strict dialect.
    tools: tools.specs({ target: 'openai-strict' }),
  });
}

/** The messages each step added to the history: an assistant turn and its results, up to the next assistant turn. */
function stepChunks(messages: readonly Message[]): Message[][] {
  const chunks: Message[][] = [];
  for (const message of messages.slice(1)) {
    if (message.role === 'assistant') chunks.push([message]);
    else chunks.at(-1)?.push(message);
  }
  return chunks;
}

/**
 * Input tokens of a run of k calls, each request the prefix P plus every earlier step's messages D_j:
 * total = k·P + Σ_j (k − 1 − j)·D_j.
 */
function analyticInputTokens(run: ModeRun): { perCall: number[]; total: number } {
  const deltas = stepChunks(run.result.messages).map((chunk) =>
    chunk.reduce((sum, m) => sum + countMessageTokens(m), 0),
  );
  const k = run.result.roundTrips;
  const perCall = Array.from(
    { length: k },
    (_, call) => run.prefix + deltas.slice(0, call).reduce((a, b) => a + b, 0),
  );
  const total =
    k * run.prefix + deltas.slice(0, k - 1).reduce((sum, delta, j) => sum + (k - 1 - j) * delta, 0);
  return { perCall, total };
}

describe('the same task in the three modes', () => {
  it('reaches the same final answer, computed by the tools, in ReAct, native function calling and plan mode', async () => {
    const runs = { react: await runReAct(), native: await runNative(), plan: await runPlanMode() };
    for (const [mode, run] of Object.entries(runs)) {
      expect({ mode, finishReason: run.result.finishReason, text: run.result.text }).toEqual({
        mode,
        finishReason: 'final-answer',
        text: EXPECTED_ANSWER,
      });
      expect([...run.executions].sort()).toEqual([
        'compare_temperatures(Paris, Rome)',
        'get_weather(Paris)',
        'get_weather(Rome)',
      ]);
      assertToolCallPairing(run.result.messages);
      expect(run.model.remainingTurns).toBe(0);
    }
  });

  it('makes the analytic number of round trips and spends the analytic input tokens in each mode', async () => {
    const runs = { react: await runReAct(), native: await runNative(), plan: await runPlanMode() };
    expect(runs.react.result.roundTrips).toBe(N_CALLS + 1);
    expect(runs.native.result.roundTrips).toBe(DEPTH + 1);
    expect(runs.plan.result.roundTrips).toBe(2);
    for (const run of Object.values(runs)) {
      expect(run.model.calls).toHaveLength(run.result.roundTrips);
      const analytic = analyticInputTokens(run);
      expect(run.model.calls.map((call) => call.inputTokens)).toEqual(analytic.perCall);
      expect(run.result.usage.inputTokens).toBe(analytic.total);
    }
    // The analytic structure, written out for this task (D_j: tokens a step adds to the history).
    const deltas = (run: ModeRun) =>
      stepChunks(run.result.messages).map((chunk) =>
        chunk.reduce((sum, m) => sum + countMessageTokens(m), 0),
      );
    const [r0, r1, r2] = deltas(runs.react) as [number, number, number];
    expect(runs.react.result.usage.inputTokens).toBe(4 * runs.react.prefix + 3 * r0 + 2 * r1 + r2);
    const [n0, n1] = deltas(runs.native) as [number, number];
    expect(runs.native.result.usage.inputTokens).toBe(3 * runs.native.prefix + 2 * n0 + n1);
    const [p0] = deltas(runs.plan) as [number];
    expect(runs.plan.result.usage.inputTokens).toBe(2 * runs.plan.prefix + p0);
  });

  it('surfaces the plan tool’s steps as plan-step events of the run', async () => {
    const events: RunEvent[] = [];
    await runPlanMode((event) => events.push(event));
    const steps = events.flatMap((event) =>
      event.type === 'plan-step-started' || event.type === 'plan-step-finished'
        ? [`${event.type}:${event.stepId}`]
        : [],
    );
    expect(steps.filter((step) => step.startsWith('plan-step-started'))).toHaveLength(3);
    expect(steps.filter((step) => step.startsWith('plan-step-finished'))).toHaveLength(3);
    expect(steps.indexOf('plan-step-finished:paris')).toBeLessThan(
      steps.indexOf('plan-step-started:compare'),
    );
  });
});
