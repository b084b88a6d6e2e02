import { getMaxListeners } from 'node:events';
import { defineTool, ToolRegistry } from '@org/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { executePlan } from './index.js';

describe("the caller's abort signal", () => {
  it('is left as it was: no listener limit changed, no listener left behind', async () => {
    const seen: AbortSignal[] = [];
    const echo = defineTool({
      name: 'echo',
      description: 'Echo.',
      input: z.object({ text: z.string() }),
      execute: ({ text }, context) => {
        seen.push(context.signal);
        return text;
      },
    });
    const controller = new AbortController();
    const before = getMaxListeners(controller.signal);
    const steps = Array.from({ length: 20 }, (_, index) => ({
      id: `s${index}`,
      tool: 'echo',
      arguments: { text: 'x' },
    }));
    const result = await executePlan(
      { steps },
      { tools: new ToolRegistry([echo]), signal: controller.signal },
    );
    expect(result.steps.every((step) => step.status === 'success')).toBe(true);
    expect(getMaxListeners(controller.signal)).toBe(before);
    expect(seen.length).toBe(20);
  });

  it('still aborts running steps, with its reason', async () => {
    const controller = new AbortController();
    let stepSignal: AbortSignal | undefined;
    const hang = defineTool({
      name: 'hang',
      description: 'Waits until aborted.',
      input: z.object({}),
      execute: (_args, context) =>
        new Promise<string>((resolve) => {
          stepSignal = context.signal;
          context.signal.addEventListener('abort', () => resolve('stopped'));
          setTimeout(() => controller.abort(new Error('user cancelled')), 5);
        }),
    });
    const result = await executePlan(
      { steps: [{ id: 'wait', tool: 'hang', arguments: {} }] },
      { tools: new ToolRegistry([hang]), signal: controller.signal },
    );
    expect(result.aborted).toBe(true);
    expect(result.abortReason).toBe('user cancelled');
    expect(result.steps[0]?.status).toBe('aborted');
    expect(stepSignal?.aborted).toBe(true);
  });
});
