import { describe, expect, it } from 'vitest';
import { createTestTools } from './__fixtures__/test-tools.js';
import { executePlan, formatPlanResult } from './index.js';

const tools = createTestTools();

describe('formatPlanResult', () => {
  it('returns only output_steps, but spells out every error and skip', async () => {
    const result = await executePlan(
      {
        steps: [
          { id: 'w', tool: 'get_weather', arguments: { city: 'Paris' } },
          { id: 'hidden', tool: 'search', arguments: { query: 'x' } },
          { id: 'f', tool: 'fail', arguments: { message: 'quota exceeded' } },
          { id: 'after', tool: 'echo', arguments: { value: '$ref:f' } },
          { id: 'bad', tool: 'add', arguments: { a: 'one', b: 2 } },
        ],
        output_steps: ['w', 'after'],
      },
      { tools },
    );
    const formatted = JSON.parse(formatPlanResult(result));
    expect(formatted).toMatchObject({
      status: 'partial',
      summary: '2 of 5 steps succeeded, 2 failed, 1 skipped.',
      results: { w: { city: 'Paris', temperature: 21, conditions: 'sunny' } },
      errors: {
        f: { tool: 'fail', status: 'error', message: expect.stringContaining('quota exceeded') },
        bad: { tool: 'add', status: 'error', code: 'invalid_tool_arguments' },
      },
      skipped: { after: "Skipped because dependency 'f' failed" },
    });
    expect(Object.keys(formatted.results)).toEqual(['w']);
    expect(formatted.errors.bad.details.issues[0].path).toBe('a');
  });

  it('returns every result when output_steps is omitted, and marks an aborted plan', async () => {
    const all = JSON.parse(
      formatPlanResult(
        await executePlan(
          {
            steps: [
              { id: 'a', tool: 'add', arguments: { a: 1, b: 2 } },
              { id: 'b', tool: 'json_text', arguments: {} },
            ],
          },
          { tools },
        ),
      ),
    );
    expect(all).toEqual({
      status: 'success',
      summary: '2 of 2 steps succeeded.',
      results: { a: 3, b: '{"user":{"name":"Ada","tags":["x","y"]}}' },
    });
    const controller = new AbortController();
    controller.abort(new Error('user cancelled'));
    const aborted = JSON.parse(
      formatPlanResult(
        await executePlan(
          { steps: [{ id: 'a', tool: 'json_text', arguments: {} }] },
          { tools, signal: controller.signal },
        ),
      ),
    );
    expect(aborted).toEqual({
      status: 'aborted',
      summary: '0 of 1 step succeeded, 1 aborted.',
      aborted: 'user cancelled',
      errors: {
        a: {
          tool: 'json_text',
          status: 'aborted',
          code: 'aborted',
          message: "Step 'a' did not start: the plan was aborted.",
        },
      },
    });
  });

  it('keeps a step id such as __proto__ as a plain key', async () => {
    const result = await executePlan(
      { steps: [{ id: '__proto__', tool: 'add', arguments: { a: 1, b: 1 } }] },
      { tools },
    );
    const formatted = JSON.parse(formatPlanResult(result));
    expect(Object.hasOwn(formatted.results, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>)[2]).toBeUndefined();
  });
});
