import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recordApprovalRun, recordPlanRun, recordWeatherRun } from '../../test/fixtures/record-runs.js';
import { devtoolsListener, readRow } from '../index.js';
import { createRunStore, type RunStore } from './run-store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A store fed with what the listener wrote while `record` ran, as the page is fed (rows as JSON). */
async function storeOf(
  record: (listener: ReturnType<typeof devtoolsListener>) => Promise<unknown>,
): Promise<RunStore> {
  const dir = mkdtempSync(join(tmpdir(), 'devtools-store-'));
  dirs.push(dir);
  const listener = devtoolsListener({ dir });
  await record(listener);
  listener.close();
  const store = createRunStore();
  readFileSync(listener.file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .forEach((line, index) => {
      const row = JSON.parse(JSON.stringify(readRow(line, 'f.jsonl', index + 1, 1 << 20)));
      store.apply(row.source, row.record);
    });
  return store;
}

describe('createRunStore', () => {
  it('lays out a plan with the dependencies the model wrote and its critical path', async () => {
    const store = await storeOf((listener) => recordPlanRun(listener, 'plan'));
    const run = store.runs.get('plan');
    if (run === undefined) throw new Error('no run');
    const [planId] = [...run.plans.keys()];
    const layout = store.plan(run, planId ?? '');
    expect(layout.steps.map((step) => [step.id, step.status, step.durationMs, step.dependsOn])).toEqual([
      ['paris', 'success', 300, []],
      ['rome', 'success', 500, []],
      ['compare', 'success', 100, ['paris', 'rome']],
    ]);
    expect(layout.criticalPath).toEqual(['rome', 'compare']);
    expect(run.reason).toBe('final-answer');
    expect(run.usage.totalTokens).toBeGreaterThan(0);
    expect(run.finishedAt! - run.startedAt!).toBe(600);
  });

  it('pairs each recorded request with its model call, and sums the calls', async () => {
    const store = await storeOf((listener) => recordWeatherRun(listener, 'weather'));
    const run = store.runs.get('weather');
    expect(run?.modelCalls.map((call) => [call.index, call.status, call.text])).toEqual([
      [1, 'finished', 'Checking both cities.'],
      [2, 'finished', 'Rome is warmer at 24°C.'],
    ]);
    expect(run?.requests).toHaveLength(2);
    expect([...(run?.toolCalls.values() ?? [])].map((call) => [call.toolName, call.status])).toEqual([
      ['get_weather', 'success'],
      ['get_weather', 'success'],
    ]);
    const calls = run?.modelCalls ?? [];
    expect(run?.usage.totalTokens).toBe(calls.reduce((sum, call) => sum + (call.usage?.totalTokens ?? 0), 0));
  });

  it('keeps an approval pending until its call runs or is denied', async () => {
    const store = await storeOf((listener) => recordApprovalRun(listener, 'pay'));
    const run = store.runs.get('pay');
    expect(run?.reason).toBe('approval-required');
    expect([...(run?.approvals.entries() ?? [])]).toEqual([
      ['pay-1', { toolName: 'pay', args: { amount: 42 }, requestedAt: expect.any(Number) }],
    ]);
    store.apply('f.jsonl', {
      v: 1,
      seq: 99,
      recordedAt: 0,
      event: {
        type: 'tool-call-finished',
        timestamp: 0,
        runId: 'pay',
        observation: { actionId: 'pay-1', toolName: 'pay', status: 'blocked', durationMs: 0 },
      },
    });
    expect(run?.approvals.size).toBe(0);
  });

  it('notes what it cannot show: an unknown event, a record cut to fit, one omitted', () => {
    const store = createRunStore();
    const base = { v: 1, seq: 0, recordedAt: 0 };
    store.apply('f', { ...base, event: { type: 'from-the-future', timestamp: 1, runId: 'r' } });
    store.apply('f', {
      ...base,
      event: { type: 'run-started', timestamp: 1, runId: 'r' },
      truncated: ['x: 1 of 2'],
    });
    store.apply('f', {
      ...base,
      event: { type: 'tool-call-finished', timestamp: 2, runId: 'r' },
      omitted: 'too big',
    });
    store.apply('f', {
      ...base,
      event: { type: 'plan-step-started', timestamp: 3, stepId: 's', toolName: 't' },
    });
    expect(store.runs.get('r')?.notes).toEqual([
      'unknown event type "from-the-future"',
      'run-started: cut to fit: x: 1 of 2',
      'tool-call-finished: too big',
    ]);
    // Events outside a run (a plan run on its own) are grouped by their file.
    expect([...store.runs.keys()]).toEqual(['r', 'f (events outside a run)']);
  });
});
