import type { RunEvent, RunEventListener } from '@org/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  defineTool,
  executeAction,
  executeStreamingAction,
  InvalidToolOptionError,
  ToolRegistry,
} from './index.js';

const echo = defineTool({
  name: 'echo',
  description: 'Echoes its text.',
  input: z.object({ text: z.string() }),
  execute: ({ text }) => text,
  executeStreaming: async (input) => (await input.arguments).text,
});
const registry = new ToolRegistry([echo]);
const throwing: RunEventListener = () => {
  throw new Error('a broken printer');
};

describe('onEvent of executeAction and executeStreamingAction: one listener or several', () => {
  it('executeAction gives each listener every event in order; a throwing one costs the others nothing', async () => {
    const first: RunEvent[] = [];
    const second: RunEvent[] = [];
    const observation = await executeAction(
      registry,
      { id: 'c1', toolName: 'echo', args: { text: 'hi' } },
      { onEvent: [(event) => first.push(event), throwing, (event) => second.push(event)] },
    );
    expect(observation.status).toBe('success');
    expect(first.map((event) => event.type)).toEqual(['tool-call-started', 'tool-call-finished']);
    expect(second).toEqual(first);
  });

  it('executeStreamingAction does the same for a call that starts on its streaming arguments', async () => {
    const first: string[] = [];
    const second: string[] = [];
    const execution = executeStreamingAction(
      registry,
      { id: 'c2', toolName: 'echo' },
      { onEvent: [(event) => first.push(event.type), (event) => second.push(event.type)] },
    );
    expect(execution.startedEarly).toBe(true);
    execution.push('{"text":"hi"}');
    execution.complete({ id: 'c2', toolName: 'echo', args: { text: 'hi' } });
    expect((await execution.observation).status).toBe('success');
    expect(first).toEqual(['tool-call-started', 'tool-call-finished']);
    expect(second).toEqual(first);
  });

  it('refuses a value that is not a listener with InvalidToolOptionError naming onEvent, before anything runs', async () => {
    let ran = false;
    const watched = new ToolRegistry([
      defineTool({
        name: 'watched',
        description: 'Records that it ran.',
        input: z.object({}),
        execute: () => {
          ran = true;
          return 'ran';
        },
      }),
    ]);
    const notListeners = ['print', [() => {}, 42], { onEvent: () => {} }] as unknown as RunEventListener[];
    for (const onEvent of notListeners) {
      await expect(
        executeAction(watched, { id: 'c3', toolName: 'watched', args: {} }, { onEvent }),
      ).rejects.toSatisfy(
        (error) =>
          InvalidToolOptionError.isInstance(error) &&
          error.option === 'onEvent' &&
          /must be a listener function or an array of listener functions/.test(error.message),
      );
      expect(() => executeStreamingAction(registry, { id: 'c4', toolName: 'echo' }, { onEvent })).toThrow(
        InvalidToolOptionError,
      );
    }
    expect(ran).toBe(false);
  });
});
