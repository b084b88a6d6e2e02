import { assertToolCallPairing } from '@org/core';
import { createToolPlanTool } from '@org/plan-executor';
import {
  createScriptedModel,
  createTaskScripts,
  createVirtualClock,
  LATENCY_PROFILES,
  type ScriptFunction,
  type TaskCall,
  type TaskOutputs,
} from '@org/provider-scripted';
import { defineTool, ToolRegistry } from '@org/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createFunctionCallingPlanner, createReActPlanner, runAgent } from './index.js';

// The depth-3 task of the benchmarks: two groups of three searches, each group summed, then the sums compared.
const SCORES: Record<string, number> = { a1: 3, a2: 5, a3: 1, b1: 4, b2: 4, b3: 2 };
const CALLS: TaskCall[] = [
  ...Object.keys(SCORES).map((query) => ({ id: query, toolName: 'search', arguments: { query } })),
  { id: 'sumA', toolName: 'sum', arguments: { values: ['$ref:a1.score', '$ref:a2.score', '$ref:a3.score'] } },
  { id: 'sumB', toolName: 'sum', arguments: { values: ['$ref:b1.score', '$ref:b2.score', '$ref:b3.score'] } },
  { id: 'winner', toolName: 'compare', arguments: { a: '$ref:sumA', b: '$ref:sumB' } },
];

function taskTools(clock: ReturnType<typeof createVirtualClock>, failing: ReadonlySet<string>): ToolRegistry {
  return new ToolRegistry([
    defineTool({
      name: 'search',
      description: 'Searches the index; returns the score of the best hit.',
      input: z.object({ query: z.string() }),
      execute: async ({ query }) => {
        await clock.sleep(300);
        if (failing.has(query)) throw new Error(`The index is unavailable for '${query}'.`);
        return { query, score: SCORES[query] ?? 0 };
      },
    }),
    defineTool({
      name: 'sum',
      description: 'Adds numbers.',
      input: z.object({ values: z.array(z.number()) }),
      execute: ({ values }) => values.reduce((total, value) => total + value, 0),
    }),
    defineTool({
      name: 'compare',
      description: 'Says which of two totals is larger.',
      input: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => (a === b ? 'tie' : a > b ? `group A (${a} vs ${b})` : `group B (${b} vs ${a})`),
    }),
  ]);
}

async function runMode(mode: 'react' | 'native' | 'plan', failing: ReadonlySet<string> = new Set()) {
  const clock = createVirtualClock();
  const scripts = createTaskScripts({
    calls: CALLS,
    answer: ({ outputs, errors }) =>
      Object.keys(errors).length > 0
        ? 'Unknown: a search failed.'
        : `The winner is ${String(outputs.winner)}.`,
  });
  const tools = taskTools(clock, failing);
  const registry =
    mode === 'plan' ? ToolRegistry.compose(tools, new ToolRegistry([createToolPlanTool({ tools })])) : tools;
  const script: ScriptFunction = scripts[mode];
  const model = createScriptedModel({
    script,
    clock,
    latency: LATENCY_PROFILES.typical,
    ...(mode === 'react' ? { capabilities: { toolCalls: false } } : {}),
  });
  const result = await runAgent({
    model,
    tools: registry,
    planner: mode === 'react' ? createReActPlanner() : createFunctionCallingPlanner(),
    task: 'Which group scores more in total, A (a1..a3) or B (b1..b3)?',
    clock,
    maxSteps: 20,
  });
  return { result, scripts, wallTimeMs: clock.now() };
}

describe('createTaskScripts driving the loop on the depth-3 task', () => {
  it('gives the same right answer in every mode with the analytic round trips (n + 1, depth + 1, 2)', async () => {
    const runs = {
      react: await runMode('react'),
      native: await runMode('native'),
      plan: await runMode('plan'),
    };
    for (const [mode, run] of Object.entries(runs)) {
      expect({ mode, text: run.result.text }).toEqual({ mode, text: 'The winner is group B (10 vs 9).' });
      expect(run.result.roundTrips).toBe(run.scripts.roundTrips[mode as keyof typeof runs]);
      assertToolCallPairing(run.result.messages);
    }
    expect([
      runs.react.result.roundTrips,
      runs.native.result.roundTrips,
      runs.plan.result.roundTrips,
    ]).toEqual([10, 4, 2]);
    // Simulated time on one virtual clock per run: deterministic, so compared exactly, not timed.
    expect(runs.plan.wallTimeMs).toBeLessThan(runs.react.wallTimeMs);
    expect(runs.native.wallTimeMs).toBeLessThan(runs.react.wallTimeMs);
    expect(runs.plan.result.usage.inputTokens).toBeLessThan(runs.react.result.usage.inputTokens);
  });

  it('reports the failure the same way in every mode when one search fails', async () => {
    for (const mode of ['react', 'native', 'plan'] as const) {
      const { result } = await runMode(mode, new Set(['a2']));
      expect({ mode, finishReason: result.finishReason, text: result.text }).toEqual({
        mode,
        finishReason: 'final-answer',
        text: 'Unknown: a search failed.',
      });
      assertToolCallPairing(result.messages);
    }
  });
});

describe('createTaskScripts against the real plan executor', () => {
  // References inside text, a missing field, and a failed call with a dependent and a transitive dependent.
  const calls: TaskCall[] = [
    { id: 'rome', toolName: 'get_weather', arguments: { city: 'Rome' } },
    { id: 'atlantis', toolName: 'get_weather', arguments: { city: 'Atlantis' } },
    {
      id: 'report',
      toolName: 'format',
      arguments: {
        line: 'Rome $ref:rome.temperatureC °C, $ref:rome.sky.',
        temperature: '$ref:rome.temperatureC',
        humidity: '$ref:rome.humidity',
        humidityText: 'humidity $ref:rome.humidity',
        tags: 'tags: $ref:rome.tags',
        weather: '$ref:rome',
      },
    },
    {
      id: 'atlantisReport',
      toolName: 'format',
      arguments: { line: 'Atlantis $ref:atlantis.temperatureC °C' },
    },
    { id: 'summary', toolName: 'format', arguments: { line: 'Summary: $ref:atlantisReport' } },
  ];
  const ROME = { temperatureC: 21, sky: 'clear', tags: ['warm', 'dry'] };

  async function run(mode: 'react' | 'native' | 'plan') {
    const received: string[] = [];
    const observed: TaskOutputs[] = [];
    const tools = new ToolRegistry([
      defineTool({
        name: 'get_weather',
        description: 'Current weather of a city.',
        input: z.object({ city: z.string() }),
        execute: ({ city }) => {
          received.push(JSON.stringify(['get_weather', { city }]));
          if (city === 'Atlantis') throw new Error('No weather station in Atlantis.');
          return ROME;
        },
      }),
      defineTool({
        name: 'format',
        description: 'Formats a report line.',
        input: z.looseObject({ line: z.string() }),
        execute: (args) => {
          received.push(JSON.stringify(['format', args]));
          return args.line;
        },
      }),
    ]);
    const registry =
      mode === 'plan'
        ? ToolRegistry.compose(tools, new ToolRegistry([createToolPlanTool({ tools })]))
        : tools;
    const scripts = createTaskScripts({
      calls,
      answer: (outputs) => {
        observed.push(outputs);
        return 'reported';
      },
    });
    const result = await runAgent({
      model: createScriptedModel({
        script: scripts[mode],
        ...(mode === 'react' ? { capabilities: { toolCalls: false } } : {}),
      }),
      tools: registry,
      planner: mode === 'react' ? createReActPlanner() : createFunctionCallingPlanner(),
      task: 'Report the weather.',
      maxSteps: 10,
    });
    expect(result.text).toBe('reported');
    assertToolCallPairing(result.messages);
    return { received: received.sort(), observed: observed.at(-1) };
  }

  it('sends the same arguments in every mode: structured whole values, interpolated text, null for missing fields', async () => {
    const runs = { react: await run('react'), native: await run('native'), plan: await run('plan') };
    const expected = [
      JSON.stringify(['format', { ...calls[2]?.arguments, ...interpolated() }]),
      JSON.stringify(['get_weather', { city: 'Atlantis' }]),
      JSON.stringify(['get_weather', { city: 'Rome' }]),
    ].sort();
    for (const [mode, { received }] of Object.entries(runs))
      expect({ mode, received }).toEqual({ mode, received: expected });
  });

  it('skips the dependents of a failed call in every mode, with the plan executor reason', async () => {
    for (const mode of ['react', 'native', 'plan'] as const) {
      const { observed } = await run(mode);
      expect({ mode, errors: Object.keys(observed?.errors ?? {}), skipped: observed?.skipped }).toEqual({
        mode,
        errors: ['atlantis'],
        skipped: {
          atlantisReport: "Skipped because dependency 'atlantis' failed",
          summary: "Skipped because dependency 'atlantis' failed",
        },
      });
      expect(observed?.outputs.report).toBe('Rome 21 °C, clear.');
    }
  });

  function interpolated(): Record<string, unknown> {
    return {
      line: 'Rome 21 °C, clear.',
      temperature: 21,
      humidity: null,
      humidityText: 'humidity null',
      tags: 'tags: ["warm","dry"]',
      weather: ROME,
    };
  }
});
