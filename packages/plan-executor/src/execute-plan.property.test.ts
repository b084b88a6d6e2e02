import type { RunEvent } from '@org/core';
import { parseToolArguments } from '@org/tools';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTestTools } from './__fixtures__/test-tools.js';
import { VirtualClock } from './__fixtures__/virtual-clock.js';
import { executePlan, parsePlan, type StepObservation, type StepRunner, validatePlan } from './index.js';

const numRuns = Number(process.env.FC_NUM_RUNS ?? 1000);
// Long runs (test:stress sets FC_NUM_RUNS=100000) need time in proportion; the default stays well under a minute.
const timeout = Math.max(60_000, numRuns * 50);
const tools = createTestTools();

interface RandomDag {
  readonly dependencies: number[][];
  readonly failing: boolean[];
}

/** DAGs of 1 to `maxSteps` steps: each step depends on a random subset of earlier ones; some fail. */
const dagOf = (maxSteps: number): fc.Arbitrary<RandomDag> =>
  fc.integer({ min: 1, max: maxSteps }).chain((count) =>
    fc.record({
      dependencies: fc.tuple(
        ...Array.from({ length: count }, (_, index) =>
          index === 0
            ? fc.constant<number[]>([])
            : fc.uniqueArray(fc.integer({ min: 0, max: index - 1 }), { maxLength: Math.min(index, 4) }),
        ),
      ),
      failing: fc
        .array(fc.boolean(), { minLength: count, maxLength: count })
        .map((flags) => flags.map((flag, index) => flag && index % 3 === 0)),
    }),
  );
const dagArbitrary = dagOf(30);

const idOf = (index: number): string => `s${index}`;

function planOf(dag: RandomDag): {
  steps: { id: string; tool: string; arguments: Record<string, unknown> }[];
} {
  // Shuffle-free but not topological on purpose: steps are listed in reverse, so order comes from references.
  return {
    steps: dag.dependencies
      .map((dependencies, index) => ({
        id: idOf(index),
        tool: 'echo',
        arguments: { value: dependencies.map((dependency) => `$ref:${idOf(dependency)}.id`) },
      }))
      .reverse(),
  };
}

/** What every step must end as, computed without any scheduling. */
function expectedOutcome(dag: RandomDag): { status: string[]; cause: (number | undefined)[] } {
  const status: string[] = [];
  const cause: (number | undefined)[] = [];
  dag.dependencies.forEach((dependencies, index) => {
    // The reason names the first failed dependency in plan order; planOf lists steps in reverse.
    const failed = [...dependencies]
      .sort((left, right) => right - left)
      .find((dependency) => status[dependency] !== 'success');
    if (failed !== undefined) {
      status.push('skipped');
      cause.push(cause[failed] ?? failed);
    } else {
      status.push(dag.failing[index] ? 'error' : 'success');
      cause.push(undefined);
    }
  });
  return { status, cause };
}

function scheduledRunner(scheduler: fc.Scheduler, dag: RandomDag, log: string[]): StepRunner {
  return {
    run: ({ stepId, action }) => {
      log.push(`run:${stepId}`);
      const index = Number(stepId.slice(1));
      const observation: StepObservation = dag.failing[index]
        ? {
            actionId: action.id,
            toolName: action.toolName,
            status: 'error',
            error: { code: 'tool_execution_failed', message: `${stepId} failed` },
            durationMs: 0,
          }
        : {
            actionId: action.id,
            toolName: action.toolName,
            status: 'success',
            rawOutput: { id: stepId, got: action.args.value },
            durationMs: 0,
          };
      return scheduler.schedule(Promise.resolve(observation), stepId);
    },
  };
}

describe('executePlan properties (fast-check)', () => {
  it(
    'on random DAGs with random failures and any completion order: one final state per step, no early start, exact skips, same results',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.scheduler(),
          dagArbitrary,
          fc.oneof(fc.integer({ min: 1, max: 5 }), fc.constant(Number.POSITIVE_INFINITY)),
          async (scheduler, dag, maxConcurrency) => {
            const events: RunEvent[] = [];
            const log: string[] = [];
            const finishedAt = new Map<string, number>();
            let running = 0;
            const onEvent = (event: RunEvent): void => {
              events.push(event);
              if (event.type === 'plan-step-started') {
                running++;
                expect(running).toBeLessThanOrEqual(maxConcurrency);
                const index = Number(event.stepId.slice(1));
                for (const dependency of dag.dependencies[index]!) {
                  expect(
                    finishedAt.has(idOf(dependency)),
                    `${event.stepId} started before ${idOf(dependency)} finished`,
                  ).toBe(true);
                }
              }
              if (event.type === 'plan-step-finished') {
                if (event.status !== 'skipped') running--;
                expect(finishedAt.has(event.stepId), `${event.stepId} finished twice`).toBe(false);
                finishedAt.set(event.stepId, events.length);
              }
            };
            const pending = executePlan(planOf(dag), {
              tools,
              maxConcurrency,
              onEvent,
              runner: scheduledRunner(scheduler, dag, log),
            });
            await scheduler.waitAll();
            const result = await pending;

            const expected = expectedOutcome(dag);
            expect(result.steps).toHaveLength(dag.dependencies.length);
            expect(finishedAt.size).toBe(dag.dependencies.length);
            for (const step of result.steps) {
              const index = Number(step.id.slice(1));
              expect(step.status).toBe(expected.status[index]);
              if (step.status === 'success') {
                expect(step.output).toEqual({ id: step.id, got: dag.dependencies[index]!.map(idOf) });
              }
              if (step.status === 'skipped') {
                expect(step.error?.message).toBe(
                  `Skipped because dependency '${idOf(expected.cause[index]!)}' failed`,
                );
                expect(log).not.toContain(`run:${step.id}`);
              }
            }
            const failed = new Set(
              result.steps.filter((step) => step.status === 'error').map((step) => Number(step.id.slice(1))),
            );
            const dependentsOfFailed = new Set<number>();
            dag.dependencies.forEach((dependencies, index) => {
              if (
                dependencies.some(
                  (dependency) => failed.has(dependency) || dependentsOfFailed.has(dependency),
                )
              ) {
                dependentsOfFailed.add(index);
              }
            });
            const skipped = new Set(
              result.steps
                .filter((step) => step.status === 'skipped')
                .map((step) => Number(step.id.slice(1))),
            );
            expect([...skipped].sort()).toEqual([...dependentsOfFailed].sort());
          },
        ),
        { numRuns },
      );
    },
    timeout,
  );

  it(
    'with an abort at a random point: every step ends exactly once, nothing starts after the abort',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.scheduler(),
          dagArbitrary,
          fc.nat({ max: 40 }),
          async (scheduler, dag, abortAfter) => {
            const controller = new AbortController();
            const finished = new Map<string, number>();
            let abortedAt = -1;
            let eventCount = 0;
            const onEvent = (event: RunEvent): void => {
              eventCount++;
              if (event.type === 'plan-step-started') {
                expect(abortedAt === -1, `${event.stepId} started after the abort`).toBe(true);
              }
              if (event.type === 'plan-step-finished')
                finished.set(event.stepId, (finished.get(event.stepId) ?? 0) + 1);
            };
            const baseRunner = scheduledRunner(scheduler, dag, []);
            let dispatched = 0;
            const runner: StepRunner = {
              run: (request) => {
                if (++dispatched === abortAfter) {
                  scheduler.schedule(Promise.resolve(), 'abort').then(() => {
                    abortedAt = eventCount;
                    controller.abort();
                  });
                }
                return baseRunner.run(request);
              },
            };
            const pending = executePlan(planOf(dag), {
              tools,
              runner,
              onEvent,
              signal: controller.signal,
              maxConcurrency: 3,
            });
            await scheduler.waitAll();
            const result = await pending;
            expect([...finished.values()].every((times) => times === 1)).toBe(true);
            expect(finished.size).toBe(dag.dependencies.length);
            expect(new Set(result.steps.map((step) => step.id)).size).toBe(dag.dependencies.length);
            if (abortedAt === -1) expect(result.aborted).toBe(false);
            if (!result.aborted) expect(result.steps.every((step) => step.status !== 'aborted')).toBe(true);
          },
        ),
        { numRuns },
      );
    },
    timeout,
  );
});

describe('executePlan under faults (fast-check, virtual clock)', () => {
  type Behaviour = 'succeed' | 'fail' | 'hang';
  const faultyPlanArbitrary = fc.record({
    dag: dagOf(200),
    behaviours: fc.array(
      fc.oneof(
        { weight: 75, arbitrary: fc.constant<Behaviour>('succeed') },
        { weight: 20, arbitrary: fc.constant<Behaviour>('fail') },
        { weight: 5, arbitrary: fc.constant<Behaviour>('hang') },
      ),
      { minLength: 200, maxLength: 200 },
    ),
    durations: fc.array(fc.integer({ min: 1, max: 500 }), { minLength: 200, maxLength: 200 }),
    abortAt: fc.option(fc.integer({ min: 0, max: 3000 })),
    maxConcurrency: fc.integer({ min: 1, max: 16 }),
  });

  it(
    '20% failing, 5% hanging steps (ignoring their signal), timeouts and random aborts: every step ends exactly once',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          faultyPlanArbitrary,
          async ({ dag, behaviours, durations, abortAt, maxConcurrency }) => {
            const clock = new VirtualClock();
            const controller = new AbortController();
            const finished = new Map<string, string>();
            const startedAt = new Map<string, number>();
            const onEvent = (event: RunEvent): void => {
              if (event.type === 'plan-step-started') startedAt.set(event.stepId, clock.now());
              if (event.type === 'plan-step-finished') {
                expect(finished.has(event.stepId), `${event.stepId} finished twice`).toBe(false);
                finished.set(event.stepId, event.status);
              }
            };
            const runner: StepRunner = {
              run: ({ stepId, action, signal }) => {
                const index = Number(stepId.slice(1));
                const behaviour = behaviours[index]!;
                if (behaviour === 'hang') return new Promise<StepObservation>(() => {});
                return clock.sleep(durations[index]!, signal).then(
                  (): StepObservation =>
                    behaviour === 'fail'
                      ? {
                          actionId: action.id,
                          toolName: action.toolName,
                          status: 'error',
                          error: { code: 'boom', message: 'boom' },
                          durationMs: 0,
                        }
                      : {
                          actionId: action.id,
                          toolName: action.toolName,
                          status: 'success',
                          rawOutput: { id: stepId },
                          durationMs: 0,
                        },
                );
              },
            };
            if (abortAt !== null) clock.sleep(abortAt).then(() => controller.abort(new Error('stop')));
            const result = await clock.run(
              executePlan(planOf(dag), {
                tools,
                runner,
                clock,
                onEvent,
                maxConcurrency,
                stepTimeoutMs: 1000,
                signal: controller.signal,
              }),
            );
            const count = dag.dependencies.length;
            expect(finished.size).toBe(count);
            expect(result.steps).toHaveLength(count);
            for (const step of result.steps) {
              expect(finished.get(step.id)).toBe(step.status);
              const index = Number(step.id.slice(1));
              if (abortAt !== null) expect(startedAt.get(step.id) ?? -1).toBeLessThanOrEqual(abortAt);
              if (step.status === 'timeout') {
                expect(behaviours[index]).toBe('hang');
                expect(step.durationMs).toBe(1000);
              }
              if (step.status === 'aborted') expect(result.aborted).toBe(true);
              if (behaviours[index] === 'hang' && startedAt.has(step.id))
                expect(['timeout', 'aborted']).toContain(step.status);
            }
            if (!result.aborted) {
              const failed = new Set<number>();
              dag.dependencies.forEach((dependencies, index) => {
                const upstreamFailed = dependencies.some((dependency) => failed.has(dependency));
                if (upstreamFailed || behaviours[index] !== 'succeed') failed.add(index);
                expect(result.steps.find((step) => step.id === idOf(index))!.status).toBe(
                  upstreamFailed
                    ? 'skipped'
                    : behaviours[index] === 'succeed'
                      ? 'success'
                      : behaviours[index] === 'fail'
                        ? 'error'
                        : 'timeout',
                );
              });
            }
          },
        ),
        { numRuns: Math.max(10, Math.floor(numRuns / 10)) },
      );
    },
    timeout,
  );
});

describe('validatePlan properties (fast-check)', () => {
  it(
    'accepts exactly the plans whose references name other existing steps without a cycle, and names real cycles',
    () => {
      const graphArbitrary = fc.integer({ min: 1, max: 12 }).chain((count) =>
        fc.array(fc.uniqueArray(fc.integer({ min: 0, max: count + 1 }), { maxLength: 3 }), {
          minLength: count,
          maxLength: count,
        }),
      );
      fc.assert(
        fc.property(graphArbitrary, (edges) => {
          const count = edges.length;
          const steps = edges.map((targets, index) => ({
            id: idOf(index),
            tool: 'echo',
            arguments: { value: targets.map((target) => `$ref:${idOf(target)}`) },
          }));
          const checked = validatePlan({ steps }, { tools });
          const unknown = edges.some((targets) => targets.some((target) => target >= count));
          const selfLoop = edges.some((targets, index) => targets.includes(index));
          const state = new Array<number>(count).fill(0);
          let cyclic = false;
          const visit = (node: number): void => {
            state[node] = 1;
            for (const target of edges[node]!) {
              if (target >= count || target === node) continue;
              if (state[target] === 1) cyclic = true;
              else if (state[target] === 0) visit(target);
            }
            state[node] = 2;
          };
          for (let node = 0; node < count; node++) if (state[node] === 0) visit(node);
          expect(checked.ok).toBe(!unknown && !selfLoop && !cyclic);
          if (!checked.ok) {
            const codes = new Set(checked.error.problems.map((problem) => problem.code));
            expect(codes.has('unknown_step')).toBe(unknown);
            expect(codes.has('self_reference')).toBe(selfLoop);
            expect(codes.has('cycle')).toBe(cyclic);
            for (const problem of checked.error.problems) {
              if (problem.code !== 'cycle') continue;
              expect(problem.cycle[0]).toBe(problem.cycle[problem.cycle.length - 1]);
              for (let position = 0; position + 1 < problem.cycle.length; position++) {
                const from = Number(problem.cycle[position]!.slice(1));
                const to = Number(problem.cycle[position + 1]!.slice(1));
                expect(edges[from]).toContain(to);
              }
            }
          }
        }),
        { numRuns },
      );
    },
    timeout,
  );

  it(
    "reads a step's argument text exactly as a direct call reads it (one strict reader, one repair policy)",
    () => {
      // Text built around JSON objects with the damage models do (fences, trailing commas, prose, a missing brace,
      // duplicate keys, unquoted references, huge integers), and arbitrary strings.
      const objectText = fc
        .dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }))
        .map((value) => JSON.stringify(value));
      const damaged = fc
        .tuple(
          objectText,
          fc.constantFrom(
            (text: string) => text,
            (text: string) => `\`\`\`json\n${text}\n\`\`\``,
            (text: string) => text.replace(/}$/, ',}'),
            (text: string) => `Here you go: ${text} Done.`,
            (text: string) => text.replace(/}$/, ''),
            (text: string) => text.replace(/^{/, '{"k": 1, "k": 2, '),
            (text: string) => text.replace(/^{/, '{"u": $ref:s1.items.0, '),
            (text: string) => text.replace(/^{/, '{"n": 9007199254740993, '),
            (text: string) => JSON.stringify(text),
          ),
        )
        .map(([text, damage]) => damage(text));
      fc.assert(
        fc.property(fc.oneof(damaged, fc.string()), (text) => {
          const direct = parseToolArguments(text, { finishReason: 'stop' });
          const parsed = parsePlan({ steps: [{ id: 's', tool: 'echo', arguments: text }] });
          expect(parsed.ok).toBe(direct.ok);
          if (parsed.ok && direct.ok) {
            expect(parsed.plan.steps[0]?.arguments).toEqual(direct.value);
            expect(parsed.plan.steps[0]?.argumentRepairs ?? []).toEqual(direct.repairs);
          }
          if (!parsed.ok) {
            const [problem] = parsed.error.problems;
            expect(problem?.code === 'invalid_arguments_json' || problem?.code === 'limit_exceeded').toBe(
              true,
            );
          }
          // The whole plan as text goes through the same reader: a plan that holds this text as a string parses
          // to the same step.
          const asText = parsePlan(JSON.stringify({ steps: [{ id: 's', tool: 'echo', arguments: text }] }));
          expect(asText).toEqual(parsed);
        }),
        { numRuns },
      );
    },
    timeout,
  );

  it(
    'never throws on arbitrary input: a plan or a typed error',
    () => {
      fc.assert(
        fc.property(
          fc.oneof(
            fc.jsonValue(),
            fc.string(),
            fc.record({
              steps: fc.array(
                fc.record({
                  id: fc.string(),
                  tool: fc.string(),
                  arguments: fc.oneof(fc.string(), fc.jsonValue()),
                }),
              ),
            }),
          ),
          (input) => {
            const parsed = parsePlan(input);
            if (!parsed.ok) expect(parsed.error.problems.length).toBeGreaterThan(0);
            const checked = validatePlan(input, { tools });
            if (!checked.ok) expect(checked.error.code).toBe('invalid_plan');
          },
        ),
        { numRuns },
      );
    },
    timeout,
  );
});
