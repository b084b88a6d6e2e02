import { describe, expect, it } from 'vitest';
import { DEFAULT_PLAN_LIMITS, type PlanProblem, PlanValidationError, parsePlan } from './index.js';

function problemsOf(input: unknown, limits?: Parameters<typeof parsePlan>[1]): PlanProblem[] {
  const parsed = parsePlan(input, limits);
  if (parsed.ok) throw new Error('expected the plan to be rejected');
  expect(PlanValidationError.isInstance(parsed.error)).toBe(true);
  expect(parsed.error.code).toBe('invalid_plan');
  return [...parsed.error.problems];
}

describe('parsePlan: format', () => {
  it('accepts arguments as a JSON string (as models emit them) or as an object, with the same result', () => {
    const asString = parsePlan({ steps: [{ id: 'w', tool: 'get_weather', arguments: '{"city": "Paris"}' }] });
    const asObject = parsePlan({ steps: [{ id: 'w', tool: 'get_weather', arguments: { city: 'Paris' } }] });
    expect(asString).toEqual({
      ok: true,
      plan: { steps: [{ id: 'w', tool: 'get_weather', arguments: { city: 'Paris' } }] },
    });
    expect(asObject).toEqual(asString);
  });

  it('accepts the whole plan as JSON text and keeps output_steps', () => {
    const parsed = parsePlan(
      '{"steps":[{"id":"a","tool":"search","arguments":"{\\"query\\":\\"x\\"}"},{"id":"b","tool":"echo","arguments":{"value":"$ref:a"}}],"output_steps":["b"]}',
    );
    expect(parsed.ok && parsed.plan.output_steps).toEqual(['b']);
    expect(parsed.ok && parsed.plan.steps.map((step) => step.arguments)).toEqual([
      { query: 'x' },
      { value: '$ref:a' },
    ]);
  });

  it('treats missing or empty-string arguments as no arguments', () => {
    const parsed = parsePlan({
      steps: [
        { id: 'a', tool: 'json_text' },
        { id: 'b', tool: 'json_text', arguments: '' },
      ],
    });
    expect(parsed.ok && parsed.plan.steps.map((step) => step.arguments)).toEqual([{}, {}]);
  });

  it('keeps "__proto__" and "constructor" keys in arguments as plain data, without touching prototypes', () => {
    const parsed = parsePlan({
      steps: [
        {
          id: 'a',
          tool: 'echo',
          arguments: '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"x": 1}}}',
        },
      ],
    });
    expect(parsed.ok).toBe(true);
    const args = parsed.ok ? parsed.plan.steps[0]!.arguments : {};
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(Object.hasOwn(args, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('parsePlan: malformed plans, every problem at once', () => {
  it('rejects a plan that is not an object, or has no steps array', () => {
    expect(problemsOf('not json')[0]).toMatchObject({ code: 'malformed_plan', path: '' });
    expect(problemsOf([1, 2])[0]).toMatchObject({ code: 'malformed_plan', path: '' });
    expect(problemsOf({ step: [] })[0]).toMatchObject({ code: 'malformed_plan', path: 'steps' });
    expect(problemsOf({ steps: [] })[0]).toMatchObject({ code: 'malformed_plan', path: 'steps' });
  });

  it('reports every malformed step, unknown fields with a did-you-mean, and bad output_steps together', () => {
    const problems = problemsOf({
      steps: [
        { id: 'a', tool: 'search', argument: { query: 'x' } },
        'not a step',
        { id: 7, tool: 'search', arguments: {} },
        { id: 'b', arguments: {} },
        { id: 'c d', tool: 'search', arguments: {} },
        { id: 'e', tool: 'search', arguments: '{"query": "x",' },
        { id: 'f', tool: 'search', arguments: '[1, 2]' },
        { id: 'g', tool: 'search', arguments: 42 },
      ],
      output_steps: 'a',
      output_step: [],
    });
    expect(problems.map((problem) => [problem.code, problem.path])).toEqual([
      ['malformed_plan', 'output_step'],
      ['malformed_plan', 'output_steps'],
      ['malformed_plan', 'steps[0].argument'],
      ['malformed_plan', 'steps[1]'],
      ['malformed_plan', 'steps[2].id'],
      ['malformed_plan', 'steps[3].tool'],
      ['invalid_step_id', 'steps[4].id'],
      ['invalid_arguments_json', 'steps[5].arguments'],
      ['invalid_arguments_json', 'steps[6].arguments'],
      ['malformed_plan', 'steps[7].arguments'],
    ]);
    expect(problems[0]!.message).toContain("did you mean 'output_steps'?");
    expect(problems[2]!.message).toContain("did you mean 'arguments'?");
    expect(problems[7]).toMatchObject({ stepId: 'e' });
  });

  it('lists every problem in the error message', () => {
    const parsed = parsePlan({ steps: [{ id: 'a' }, { tool: 'x' }] });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.error.message).toMatch(/^The plan is invalid \(2 problems\); no step was run\./);
      expect(parsed.error.message).toContain(`Step 'a' needs a "tool"`);
      expect(parsed.error.message).toContain('Step 1 needs a string "id"');
    }
  });
});

describe('parsePlan: limits, checked before any walk', () => {
  it('rejects 10^5 steps from the length alone, without reading a single step', () => {
    const steps = new Proxy(new Array(100_000), {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) throw new Error(`step ${key} was read`);
        return Reflect.get(target, key, receiver);
      },
    });
    const problems = problemsOf({ steps });
    expect(problems).toEqual([
      expect.objectContaining({ code: 'limit_exceeded', limit: 'maxSteps', maximum: 500, actual: 100_000 }),
    ]);
  });

  it('rejects a 50 MB argument string, as text and as an object value', () => {
    const huge = 'x'.repeat(50 * 1024 * 1024);
    const [asText] = problemsOf({ steps: [{ id: 'a', tool: 'echo', arguments: `{"value":"${huge}"}` }] });
    expect(asText).toMatchObject({ code: 'limit_exceeded', limit: 'maxArgumentsBytes', stepId: 'a' });
    const [asValue] = problemsOf({ steps: [{ id: 'a', tool: 'echo', arguments: { value: huge } }] });
    expect(asValue).toMatchObject({
      code: 'limit_exceeded',
      limit: 'maxArgumentsBytes',
      maximum: 1024 * 1024,
    });
  });

  it('rejects 10^5-deep nesting, as text and as a value, before parsing or walking it', () => {
    const depth = 100_000;
    const text = `{"value":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const [fromText] = problemsOf({ steps: [{ id: 'a', tool: 'echo', arguments: text }] });
    expect(fromText).toMatchObject({ code: 'limit_exceeded', limit: 'maxDepth', maximum: 64 });
    let nested: unknown = [];
    for (let level = 0; level < depth; level++) nested = [nested];
    const [fromValue] = problemsOf({ steps: [{ id: 'a', tool: 'echo', arguments: { value: nested } }] });
    expect(fromValue).toMatchObject({ code: 'limit_exceeded', limit: 'maxDepth' });
    const [planText] = problemsOf(`{"steps":${'['.repeat(depth)}`);
    expect(planText).toMatchObject({ code: 'limit_exceeded', limit: 'maxDepth' });
  });

  it('rejects a plan text over maxPlanBytes, and honours configured limits', () => {
    const [tooBig] = problemsOf('{"steps": []}', { limits: { maxPlanBytes: 5 } });
    expect(tooBig).toMatchObject({ code: 'limit_exceeded', limit: 'maxPlanBytes', maximum: 5 });
    const steps = Array.from({ length: 3 }, (_, index) => ({ id: `s${index}`, tool: 'echo', arguments: {} }));
    expect(problemsOf({ steps }, { limits: { maxSteps: 2 } })[0]).toMatchObject({
      limit: 'maxSteps',
      actual: 3,
    });
    expect(parsePlan({ steps }, { limits: { maxSteps: 3 } }).ok).toBe(true);
    expect(DEFAULT_PLAN_LIMITS).toEqual({
      maxSteps: 500,
      maxArgumentsBytes: 1024 * 1024,
      maxPlanBytes: 4 * 1024 * 1024,
      maxDepth: 64,
      maxReferencedOutputBytes: 8 * 1024 * 1024,
      maxReferencePathSegments: 32,
    });
  });
});
