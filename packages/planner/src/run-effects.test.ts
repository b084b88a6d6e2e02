import type { ModelResponse, RunEvent } from '@org/core';
import { createScriptedModel } from '@org/provider-scripted';
import { defineTool, type ToolObservation, ToolRegistry } from '@org/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TASK, weatherTools } from './__fixtures__/weather-task.js';
import {
  defaultToolExecutor,
  inProcessRunEffects,
  type ModelCallInfo,
  type RunEffects,
  runAgent,
} from './index.js';

/** A journal as a durable engine keeps one: each effect's result under a key, replayed instead of re-run. */
function journalingEffects(
  journal: Map<string, unknown>,
  counts: { model: number; tool: number },
): RunEffects {
  let time = 1_000;
  let ids = 0;
  const once = async <T>(key: string, run: () => Promise<T>): Promise<T> => {
    if (journal.has(key)) return structuredClone(journal.get(key)) as T;
    const value = await run();
    journal.set(key, structuredClone(value));
    return value;
  };
  return {
    callModel: (info: ModelCallInfo, call) =>
      once(`model:${info.step}:${info.index}`, () => {
        counts.model++;
        return call();
      }),
    toolExecutor: {
      execute: (actions, context) =>
        Promise.all(
          actions.map((action) =>
            once(`tool:${action.id}`, async () => {
              counts.tool++;
              const [observation] = await defaultToolExecutor.execute([action], context);
              return observation as ToolObservation;
            }),
          ),
        ),
    },
    now: () => time++,
    newId: (kind) => `${kind}_${++ids}`,
  };
}

const script = () => [
  { toolCalls: [{ id: 'p', toolName: 'get_weather', arguments: { city: 'Paris' } }] },
  { toolCalls: [{ id: 'r', toolName: 'get_weather', arguments: { city: 'Rome' } }] },
  { text: 'Rome is warmer.' },
];

describe('runAgent: the run effects seam (durable runtimes)', () => {
  it('routes every model call, tool call, time and id through the effects, and replays a run from its journal', async () => {
    const journal = new Map<string, unknown>();
    const counts = { model: 0, tool: 0 };
    const executions: string[] = [];
    const infos: Omit<ModelCallInfo, 'request'>[] = [];
    const base = journalingEffects(journal, counts);
    const effects: RunEffects = {
      ...base,
      callModel: (info, call) => {
        const { request, ...rest } = info;
        expect(request.messages.at(-1)).toBeDefined();
        infos.push(rest);
        return base.callModel(info, call);
      },
    };
    const first = await runAgent({
      model: createScriptedModel({ script: script() }),
      tools: weatherTools(executions),
      task: TASK,
      effects,
    });
    expect(first).toMatchObject({ runId: 'run_1', finishReason: 'final-answer', text: 'Rome is warmer.' });
    expect(infos).toEqual([0, 1, 2].map((step) => ({ runId: 'run_1', step, index: 0, purpose: 'decision' })));
    expect(counts).toEqual({ model: 3, tool: 2 });
    expect(first.steps[0]?.startedAt).toBeGreaterThanOrEqual(1_000);

    // The replay: a model that would answer differently and tools that would record again are never reached.
    const events: RunEvent[] = [];
    const replayed = await runAgent({
      model: createScriptedModel({ script: [{ text: 'never asked' }] }),
      tools: weatherTools(executions),
      task: TASK,
      effects: journalingEffects(journal, counts),
      onEvent: (event) => events.push(event),
    });
    expect(counts).toEqual({ model: 3, tool: 2 });
    expect(executions).toEqual(['get_weather(Paris)', 'get_weather(Rome)']);
    expect(replayed.messages).toEqual(first.messages);
    expect(replayed.text).toBe(first.text);
    expect(events.filter((event) => event.type === 'inference-finished')).toHaveLength(3);
  });

  it('takes paused states’ resume tokens from the effects', async () => {
    const deleteFile = defineTool({
      name: 'delete_file',
      description: 'Deletes a file.',
      input: z.object({ path: z.string() }),
      needsApproval: true,
      execute: ({ path }) => `deleted ${path}`,
    });
    const result = await runAgent({
      model: createScriptedModel({
        script: [{ toolCalls: [{ id: 'd', toolName: 'delete_file', arguments: { path: 'a' } }] }],
      }),
      tools: ToolRegistry.from([deleteFile]),
      task: 'Delete a.',
      effects: { ...inProcessRunEffects(), newId: (kind) => `${kind}-fixed` },
    });
    expect(result.finishReason).toBe('approval-required');
    expect(result.runId).toBe('run-fixed');
    expect(result.state?.resumeToken).toBe('resume-token-fixed');
  });

  it('in process by default: a response passes through untouched', async () => {
    const response: ModelResponse = {
      text: 'done',
      toolCalls: [],
      finishReason: 'stop',
      usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      adjustments: [],
    };
    const effects = inProcessRunEffects({ now: () => 42 });
    expect(effects.now()).toBe(42);
    expect(await effects.callModel({} as ModelCallInfo, async () => response)).toBe(response);
    expect(effects.newId('run')).toMatch(/^run_\d+$/);
    expect(effects.newId('resume-token')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
