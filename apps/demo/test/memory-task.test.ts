import { existsSync } from 'node:fs';
import type { LanguageModel } from '@org/core';
import {
  createScriptedModel,
  createTaskScripts,
  createVirtualClock,
  LATENCY_PROFILES,
} from '@org/provider-scripted';
import { describe, expect, it } from 'vitest';
import { MODES, type Mode, memoryServerScript, memoryTask, runTaskInMode } from '../src/index.js';

const EXPECTED_ANSWER =
  'Ada Lovelace (Slack @ada) owns checkout-service; Grace Hopper (pager 555-0142) is on call. Logged INC-2041 in memory (INC-2041 affects checkout-service).';

/** Child processes of this worker: server-memory runs as one. */
function childProcesses(): number {
  return process.getActiveResourcesInfo().filter((resource) => resource === 'ProcessWrap').length;
}

/** Child processes once the handles of those that exited are released (that takes a few turns of the loop). */
async function settledChildProcesses(): Promise<number> {
  for (let attempt = 0; attempt < 20 && childProcesses() > 0; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 5 * attempt));
  }
  return childProcesses();
}

function scriptedModel(mode: Mode, clock: ReturnType<typeof createVirtualClock>): LanguageModel {
  const scripts = createTaskScripts({
    calls: memoryTask.calls,
    answer: memoryTask.answer,
    ...(memoryTask.outputSteps === undefined ? {} : { outputSteps: memoryTask.outputSteps }),
  });
  return createScriptedModel({
    script: scripts[mode],
    clock,
    latency: LATENCY_PROFILES.typical,
    ...(mode === 'react' ? { capabilities: { toolCalls: false } } : {}),
  });
}

describe('the MCP task (server-memory over stdio)', () => {
  it('resolves the installed server, run with this Node', () => {
    const script = memoryServerScript();
    expect(script).toMatch(/@modelcontextprotocol[\\/]server-memory[\\/]dist[\\/]index\.js$/);
    expect(existsSync(script)).toBe(true);
  });

  it.each(MODES)(
    'answers right in %s mode from the real server, and stops it after the run',
    async (mode) => {
      const before = await settledChildProcesses();
      const clock = createVirtualClock();
      let inferenceMs = 0;
      const run = await runTaskInMode(memoryTask, mode, {
        model: scriptedModel(mode, clock),
        clock,
        onEvent: (event) => {
          if (event.type === 'inference-finished') inferenceMs += event.durationMs;
        },
      });
      expect(run.result.finishReason).toBe('final-answer');
      expect(run.result.text).toBe(EXPECTED_ANSWER);
      expect(run.result.roundTrips).toBe({ react: 5, native: 3, plan: 2, code: 2 }[mode]);
      expect(await settledChildProcesses()).toBe(before);

      // Every call went to the server, and its measured real time is on the clock beside the simulated model time.
      const calls = run.connectedTools?.realCallTimesMs ?? [];
      expect(run.connectedTools?.source).toBe('MCP server-memory over stdio');
      expect(calls).toHaveLength(4);
      for (const ms of calls) expect(ms).toBeGreaterThan(0);
      if (mode === 'react') {
        // One call at a time: the wall time is exactly the model's time plus each call's real time.
        expect(run.wallTimeMs).toBeCloseTo(inferenceMs + calls.reduce((sum, ms) => sum + ms, 0), 6);
      } else {
        expect(run.wallTimeMs).toBeGreaterThan(inferenceMs);
        expect(run.wallTimeMs).toBeLessThanOrEqual(
          inferenceMs + calls.reduce((sum, ms) => sum + ms, 0) + 1e-6,
        );
      }
      if (mode === 'plan') {
        const [plan] = run.plans;
        expect(plan?.steps.map((step) => [step.id, step.status])).toEqual([
          ['service', 'success'],
          ['incident', 'success'],
          ['people', 'success'],
          ['link', 'success'],
        ]);
        expect(plan?.durationMs).toBeGreaterThan(0);
      }
    },
  );

  it('starts each run on the same graph: a second run finds no incident from the first', async () => {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const clock = createVirtualClock();
      const run = await runTaskInMode(memoryTask, 'native', { model: scriptedModel('native', clock), clock });
      expect(run.result.text).toBe(EXPECTED_ANSWER);
    }
  });

  it('stops the server when the run is aborted mid-way (Ctrl-C)', async () => {
    const before = await settledChildProcesses();
    const clock = createVirtualClock();
    const stop = new AbortController();
    let running = 0;
    const run = await runTaskInMode(memoryTask, 'react', {
      model: scriptedModel('react', clock),
      clock,
      signal: stop.signal,
      onEvent: (event) => {
        if (event.type === 'tool-call-finished') {
          running = childProcesses() - before;
          stop.abort(new Error('stopped by SIGINT'));
        }
      },
    });
    expect(running).toBe(1);
    expect(run.result.finishReason).toBe('aborted');
    expect(run.connectedTools?.realCallTimesMs).toHaveLength(1);
    expect(await settledChildProcesses()).toBe(before);
  });

  it('stops the server when the run throws', async () => {
    const before = await settledChildProcesses();
    const clock = createVirtualClock();
    await expect(
      runTaskInMode(memoryTask, 'native', { model: {} as LanguageModel, clock }),
    ).rejects.toMatchObject({ code: expect.any(String) });
    expect(await settledChildProcesses()).toBe(before);
  });
});
