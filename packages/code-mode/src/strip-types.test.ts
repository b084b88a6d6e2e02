import { afterAll, describe, expect, it, vi } from 'vitest';
import { closeCodeSandboxes, runCode } from './index.js';

// A broken install: the type stripper, loaded with the first program, cannot be imported.
vi.mock('sucrase', () => {
  throw new Error("Cannot find package 'sucrase' (simulated)");
});

afterAll(() => closeCodeSandboxes());

describe('a type stripper that cannot be loaded', () => {
  it('gives every program a typed sandbox failure, never a rejection, and runs no tool', async () => {
    let ran = 0;
    const tools = [
      {
        name: 'ping',
        description: 'Answers pong.',
        execute: () => {
          ran += 1;
          return 'pong';
        },
      },
    ];
    for (let attempt = 0; attempt < 2; attempt++) {
      const result = await runCode('return await ping();', { tools: await toolsOf(tools) });
      expect(result.status).toBe('error');
      expect(result.error).toMatchObject({ name: 'CodeSandboxError', code: 'code_sandbox_failed' });
      expect(result.error?.message).toContain('the type stripper (sucrase) could not be loaded');
    }
    expect(ran).toBe(0);
  });
});

async function toolsOf(
  definitions: readonly { name: string; description: string; execute: () => unknown }[],
) {
  const { defineTool } = await import('@org/tools');
  const { z } = await import('zod');
  return definitions.map((definition) =>
    defineTool({
      name: definition.name,
      description: definition.description,
      input: z.object({}),
      execute: definition.execute,
    }),
  );
}
