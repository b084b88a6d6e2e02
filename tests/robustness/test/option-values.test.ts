/**
 * Issue 18, classes 6 and 9: option values no timer can wait, and limit values that would switch a limit off. One
 * rule everywhere, from `@org/core` (`timerDelayProblem`, `limitValueProblem`): every public entry that takes a
 * timeout, a retry wait or a limit either accepts a value by that rule or refuses it at once with its package's
 * typed options error; none arms a timer Node would fire after 1 ms, none reads `NaN` as "no limit".
 */

import {
  abortableSleep,
  checkRetryOptions,
  InvalidProviderOptionsError,
  MAX_TIMER_DELAY_MS,
  RateLimitError,
  resolveRetryOptions,
  withRetries,
} from '@org/core';
import { connectMcp, createMcpServer, InvalidMcpOptionError } from '@org/mcp';
import {
  createToolPlanTool,
  executePlan,
  formatPlanResult,
  PlanOptionsError,
  parsePlan,
  validatePlan,
} from '@org/plan-executor';
import { createAnthropic } from '@org/provider-anthropic';
import { createOpenAI } from '@org/provider-openai';
import { createScriptedModel, InvalidScriptError } from '@org/provider-scripted';
import {
  defineTool,
  InvalidToolDefinitionError,
  InvalidToolOptionError,
  parseToolArguments,
  ToolRegistry,
} from '@org/tools';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NUM_RUNS } from './support/run-helpers.js';

/** Numbers of every kind an option may be given: NaN, ±Infinity, ±0, fractions, 2^31 and its neighbours, huge. */
const anyNumber = fc.oneof(
  fc.constantFrom(
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    0,
    -0,
    -1,
    0.5,
    1,
    1.5,
    1e-9,
    2 ** 31 - 1,
    2 ** 31,
    2 ** 32,
    2 ** 53,
    Number.MAX_VALUE,
  ),
  fc.double(),
  fc.integer({ min: -10, max: 2 ** 32 }),
);
/** Values that are not numbers at all. */
const notANumber = fc.constantFrom<unknown>('100', null, true, {}, [], 10n);

const isTimeout = (value: unknown): boolean =>
  value === Number.POSITIVE_INFINITY ||
  (typeof value === 'number' && value > 0 && value <= MAX_TIMER_DELAY_MS);
const isWholeTimeout = (value: unknown): boolean =>
  value === Number.POSITIVE_INFINITY || (isTimeout(value) && Number.isInteger(value));
const isWait = (value: unknown): boolean =>
  typeof value === 'number' && value >= 0 && value <= MAX_TIMER_DELAY_MS;
const isWholeWait = (value: unknown): boolean => isWait(value) && Number.isInteger(value);
const isLimit = (value: unknown): boolean =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
const isBudget = (value: unknown): boolean =>
  value === Number.POSITIVE_INFINITY ||
  (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0);

/** What `run` threw, or `undefined`. */
function thrownBy(run: () => unknown): unknown {
  try {
    run();
    return undefined;
  } catch (error) {
    return error;
  }
}

async function rejectionOf(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
    return undefined;
  } catch (error) {
    return error;
  }
}

const echo = defineTool({
  name: 'echo',
  description: 'Echoes.',
  input: { type: 'object', properties: { text: { type: 'string' } } },
  execute: (args: Record<string, unknown>) => args.text ?? 'ok',
});
const tools = new ToolRegistry([echo]);
const plan = { steps: [{ id: 'a', tool: 'echo', arguments: { text: 'x' } }] };

/** Expects `error` to be undefined when `accepted`, else an instance of the typed error. */
function expectRule(
  error: unknown,
  accepted: boolean,
  type: { isInstance(error: unknown): boolean },
  value: unknown,
): void {
  if (accepted) expect(error, `accepted ${String(value)}`).toBeUndefined();
  else expect(type.isInstance(error), `refused ${String(value)} with ${String(error)}`).toBe(true);
}

describe('issue 18, class 6: one timer rule for every timeout, retry wait and back-off cap', () => {
  it('property: synchronous entries accept exactly the values a timer can wait, and refuse the rest typed', () => {
    fc.assert(
      fc.property(fc.oneof(anyNumber, notANumber), (value) => {
        const timeout = value as number;
        // @org/plan-executor: the plan tool checks its options where it is made
        expectRule(
          thrownBy(() => createToolPlanTool({ tools, stepTimeoutMs: timeout })),
          isTimeout(value),
          PlanOptionsError,
          value,
        );
        expectRule(
          thrownBy(() => createToolPlanTool({ tools, timeoutMs: timeout })),
          isTimeout(value),
          PlanOptionsError,
          value,
        );
        // @org/tools
        expectRule(
          thrownBy(() => defineTool({ ...echoDefinition, timeoutMs: timeout })),
          isTimeout(value),
          InvalidToolDefinitionError,
          value,
        );
        // providers: the SDKs want whole milliseconds; Infinity is none (the longest timer)
        expectRule(
          thrownBy(() => createOpenAI({ apiKey: 'sk-test', timeout })),
          isWholeTimeout(value),
          InvalidProviderOptionsError,
          value,
        );
        expectRule(
          thrownBy(() => createAnthropic({ apiKey: 'sk-ant-test', timeout })),
          isWholeTimeout(value),
          InvalidProviderOptionsError,
          value,
        );
        // retry waits and back-off caps: whole ms from 0, never Infinity (a wait is never "none")
        for (const key of ['initialDelayMs', 'maxDelayMs', 'maxRetryAfterMs'] as const) {
          expectRule(
            thrownBy(() => checkRetryOptions({ [key]: value })),
            isWholeWait(value),
            InvalidProviderOptionsError,
            value,
          );
          expectRule(
            thrownBy(() => createOpenAI({ apiKey: 'sk-test', retry: { [key]: timeout } })),
            isWholeWait(value),
            InvalidProviderOptionsError,
            value,
          );
        }
        // @org/mcp
        expectRule(
          thrownBy(() => createMcpServer(tools, { timeoutMs: timeout })),
          isTimeout(value),
          InvalidMcpOptionError,
          value,
        );
        // the scripted model's latency: a wait from 0
        expectRule(
          thrownBy(() =>
            createScriptedModel({
              script: [{ text: 'done' }],
              latency: { timeToFirstTokenMs: timeout, perInputTokenMs: 0, perOutputTokenMs: 0 },
            }),
          ),
          isWait(value),
          InvalidScriptError,
          value,
        );
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('property: executePlan refuses stepTimeoutMs / timeoutMs no timer can wait; never times a step out at once', async () => {
    await fc.assert(
      fc.asyncProperty(anyNumber, fc.boolean(), async (value, perStep) => {
        const options = perStep ? { stepTimeoutMs: value } : { timeoutMs: value };
        const error = await rejectionOf(() => executePlan(plan, { tools, ...options }));
        expectRule(error, isTimeout(value), PlanOptionsError, value);
        if (error === undefined && value >= 10) {
          // A deadline of 10 ms or more (Infinity, 2^31 - 1 included) lets an instant step finish.
          const result = await executePlan(plan, { tools, ...options });
          expect(result.steps[0]?.status).toBe('success');
        }
      }),
      { numRuns: Math.max(1, Math.floor(NUM_RUNS / 4)) },
    );
  });

  it('a step of 30 ms with stepTimeoutMs Infinity or 2^31 - 1 succeeds; 2^31 is refused (it used to time out at once)', async () => {
    const slow = defineTool({
      name: 'slow',
      description: 'Takes 30 ms.',
      input: { type: 'object', properties: {} },
      execute: () => new Promise((resolve) => setTimeout(() => resolve('done'), 30)),
    });
    const slowTools = new ToolRegistry([slow]);
    const slowPlan = { steps: [{ id: 'a', tool: 'slow', arguments: {} }] };
    for (const stepTimeoutMs of [Number.POSITIVE_INFINITY, MAX_TIMER_DELAY_MS]) {
      const result = await executePlan(slowPlan, {
        tools: slowTools,
        stepTimeoutMs,
        timeoutMs: stepTimeoutMs,
      });
      expect(result.steps[0]?.status).toBe('success');
    }
    const error = await rejectionOf(() =>
      executePlan(slowPlan, { tools: slowTools, stepTimeoutMs: 2 ** 31 }),
    );
    expect(PlanOptionsError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/at most 2147483647/);
  });

  it('property: abortableSleep rejects a delay no timer can wait with a RangeError, at once', async () => {
    await fc.assert(
      fc.asyncProperty(anyNumber, async (value) => {
        const controller = new AbortController();
        const sleeping = abortableSleep(value, controller.signal);
        controller.abort(new Error('stopped'));
        const error = await rejectionOf(() => sleeping);
        if (isWait(value)) expect((error as Error).message).toBe('stopped');
        else expect(error).toBeInstanceOf(RangeError);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('withRetries fails fast on a server wait above what a timer can wait, even with an unchecked maxRetryAfterMs', async () => {
    const waits: number[] = [];
    const retry = resolveRetryOptions({
      maxRetries: 3,
      maxRetryAfterMs: Number.POSITIVE_INFINITY,
      maxDelayMs: Number.NaN,
      sleep: async (delay) => {
        waits.push(delay);
      },
    });
    const failure = new RateLimitError({ message: 'slow down', provider: 'test', retryAfterMs: 2 ** 31 });
    const error = await rejectionOf(() =>
      withRetries(() => Promise.reject(failure), {
        retry,
        operation: 'test',
        classify: (thrown) => ({ error: thrown as Error }),
      }),
    );
    expect(error).toBe(failure);
    expect(waits).toEqual([]);
    // A NaN back-off (options that reached the loop unchecked) fails with the error instead of spinning.
    const unavailable = new RateLimitError({ message: 'busy', provider: 'test' });
    const second = await rejectionOf(() =>
      withRetries(() => Promise.reject(unavailable), {
        retry,
        operation: 'test',
        classify: (thrown) => ({ error: thrown as Error }),
      }),
    );
    expect(second).toBe(unavailable);
    expect(waits).toEqual([]);
  });

  it('connectMcp refuses timeoutMs / requestTimeoutMs of NaN, 0, -1 and 2^31 before it connects', async () => {
    for (const value of [Number.NaN, 0, -1, 2 ** 31]) {
      for (const option of ['timeoutMs', 'requestTimeoutMs'] as const) {
        const error = await rejectionOf(() =>
          connectMcp({ command: 'never-started-by-this-test', [option]: value }),
        );
        expect(InvalidMcpOptionError.isInstance(error), `${option}: ${value}`).toBe(true);
      }
    }
  });
});

describe('issue 18, class 9: a limit given as NaN, negative or a fraction is refused, never "no limit"', () => {
  it('property: plan, argument and output-budget limits accept whole numbers only, refusing the rest typed', () => {
    fc.assert(
      fc.property(
        fc.oneof(anyNumber, notANumber),
        fc.constantFrom(
          'maxSteps',
          'maxArgumentsBytes',
          'maxPlanBytes',
          'maxDepth',
          'maxReferencePathSegments',
          'maxReferencedOutputBytes',
        ),
        fc.constantFrom('maxBytes', 'maxDepth'),
        (value, planLimit, argumentLimit) => {
          const limits = { [planLimit]: value };
          expectRule(
            thrownBy(() => parsePlan(plan, { limits })),
            isLimit(value),
            PlanOptionsError,
            value,
          );
          expectRule(
            thrownBy(() => validatePlan(plan, { tools, limits })),
            isLimit(value),
            PlanOptionsError,
            value,
          );
          expectRule(
            thrownBy(() => createToolPlanTool({ tools, limits })),
            isLimit(value),
            PlanOptionsError,
            value,
          );
          expectRule(
            thrownBy(() => parseToolArguments('{}', { limits: { [argumentLimit]: value } })),
            isLimit(value),
            InvalidToolOptionError,
            value,
          );
          expectRule(
            thrownBy(() => formatPlanResult(emptyResult, { budgetBytes: value as number })),
            isBudget(value),
            PlanOptionsError,
            value,
          );
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });

  it('property: executePlan rejects a bad limit with PlanOptionsError before anything runs', async () => {
    await fc.assert(
      fc.asyncProperty(anyNumber, async (value) => {
        let ran = false;
        const watched = new ToolRegistry([
          defineTool({
            ...echoDefinition,
            execute: () => {
              ran = true;
              return 'ok';
            },
          }),
        ]);
        const error = await rejectionOf(() =>
          executePlan(plan, { tools: watched, limits: { maxSteps: value } }),
        );
        expectRule(error, isLimit(value), PlanOptionsError, value);
        expect(ran).toBe(isLimit(value));
      }),
      { numRuns: Math.max(1, Math.floor(NUM_RUNS / 4)) },
    );
  });

  it('connectMcp refuses MCP limits of NaN, -1, 0.5 and "10" before it connects', async () => {
    for (const value of [Number.NaN, -1, 0.5, '10']) {
      const error = await rejectionOf(() =>
        connectMcp({ command: 'never-started-by-this-test', limits: { maxTools: value as number } }),
      );
      expect(InvalidMcpOptionError.isInstance(error), String(value)).toBe(true);
    }
  });
});

const echoDefinition = {
  name: 'echo',
  description: 'Echoes.',
  input: { type: 'object', properties: { text: { type: 'string' } } },
  execute: (args: Record<string, unknown>) => args.text ?? 'ok',
} as const;

const emptyResult = {
  status: 'success',
  aborted: false,
  steps: [],
  outputStepIds: [],
  counts: { success: 0, error: 0, skipped: 0, blocked: 0, timeout: 0, aborted: 0 },
  startedAt: 0,
  finishedAt: 0,
  durationMs: 0,
} as const;
