import { describe, expect, it } from 'vitest';
import { createTestTools } from './__fixtures__/test-tools.js';
import { executePlan, type PlanProblem, type PlanResult, parsePlan, validatePlan } from './index.js';

const tools = createTestTools();

function problemsOf(input: unknown): PlanProblem[] {
  const checked = validatePlan(input, { tools });
  if (checked.ok) throw new Error('expected the plan to be rejected');
  return [...checked.error.problems];
}

/** A result without its timings, to compare two runs of one plan. */
function outcome(result: PlanResult): unknown {
  return {
    status: result.status,
    outputStepIds: result.outputStepIds,
    steps: result.steps.map(({ id, tool, status, output, error, arguments: args, skippedBecauseOf }) => ({
      id,
      tool,
      status,
      output,
      error,
      args,
      skippedBecauseOf,
    })),
  };
}

describe('the steps-object form: {"steps": {"<id>": {"<tool>": {<arguments>}}}}', () => {
  it('reads to the same plan as the list form, $id references rewritten to $ref:, the unused steps returned', () => {
    const parsed = parsePlan({
      steps: {
        w: { get_weather: { city: 'Paris' } },
        s: { search: '{"query": "weather"}' },
        m: { echo: { value: ['$w.temperature', 'Paris is $w.temperature C, $$5 a coffee', '$ref:s.total'] } },
      },
    });
    expect(parsed).toEqual({
      ok: true,
      plan: {
        steps: [
          { id: 'w', tool: 'get_weather', arguments: { city: 'Paris' } },
          { id: 's', tool: 'search', arguments: { query: 'weather' } },
          {
            id: 'm',
            tool: 'echo',
            arguments: {
              value: ['$ref:w.temperature', 'Paris is $ref:w.temperature C, $5 a coffee', '$ref:s.total'],
            },
          },
        ],
        output_steps: ['m'],
      },
    });
  });

  it('runs to the same results as the list form of the plan', async () => {
    const object = await executePlan(
      {
        steps: {
          w: { get_weather: { city: 'Paris' } },
          f: { fail: { message: 'down' } },
          m: { echo: { value: 'Paris: $w.temperature C' } },
          k: { echo: { value: '$f' } },
        },
        output_steps: ['m', 'w'],
      },
      { tools },
    );
    const list = await executePlan(
      {
        steps: [
          { id: 'w', tool: 'get_weather', arguments: { city: 'Paris' } },
          { id: 'f', tool: 'fail', arguments: { message: 'down' } },
          { id: 'm', tool: 'echo', arguments: { value: 'Paris: $ref:w.temperature C' } },
          { id: 'k', tool: 'echo', arguments: { value: '$ref:f' } },
        ],
        output_steps: ['m', 'w'],
      },
      { tools },
    );
    expect(outcome(object)).toEqual(outcome(list));
    expect(object.steps.find((step) => step.id === 'k')?.skippedBecauseOf).toBe('f');
  });

  it('returns, by default, the steps no step uses; the list form still returns every step', () => {
    const object = validatePlan(
      {
        steps: {
          a: { search: { query: 'x' } },
          b: { echo: { value: '$a.items' } },
          c: { add: { a: 1, b: 2 } },
        },
      },
      { tools },
    );
    expect(object.ok && object.plan.outputStepIds).toEqual(['b', 'c']);
    const list = validatePlan(
      {
        steps: [
          { id: 'a', tool: 'search', arguments: { query: 'x' } },
          { id: 'b', tool: 'echo', arguments: { value: '$ref:a.items' } },
        ],
      },
      { tools },
    );
    expect(list.ok && list.plan.outputStepIds).toEqual(['a', 'b']);
  });

  it('accepts a step written {"tool", "arguments"} under its id', () => {
    const parsed = parsePlan({ steps: { w: { tool: 'get_weather', arguments: { city: 'Rome' } } } });
    expect(parsed.ok && parsed.plan.steps).toEqual([
      { id: 'w', tool: 'get_weather', arguments: { city: 'Rome' } },
    ]);
  });

  it('refuses a step that is not one tool with its arguments, naming how to write it', () => {
    const problems = problemsOf({
      steps: {
        two: { search: { query: 'x' }, echo: { value: 1 } },
        none: {},
        text: 'search',
        'bad id': { search: { query: 'x' } },
      },
    });
    expect(problems.map((problem) => [problem.code, problem.path])).toEqual([
      ['malformed_plan', 'steps.two'],
      ['malformed_plan', 'steps.none'],
      ['malformed_plan', 'steps.text'],
      ['invalid_step_id', 'steps["bad id"]'],
    ]);
    expect(problems[0]?.message).toContain('must be {"<tool>": {<arguments>}}');
    expect(problems[0]?.message).toContain('not 2 fields (search, echo)');
  });

  it('reports a $ that names no step, and says how to write a literal $', () => {
    const problems = problemsOf({ steps: { m: { echo: { value: 'costs $5' } } } });
    expect(problems).toEqual([
      expect.objectContaining({ code: 'unknown_step', missingStepId: '5', path: 'steps.m.arguments.value' }),
    ]);
    expect(problems[0]?.message).toContain('write $$ for a literal $');
    expect(validatePlan({ steps: { m: { echo: { value: 'costs $$5' } } } }, { tools }).ok).toBe(true);
  });

  it('refuses $$ref: (a literal "$ref:" cannot be written), instead of reading it as the reference it escaped', () => {
    for (const value of ['$$ref:a', 'costs $$ref:a.total', ['ok', { deep: 'x $$ref:a' }]]) {
      const problems = problemsOf({ steps: { a: { echo: { value: 1 } }, b: { echo: { value } } } });
      expect(problems).toEqual([
        expect.objectContaining({ code: 'invalid_reference', stepId: 'b', path: 'steps.b.echo' }),
      ]);
      expect(problems[0]?.message).toContain('"$ref:" always starts a reference');
      expect(String((problems[0] as { reference?: string }).reference)).toMatch(/^\$\$ref:a/);
    }
    // "$$$ref:a" is a literal "$" and then a reference; "$$ ref" and "$$5" stay text.
    expect(
      validatePlan({ steps: { a: { echo: { value: 1 } }, b: { echo: { value: '$$$ref:a' } } } }, { tools })
        .ok,
    ).toBe(true);
    expect(validatePlan({ steps: { b: { echo: { value: 'costs $$ ref: $$5' } } } }, { tools }).ok).toBe(true);
  });

  it('checks every other rule as the list form does: unknown tools, cycles, duplicate keys, limits', () => {
    const problems = problemsOf({
      steps: {
        a: { get_wether: { city: 'Paris' } },
        b: { echo: { value: '$c' } },
        c: { echo: { value: '$b' } },
      },
    });
    expect(problems.map((problem) => problem.code)).toEqual(['unknown_tool', 'cycle']);
    expect(problems[0]).toMatchObject({ path: 'steps.a', suggestion: 'get_weather' });
    const duplicate = validatePlan(
      '{"steps": {"a": {"add": {"a": 1, "b": 2}}, "a": {"add": {"a": 3, "b": 4}}}}',
      {
        tools,
      },
    );
    expect(duplicate.ok).toBe(false);
    expect(!duplicate.ok && duplicate.error.message).toContain('appears twice with different values');
    const tooMany = validatePlan(
      {
        steps: Object.fromEntries(Array.from({ length: 4 }, (_, index) => [`s${index}`, { json_text: {} }])),
      },
      { tools, limits: { maxSteps: 3 } },
    );
    expect(!tooMany.ok && tooMany.error.problems[0]?.code).toBe('limit_exceeded');
  });

  it('keeps JavaScript object order for the plan: integer-like ids first, ascending', () => {
    const parsed = parsePlan({
      steps: { b: { add: { a: 1, b: 1 } }, 2: { add: { a: 2, b: 2 } }, 1: { add: { a: 3, b: 3 } } },
    });
    expect(parsed.ok && parsed.plan.steps.map((step) => step.id)).toEqual(['1', '2', 'b']);
  });
});
