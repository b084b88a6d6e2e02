import { defineTool, ToolRegistry } from '@org/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTestTools } from './__fixtures__/test-tools.js';
import {
  executePlan,
  type PlanProblem,
  type PlanStepInput,
  PlanValidationError,
  validatePlan,
} from './index.js';

const tools = createTestTools();

function problemsOf(steps: PlanStepInput[], extra: { output_steps?: string[] } = {}): PlanProblem[] {
  const checked = validatePlan({ steps, ...extra }, { tools });
  if (checked.ok) throw new Error('expected the plan to be rejected');
  return [...checked.error.problems];
}

describe('validatePlan', () => {
  it('accepts a valid plan, giving the output steps and an order that respects dependencies', () => {
    const checked = validatePlan(
      {
        steps: [
          { id: 'msg', tool: 'echo', arguments: { value: 'It is $ref:w.temperature degrees' } },
          { id: 'w', tool: 'get_weather', arguments: { city: 'Paris' } },
        ],
      },
      { tools },
    );
    expect(checked.ok).toBe(true);
    if (checked.ok) {
      expect(checked.plan.outputStepIds).toEqual(['msg', 'w']);
      expect(checked.plan.executionOrder).toEqual(['w', 'msg']);
      expect(validatePlan(checked.plan, { tools })).toEqual(checked);
    }
  });

  it('reports duplicate ids with every position', () => {
    const problems = problemsOf([
      { id: 'a', tool: 'json_text', arguments: {} },
      { id: 'a', tool: 'json_text', arguments: {} },
      { id: 'a', tool: 'json_text', arguments: {} },
    ]);
    expect(problems).toEqual([
      expect.objectContaining({
        code: 'duplicate_step_id',
        stepId: 'a',
        indexes: [0, 1, 2],
        path: 'steps[1].id',
      }),
    ]);
  });

  it('reports unknown tools with a did-you-mean and the available tools, including prototype names', () => {
    const problems = problemsOf([
      { id: 'a', tool: 'get_wether', arguments: { city: 'Paris' } },
      { id: 'b', tool: 'constructor', arguments: {} },
      { id: 'c', tool: '__proto__', arguments: {} },
      { id: 'd', tool: 'toString', arguments: {} },
    ]);
    expect(problems.map((problem) => problem.code)).toEqual([
      'unknown_tool',
      'unknown_tool',
      'unknown_tool',
      'unknown_tool',
    ]);
    expect(problems[0]).toMatchObject({ toolName: 'get_wether', suggestion: 'get_weather' });
    expect(problems[0]!.message).toContain("did you mean 'get_weather'?");
    expect(problems[0]!.message).toContain('Available tools: get_weather, search');
  });

  it('rejects a step that calls execute_tool_plan', () => {
    const problems = problemsOf([{ id: 'inner', tool: 'execute_tool_plan', arguments: { steps: [] } }]);
    expect(problems).toEqual([expect.objectContaining({ code: 'nested_plan', stepId: 'inner' })]);
  });

  it('reports references to unknown steps, in arguments and in output_steps, with a did-you-mean', () => {
    const problems = problemsOf(
      [
        { id: 'weather', tool: 'get_weather', arguments: { city: 'Paris' } },
        { id: 'b', tool: 'echo', arguments: { value: { nested: ['$ref:wether.temperature'] } } },
      ],
      { output_steps: ['bb'] },
    );
    expect(problems).toEqual([
      expect.objectContaining({
        code: 'unknown_step',
        stepId: 'b',
        missingStepId: 'wether',
        suggestion: 'weather',
        path: 'steps[1].arguments.value.nested[0]',
      }),
      expect.objectContaining({
        code: 'unknown_step',
        missingStepId: 'bb',
        suggestion: 'b',
        path: 'output_steps[0]',
      }),
    ]);
  });

  it('reports self-references', () => {
    const problems = problemsOf([{ id: 'a', tool: 'echo', arguments: { value: '$ref:a.x' } }]);
    expect(problems).toEqual([
      expect.objectContaining({ code: 'self_reference', stepId: 'a', reference: '$ref:a.x' }),
    ]);
  });

  it('names each cycle, and allows forward references that are not cycles', () => {
    const problems = problemsOf([
      { id: 'a', tool: 'echo', arguments: { value: '$ref:c' } },
      { id: 'b', tool: 'echo', arguments: { value: '$ref:a' } },
      { id: 'c', tool: 'echo', arguments: { value: '$ref:b' } },
      { id: 'd', tool: 'echo', arguments: { value: '$ref:a' } },
      { id: 'x', tool: 'echo', arguments: { value: '$ref:y' } },
      { id: 'y', tool: 'echo', arguments: { value: '$ref:x' } },
    ]);
    expect(problems.map((problem) => problem.code === 'cycle' && problem.cycle)).toEqual([
      ['a', 'c', 'b', 'a'],
      ['x', 'y', 'x'],
    ]);
    expect(problems[0]!.message).toBe(
      'Steps a → c → b → a form a cycle (each needs the output of the next); no order can run them.',
    );
    expect(
      validatePlan(
        {
          steps: [
            { id: 'late', tool: 'echo', arguments: { value: '$ref:early' } },
            { id: 'early', tool: 'json_text', arguments: {} },
          ],
        },
        { tools },
      ).ok,
    ).toBe(true);
  });

  it('rejects prototype names in reference paths as invalid references, never looking them up', () => {
    const problems = problemsOf([
      { id: 's', tool: 'json_text', arguments: {} },
      { id: 'a', tool: 'echo', arguments: { value: '$ref:s.__proto__' } },
      { id: 'b', tool: 'echo', arguments: { value: '$ref:s.constructor.constructor' } },
      { id: 'c', tool: 'echo', arguments: { value: 'text $ref:s.toString' } },
      { id: 'd', tool: 'echo', arguments: { value: '$ref:s.x.prototype' } },
      { id: 'e', tool: 'echo', arguments: { value: 'costs $ref: nothing' } },
    ]);
    expect(problems.map((problem) => problem.code === 'invalid_reference' && problem.segment)).toEqual([
      '__proto__',
      'constructor',
      'toString',
      'prototype',
      undefined,
    ]);
  });

  it('limits $ref path segments', () => {
    const path = Array.from({ length: 33 }, (_, index) => `f${index}`).join('.');
    const problems = problemsOf([
      { id: 's', tool: 'json_text', arguments: {} },
      { id: 'a', tool: 'echo', arguments: { value: `$ref:s.${path}` } },
    ]);
    expect(problems).toEqual([
      expect.objectContaining({
        code: 'limit_exceeded',
        limit: 'maxReferencePathSegments',
        maximum: 32,
        actual: 33,
      }),
    ]);
  });

  it('checks references against a declared output schema, with a did-you-mean', () => {
    const problems = problemsOf([
      { id: 'w', tool: 'get_weather', arguments: { city: 'Paris' } },
      { id: 'a', tool: 'echo', arguments: { value: '$ref:w.temprature' } },
      { id: 'b', tool: 'echo', arguments: { value: 'ok: $ref:w.temperature, $ref:w.city' } },
      { id: 'c', tool: 'echo', arguments: { value: '$ref:w.conditions.length' } },
    ]);
    expect(problems).toEqual([
      expect.objectContaining({
        code: 'unknown_output_field',
        stepId: 'a',
        toolName: 'get_weather',
        field: 'temprature',
        suggestion: 'temperature',
        available: ['city', 'temperature', 'conditions'],
      }),
    ]);
  });

  it('follows nested objects, arrays and unions in output schemas', () => {
    const nested = defineTool({
      name: 'nested',
      description: 'Nested output.',
      input: z.object({}),
      output: z.object({
        items: z.array(z.strictObject({ id: z.string() })),
        either: z.union([z.strictObject({ left: z.number() }), z.strictObject({ right: z.number() })]),
        free: z.record(z.string(), z.unknown()),
      }),
      execute: () => ({ items: [], either: { left: 1 }, free: {} }),
    });
    const registry = new ToolRegistry([nested, ...tools.list()]);
    const check = (value: string): string[] => {
      const checked = validatePlan(
        {
          steps: [
            { id: 'n', tool: 'nested', arguments: {} },
            { id: 'e', tool: 'echo', arguments: { value } },
          ],
        },
        { tools: registry },
      );
      return checked.ok ? [] : checked.error.problems.map((problem) => problem.code);
    };
    expect(check('$ref:n.items.0.id')).toEqual([]);
    expect(check('$ref:n.items.0.idd')).toEqual(['unknown_output_field']);
    expect(check('$ref:n.either.right')).toEqual([]);
    expect(check('$ref:n.either.middle')).toEqual(['unknown_output_field']);
    expect(check('$ref:n.free.anything.at.all')).toEqual([]);
  });

  it('agrees with the runtime on open objects, and rejects a path into a number, boolean or null', async () => {
    // A plain z.object lets undeclared fields through the output check and the reference reads them, so validation
    // must not refuse them; z.strictObject refuses them at run time, so validation refuses them too.
    const open = defineTool({
      name: 'open',
      description: 'Declares less than it returns.',
      input: z.object({}),
      output: z.object({ declared: z.number(), flag: z.boolean(), text: z.string(), nothing: z.null() }),
      execute: () => ({ declared: 1, flag: true, text: '{"inner": 2}', nothing: null, extra: 'kept' }),
    });
    const registry = new ToolRegistry([open, ...tools.list()]);
    const plan = (value: string) => ({
      steps: [
        { id: 'o', tool: 'open', arguments: {} },
        { id: 'e', tool: 'echo', arguments: { value } },
      ],
    });
    const problems = (value: string) => {
      const checked = validatePlan(plan(value), { tools: registry });
      return checked.ok ? [] : checked.error.problems;
    };
    expect(problems('$ref:o.extra')).toEqual([]);
    const result = await executePlan(plan('$ref:o.extra'), { tools: registry });
    expect(result.steps[1]?.output).toBe('kept');
    // A string may hold JSON, which a reference reads: not a problem.
    expect(problems('$ref:o.text.inner')).toEqual([]);
    for (const [path, type] of [
      ['declared.value', 'a number'],
      ['flag.x', 'a boolean'],
      ['nothing.x', 'null'],
    ] as const) {
      const [problem] = problems(`$ref:o.${path}`);
      expect(problem).toMatchObject({ code: 'unknown_output_field', toolName: 'open', stepId: 'e' });
      expect(problem?.message).toContain(`is ${type}, which has no field`);
    }
  });

  it('reports every kind of problem in one error, and executePlan rejects with it before running anything', async () => {
    let ran = 0;
    const counting = new ToolRegistry([
      ...tools.list(),
      defineTool({
        name: 'count',
        description: 'Counts calls.',
        input: z.object({}),
        execute: () => ++ran,
      }),
    ]);
    const plan = {
      steps: [
        { id: 'ok', tool: 'count', arguments: {} },
        { id: 'dup', tool: 'count', arguments: {} },
        { id: 'dup', tool: 'count', arguments: {} },
        { id: 'u', tool: 'nope', arguments: {} },
        { id: 'n', tool: 'execute_tool_plan', arguments: {} },
        { id: 'r', tool: 'echo', arguments: { value: '$ref:missing' } },
        { id: 's', tool: 'echo', arguments: { value: '$ref:s' } },
        { id: 'p', tool: 'echo', arguments: { value: '$ref:ok.__proto__' } },
        { id: 'w', tool: 'get_weather', arguments: { city: 'x' } },
        { id: 'f', tool: 'echo', arguments: { value: '$ref:w.wind' } },
        { id: 'c1', tool: 'echo', arguments: { value: '$ref:c2' } },
        { id: 'c2', tool: 'echo', arguments: { value: '$ref:c1' } },
      ],
    };
    const error = await executePlan(plan, { tools: counting }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(PlanValidationError.isInstance(error)).toBe(true);
    const codes = (error as PlanValidationError).problems.map((problem) => problem.code).sort();
    expect(codes).toEqual([
      'cycle',
      'duplicate_step_id',
      'invalid_reference',
      'nested_plan',
      'self_reference',
      'unknown_output_field',
      'unknown_step',
      'unknown_tool',
    ]);
    expect(ran).toBe(0);
  });
});
