import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePlan } from '@org/plan-executor';
import fc from 'fast-check';
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

/** A store that saw a plan call with `plan` as its arguments, and each of its steps run. */
function planLayoutOf(plan: unknown, stepIds: readonly string[]): Map<string, string[]> {
  const store = createRunStore();
  const apply = (event: Record<string, unknown>) =>
    store.apply('f.jsonl', { event: { runId: 'r', timestamp: 1, ...event } });
  apply({ type: 'tool-call-started', action: { id: 'p', toolName: 'execute_tool_plan', args: plan } });
  for (const stepId of stepIds) {
    apply({ type: 'plan-step-started', planId: 'p', stepId, toolName: 't' });
    apply({
      type: 'plan-step-finished',
      planId: 'p',
      stepId,
      toolName: 't',
      status: 'success',
      durationMs: 0,
    });
  }
  const run = store.runs.get('r');
  if (run === undefined) throw new Error('no run');
  return new Map(store.plan(run, 'p').steps.map((step) => [step.id, [...step.dependsOn].sort()]));
}

/** The dependencies the plan executor reads from `plan`: the `$ref:`s of its parsed (canonical) step arguments. */
function executorDependencies(plan: unknown): Map<string, string[]> {
  const parsed = parsePlan(plan);
  if (!parsed.ok) throw parsed.error;
  const values = (value: unknown): string[] =>
    typeof value === 'string'
      ? [value]
      : typeof value === 'object' && value !== null
        ? Object.values(value).flatMap(values)
        : [];
  return new Map(
    parsed.plan.steps.map((step) => {
      const ids = values(step.arguments).flatMap((text) =>
        [...text.matchAll(/\$ref:([A-Za-z0-9_-]+)/g)].map((match) => match[1] ?? ''),
      );
      return [step.id, [...new Set(ids)].filter((id) => id !== step.id).sort()];
    }),
  );
}

describe('createRunStore', () => {
  it('reads the dependencies of a plan in every form the plan executor reads, as it reads them', () => {
    const plans: [string, unknown, string[]][] = [
      [
        'the list form, $ref: references',
        {
          steps: [
            { id: 'a', tool: 't', arguments: { city: 'Paris' } },
            { id: 'b', tool: 't', arguments: '{"city": "Rome"}' },
            { id: 'c', tool: 't', arguments: { first: '$ref:a.temp', all: ['$ref:b', 'x $ref:a y'] } },
          ],
        },
        ['a', 'b', 'c'],
      ],
      [
        'the steps object as execute_tool_plan teaches it, short references (the demo writes these)',
        JSON.stringify({
          steps: {
            paris: { get_weather: { city: 'Paris' } },
            rome: { get_weather: { city: 'Rome' } },
            compare: { compare_temperatures: { readings: ['$paris', '$rome.temperature'] } },
            note: { say: '{"text": "Paris at $paris.temp, about $$20 ($$rome is no reference)"}' },
          },
        }),
        ['paris', 'rome', 'compare', 'note'],
      ],
      [
        'the steps object spelled out ({tool, arguments}), both kinds of reference',
        {
          steps: {
            a: { tool: 't', arguments: { q: 'x' } },
            b: { tool: 't', arguments: { q: '$ref:a' } },
            c: { tool: 't', arguments: '{"q": "$b and $a.field"}' },
          },
        },
        ['a', 'b', 'c'],
      ],
    ];
    for (const [name, plan, stepIds] of plans) {
      expect(planLayoutOf(plan, stepIds), name).toEqual(executorDependencies(plan));
    }
    // The demo's plan: compare waits for all four cities.
    expect(planLayoutOf(plans[1]?.[1], ['paris', 'rome', 'compare', 'note']).get('compare')).toEqual([
      'paris',
      'rome',
    ]);
  });

  it('property: the dependencies it reads from any steps-object plan are those the plan executor reads', () => {
    const ids = ['a', 'b', 'c'] as const;
    const piece = fc.constantFrom('$', '$$', '$ref:', 'a', 'b', 'c', '.', 'x', ' ', '-', 'ref', ':');
    const argumentText = fc.array(piece, { maxLength: 8 }).map((pieces) => pieces.join(''));
    fc.assert(
      fc.property(fc.tuple(argumentText, argumentText, argumentText), fc.boolean(), (texts, spelledOut) => {
        const steps = Object.fromEntries(
          ids.map((id, index) => [
            id,
            spelledOut ? { tool: 't', arguments: { q: texts[index] } } : { t: { q: texts[index] } },
          ]),
        );
        const plan = { steps };
        // A plan the executor refuses never runs ("$$ref:", a literal "$ref:" it cannot hold): nothing to lay out.
        fc.pre(parsePlan(plan).ok);
        expect(planLayoutOf(plan, ids)).toEqual(executorDependencies(plan));
      }),
      { numRuns: 300 },
    );
  });

  it("lays out a program's calls by time: the chain that bounds its wall time is the critical path", () => {
    const store = createRunStore();
    const progress = (at: number, inner: Record<string, unknown>) =>
      store.apply('f.jsonl', {
        event: {
          type: 'tool-call-progress',
          runId: 'code',
          timestamp: at,
          actionId: 'c',
          toolName: 'run_code',
          progress: { ...inner, timestamp: at },
        },
      });
    const started = (at: number, n: number, toolName: string) =>
      progress(at, { type: 'tool-call-started', action: { id: `c/${n}`, toolName, args: {} } });
    const finished = (at: number, n: number, toolName: string, durationMs: number) =>
      progress(at, {
        type: 'tool-call-finished',
        observation: { actionId: `c/${n}`, toolName, status: 'success', durationMs },
      });
    // Promise.all of two calls (the second crosses from the worker 4 ms later), then a third after the slower one.
    started(1000, 1, 'get_weather');
    started(1004, 2, 'get_weather');
    finished(1300, 1, 'get_weather', 300);
    finished(1504, 2, 'get_weather', 500);
    started(1509, 3, 'compare_temperatures');
    finished(1609, 3, 'compare_temperatures', 100);
    const run = store.runs.get('code');
    if (run === undefined) throw new Error('no run');
    expect([...run.programs]).toEqual(['c']);
    const layout = store.plan(run, 'c');
    expect(layout.steps.map((step) => [step.id, step.toolName, step.status, step.dependsOn])).toEqual([
      ['1', 'get_weather', 'success', []],
      ['2', 'get_weather', 'success', []],
      ['3', 'compare_temperatures', 'success', ['2']],
    ]);
    expect(layout.criticalPath).toEqual(['2', '3']);
    // The program's calls are its timeline, not progress of the code call.
    expect(run.toolCalls.get('c')?.progress ?? []).toEqual([]);
  });

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
