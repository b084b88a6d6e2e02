import { describe, expect, it } from 'vitest';
import { createTestTools } from './__fixtures__/test-tools.js';
import { executePlan, formatPlanResult, type PlanStepInput, type PlanStepResult } from './index.js';

const tools = createTestTools();

async function run(steps: PlanStepInput[]): Promise<Record<string, PlanStepResult>> {
  const result = await executePlan({ steps }, { tools });
  return Object.fromEntries(result.steps.map((step) => [step.id, step]));
}

describe('$ref resolution', () => {
  it('inserts a whole object output as structured JSON, not as a quoted string', async () => {
    const steps = await run([
      { id: 'w', tool: 'get_weather', arguments: { city: 'Paris' } },
      { id: 'e', tool: 'echo', arguments: { value: '$ref:w' } },
    ]);
    expect(steps.e!.output).toEqual({ city: 'Paris', temperature: 21, conditions: 'sunny' });
  });

  it('follows fields, nested fields and array indexes', async () => {
    const steps = await run([
      { id: 's', tool: 'search', arguments: { query: 'cats' } },
      { id: 'id', tool: 'echo', arguments: { value: '$ref:s.items.1.id' } },
      { id: 'items', tool: 'echo', arguments: { value: '$ref:s.items' } },
      { id: 'count', tool: 'echo', arguments: { value: '$ref:s.items.length' } },
      { id: 'total', tool: 'echo', arguments: { value: { deep: ['$ref:s.total'] } } },
    ]);
    expect(steps.id!.output).toBe('r2');
    expect(steps.items!.output).toEqual([
      { id: 'r1', title: 'About cats', url: 'https://example.com/1' },
      { id: 'r2', title: 'Second', url: 'https://example.com/2' },
    ]);
    expect(steps.count!.output).toBe(2);
    expect(steps.total!.output).toEqual({ deep: [2] });
  });

  it('fills references at every depth, copying only the containers on their paths and never the plan itself', async () => {
    const value = {
      top: '$ref:w.city',
      plain: { untouched: [1, 2] },
      a: { b: ['x', '$ref:w.temperature', { c: 'In $ref:w.city' }], d: { e: '$ref:w.conditions' } },
      list: [['$ref:w.temperature'], 'y'],
    };
    const written = structuredClone(value);
    const plan = {
      steps: [
        { id: 'w', tool: 'get_weather', arguments: { city: 'Paris' } },
        { id: 'e', tool: 'echo', arguments: { value } },
      ],
    };
    const result = await executePlan(plan, { tools });
    expect(result.steps[1]!.output).toEqual({
      top: 'Paris',
      plain: { untouched: [1, 2] },
      a: { b: ['x', 21, { c: 'In Paris' }], d: { e: 'sunny' } },
      list: [[21], 'y'],
    });
    expect(plan.steps[1]!.arguments.value).toEqual(written);
  });

  it('inserts numbers and booleans as JSON primitives, and text as a string', async () => {
    const steps = await run([
      { id: 'w', tool: 'get_weather', arguments: { city: 'Oslo' } },
      { id: 'n', tool: 'add', arguments: { a: '$ref:w.temperature', b: 1 } },
      { id: 't', tool: 'echo', arguments: { value: '$ref:w.conditions' } },
    ]);
    expect(steps.n!.output).toBe(22);
    expect(steps.t!.output).toBe('sunny');
  });

  it('interpolates references inside longer strings as text, objects as JSON text', async () => {
    const steps = await run([
      { id: 'w', tool: 'get_weather', arguments: { city: 'Rome' } },
      { id: 's', tool: 'search', arguments: { query: 'rome' } },
      {
        id: 'e',
        tool: 'echo',
        arguments: {
          value: 'Weather in $ref:w.city: $ref:w.temperature C, $ref:w.conditions. First: $ref:s.items.0',
        },
      },
    ]);
    expect(steps.e!.output).toBe(
      'Weather in Rome: 21 C, sunny. First: {"id":"r1","title":"About rome","url":"https://example.com/1"}',
    );
  });

  it('parses a string output holding JSON before applying a field path; the whole string stays a string', async () => {
    const steps = await run([
      { id: 'j', tool: 'json_text', arguments: {} },
      { id: 'name', tool: 'echo', arguments: { value: '$ref:j.user.name' } },
      { id: 'tag', tool: 'echo', arguments: { value: '$ref:j.user.tags.1' } },
      { id: 'whole', tool: 'echo', arguments: { value: '$ref:j' } },
    ]);
    expect(steps.name!.output).toBe('Ada');
    expect(steps.tag!.output).toBe('y');
    expect(steps.whole!.output).toBe('{"user":{"name":"Ada","tags":["x","y"]}}');
  });

  it('inserts null for a missing field or index, records it on the step, and tells the model', async () => {
    const result = await executePlan(
      {
        steps: [
          { id: 's', tool: 'search', arguments: { query: 'x' } },
          { id: 'e', tool: 'echo', arguments: { value: { a: '$ref:s.items.9.id', b: 'n=$ref:s.nothing' } } },
        ],
      },
      { tools },
    );
    const echo = result.steps[1]!;
    expect(echo.status).toBe('success');
    expect(echo.output).toEqual({ a: null, b: 'n=null' });
    expect(echo.missingReferences).toEqual([
      { reference: '$ref:s.items.9.id', argumentPath: 'value.a' },
      { reference: '$ref:s.nothing', argumentPath: 'value.b' },
    ]);
    expect(JSON.parse(formatPlanResult(result)).notes).toEqual([
      "Step 'e': $ref:s.items.9.id (argument 'value.a') did not exist; null was used.",
      "Step 'e': $ref:s.nothing (argument 'value.b') did not exist; null was used.",
    ]);
  });

  it('looks up own properties only: an inherited name on an output is a missing field', async () => {
    const steps = await run([
      { id: 's', tool: 'search', arguments: { query: 'x' } },
      { id: 'e', tool: 'echo', arguments: { value: '$ref:s.hasOwnPropertyX' } },
    ]);
    expect(steps.e!.output).toBeNull();
  });

  it('never mutates the plan or its outputs, and never touches Object.prototype', async () => {
    const plan = {
      steps: [
        { id: 'w', tool: 'get_weather', arguments: { city: 'Paris' } },
        { id: 'e', tool: 'echo', arguments: { value: { city: '$ref:w.city', __proto__x: 1 } } },
        {
          id: 'p',
          tool: 'echo',
          arguments: JSON.parse('{"value": {"__proto__": {"polluted": "$ref:w.city"}}}'),
        },
      ],
    };
    const before = JSON.stringify(plan);
    const result = await executePlan(plan, { tools });
    expect(JSON.stringify(plan)).toBe(before);
    expect(result.status).toBe('success');
    const polluted = result.steps[2]!.output as Record<string, unknown>;
    expect(Object.hasOwn(polluted, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
