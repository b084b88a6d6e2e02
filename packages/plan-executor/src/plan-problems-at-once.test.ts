import type { ToolRegistry } from '@org/tools';
import { describe, expect, it } from 'vitest';
import { createTestTools } from './__fixtures__/test-tools.js';
import { type PlanProblem, validatePlan } from './index.js';

const problemsOf = (input: unknown, tools: ToolRegistry): PlanProblem[] => {
  const checked = validatePlan(input, { tools });
  return checked.ok ? [] : [...checked.error.problems];
};

describe('every problem at once, across phases', () => {
  it('checks tools, references and cycles even when a step has a shape problem', () => {
    const problems = problemsOf(
      {
        steps: [
          { id: 'a', tool: 'search', argument: { query: '$ref:nowhere' } },
          { id: 'b', tool: 'search', arguments: '{"query": ' },
          { id: 'c', tool: 'serch', arguments: { query: '$ref:d' } },
          { id: 'd', tool: 'echo', arguments: { value: '$ref:c' } },
          { tool: 'echo', arguments: { value: '$ref:b' } },
        ],
        output_steps: ['zz'],
      },
      createTestTools(),
    );
    expect(problems.map((problem) => [problem.code, problem.path])).toEqual([
      ['malformed_plan', 'steps[0].argument'],
      ['invalid_arguments_json', 'steps[1].arguments'],
      ['malformed_plan', 'steps[4].id'],
      ['unknown_tool', 'steps[2].tool'],
      ['unknown_step', 'steps[0].arguments.query'],
      ['cycle', 'steps[2]'],
      ['unknown_step', 'output_steps[0]'],
    ]);
    expect(problems[0]?.message).toContain("did you mean 'arguments'?");
    expect(problems[3]?.message).toContain("did you mean 'search'?");
  });
});
