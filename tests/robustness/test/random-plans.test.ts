/**
 * Issue 11 goal: random plans of 1 to 200 steps, 20% failing and 5% hanging steps (hanging ones ignore their
 * signal), random dependencies and random aborts, on a virtual clock; after each plan, every step ended exactly
 * once. CI runs 200 plans; `test:stress` runs 10,000 (`RANDOM_PLANS`).
 */
import type { RunEvent } from '@org/core';
import { executePlan } from '@org/plan-executor';
import { createVirtualClock } from '@org/provider-scripted';
import { defineTool, ToolRegistry } from '@org/tools';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

const PLANS = Number(process.env.RANDOM_PLANS ?? 200);
const STEP_TIMEOUT_MS = 500;
const FINAL_STATES = new Set(['success', 'error', 'skipped', 'timeout', 'aborted']);

type Kind = 'ok' | 'fail' | 'hang';

const stepArbitrary = (index: number) =>
  fc.record({
    // 75% ok, 20% failing, 5% hanging.
    kind: fc
      .integer({ min: 0, max: 99 })
      .map((roll): Kind => (roll < 75 ? 'ok' : roll < 95 ? 'fail' : 'hang')),
    durationMs: fc.integer({ min: 1, max: 200 }),
    dependsOn: fc.uniqueArray(fc.integer({ min: 0, max: Math.max(0, index - 1) }), {
      maxLength: index === 0 ? 0 : 3,
    }),
  });

const planArbitrary = fc.integer({ min: 1, max: 200 }).chain((count) =>
  fc.record({
    steps: fc.tuple(...Array.from({ length: count }, (_, index) => stepArbitrary(index))),
    // Half of the plans are aborted at a random moment of virtual time.
    abortAtMs: fc.option(fc.integer({ min: 0, max: 3000 }), { freq: 1 }),
    maxConcurrency: fc.constantFrom(1, 4, 8, Number.POSITIVE_INFINITY),
  }),
);

describe('random plans under faults (virtual clock)', () => {
  it(
    `${PLANS} plans of 1-200 steps: every step ends exactly once, nothing starts after an abort`,
    async () => {
      await fc.assert(
        fc.asyncProperty(planArbitrary, async ({ steps, abortAtMs, maxConcurrency }) => {
          const clock = createVirtualClock();
          const controller = new AbortController();
          const executions = new Map<string, number>();
          const tools = new ToolRegistry([
            defineTool({
              name: 'step',
              description: 'A step of a random plan.',
              input: z.object({
                id: z.string(),
                kind: z.string(),
                ms: z.number(),
                inputs: z.array(z.unknown()),
              }),
              execute: async ({ id, kind, ms }) => {
                executions.set(id, (executions.get(id) ?? 0) + 1);
                if (kind === 'hang') return new Promise(() => {});
                await clock.sleep(ms);
                if (kind === 'fail') throw new Error(`step ${id} failed`);
                return { id, value: ms };
              },
            }),
          ]);
          const plan = {
            steps: steps.map((step, index) => ({
              id: `s${index}`,
              tool: 'step',
              arguments: {
                id: `s${index}`,
                kind: step.kind,
                ms: step.durationMs,
                inputs: step.dependsOn.map((dependency) => `$ref:s${dependency}.value`),
              },
            })),
          };
          const started = new Map<string, number>();
          const finished = new Map<string, number>();
          let abortedAt: number | undefined;
          const startedAfterAbort: string[] = [];
          const stopTimer = new AbortController();
          if (abortAtMs !== null) {
            clock.sleep(abortAtMs, stopTimer.signal).then(
              () => {
                abortedAt = clock.now();
                controller.abort(new Error('random abort'));
              },
              () => {},
            );
          }
          const result = await executePlan(plan, {
            tools,
            clock,
            maxConcurrency,
            stepTimeoutMs: STEP_TIMEOUT_MS,
            signal: controller.signal,
            onEvent: (event: RunEvent) => {
              if (event.type === 'plan-step-started') {
                started.set(event.stepId, (started.get(event.stepId) ?? 0) + 1);
                if (abortedAt !== undefined) startedAfterAbort.push(event.stepId);
              }
              if (event.type === 'plan-step-finished') {
                finished.set(event.stepId, (finished.get(event.stepId) ?? 0) + 1);
              }
            },
          });
          stopTimer.abort();

          expect(result.steps).toHaveLength(steps.length);
          expect(startedAfterAbort).toEqual([]);
          for (const [index, step] of steps.entries()) {
            const id = `s${index}`;
            const outcome = result.steps[index];
            expect(outcome?.id).toBe(id);
            expect(finished.get(id)).toBe(1);
            expect(started.get(id) ?? 0).toBeLessThanOrEqual(1);
            expect(executions.get(id) ?? 0).toBeLessThanOrEqual(1);
            expect(FINAL_STATES.has(outcome?.status ?? '')).toBe(true);
            if (outcome?.status === 'success') {
              expect(step.kind).toBe('ok');
              expect(outcome.output).toEqual({ id, value: step.durationMs });
            }
            if (step.kind === 'fail') expect(outcome?.status).not.toBe('success');
            if (step.kind === 'hang') expect(['timeout', 'aborted', 'skipped']).toContain(outcome?.status);
            const dependencyFailed = step.dependsOn.some(
              (dependency) => result.steps[dependency]?.status !== 'success',
            );
            if (dependencyFailed) expect(['skipped', 'aborted']).toContain(outcome?.status);
            if ((started.get(id) ?? 0) === 0) expect(executions.get(id) ?? 0).toBe(0);
          }
          const total = Object.values(result.counts).reduce((sum, count) => sum + count, 0);
          expect(total).toBe(steps.length);
          if (abortedAt !== undefined && result.aborted) expect(result.status).toBe('aborted');
          if (!controller.signal.aborted) expect(result.aborted).toBe(false);
        }),
        { numRuns: PLANS },
      );
    },
    Math.max(60_000, PLANS * 300),
  );
});
