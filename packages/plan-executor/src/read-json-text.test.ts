import { parseToolArguments, type ToolRegistry } from '@org/tools';
import { describe, expect, it } from 'vitest';
import { createTestTools } from './__fixtures__/test-tools.js';
import { type PlanProblem, parsePlan, validatePlan } from './index.js';

const problemsOf = (input: unknown, tools: ToolRegistry): PlanProblem[] => {
  const checked = validatePlan(input, { tools });
  return checked.ok ? [] : [...checked.error.problems];
};

describe('one strict reader with one repair policy for argument text', () => {
  const stepWith = (text: string) => ({ steps: [{ id: 's', tool: 'search', arguments: text }] });

  it('repairs a code fence and trailing commas as a direct call does, and records the repairs', () => {
    const text = '```json\n{"query": "x", "limit": 2,}\n```';
    const direct = parseToolArguments(text, { finishReason: 'stop' });
    const parsed = parsePlan(stepWith(text));
    expect(parsed.ok && parsed.plan.steps[0]).toEqual({
      id: 's',
      tool: 'search',
      arguments: { query: 'x', limit: 2 },
      argumentRepairs: direct.ok ? direct.repairs : [],
    });
    expect(validatePlan(stepWith(text), { tools: createTestTools() }).ok).toBe(true);
  });

  it('refuses duplicate keys and integers beyond 2^53, in step arguments and in a whole plan given as text', () => {
    const [duplicate] = problemsOf(stepWith('{"query": "a", "query": "b"}'), createTestTools());
    expect(duplicate).toMatchObject({ code: 'invalid_arguments_json', stepId: 's' });
    expect(duplicate?.message).toContain('appears twice with different values');
    const [big] = problemsOf(stepWith('{"query": "a", "limit": 9007199254740993}'), createTestTools());
    expect(big?.message).toContain('more digits than can be represented exactly');
    const [planDuplicate] = problemsOf(
      '{"steps": [{"id": "s", "tool": "search", "arguments": {}}], "steps": []}',
      createTestTools(),
    );
    expect(planDuplicate).toMatchObject({ code: 'malformed_plan', path: '' });
    expect(planDuplicate?.message).toContain('appears twice with different values');
    const repaired = parsePlan(
      '```json\n{"steps": [{"id": "s", "tool": "search", "arguments": {"query": "x",},},],}\n```',
    );
    expect(repaired.ok && repaired.plan.steps[0]?.arguments).toEqual({ query: 'x' });
  });

  it('tells the model to quote an unquoted $ref', () => {
    const [problem] = problemsOf(stepWith('{"query": $ref:s0.items.0.url}'), createTestTools());
    expect(problem?.code).toBe('invalid_arguments_json');
    expect(problem?.message).toContain('A $ref is a JSON string: write it in double quotes');
    const [plain] = problemsOf(stepWith('{"query": "$ref:s0", oops}'), createTestTools());
    expect(plain?.message).not.toContain('A $ref is a JSON string');
  });
});
