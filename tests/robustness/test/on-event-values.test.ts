/**
 * Issue 27: every `onEvent` takes the same values, one listener or an array of listeners, and refuses anything else
 * where it is given, with its package's typed options error naming `onEvent` (the rule of `@org/core`,
 * `runEventListenersProblem`). A value that slipped through would fail at the first event, or never.
 */

import { createAgUiHandler, InvalidAgUiOptionError } from '@org/ag-ui';
import type { RunEventListener, RunEventListeners } from '@org/core';
import { createMcpServer, InvalidMcpOptionError } from '@org/mcp';
import {
  createInProcessStepRunner,
  createToolPlanTool,
  executePlan,
  PlanOptionsError,
} from '@org/plan-executor';
import { InvalidAgentOptionsError, runAgent } from '@org/planner';
import { createScriptedModel } from '@org/provider-scripted';
import {
  defineTool,
  executeAction,
  executeStreamingAction,
  InvalidToolOptionError,
  ToolRegistry,
} from '@org/tools';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NUM_RUNS, propertyTimeout } from './support/run-helpers.js';

const echo = defineTool({
  name: 'echo',
  description: 'Echoes its text.',
  input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  execute: ({ text }) => text,
});
const tools = new ToolRegistry([echo]);
const PLAN = { steps: [{ id: 's', tool: 'echo', arguments: { text: 'hi' } }] };
const listener: RunEventListener = () => {};

/** Values an `onEvent` may be given: listeners, arrays of them, and anything else (arrays with a stray value too). */
const onEventValue = fc.oneof(
  fc.constant(undefined),
  fc.constant(listener),
  fc.array(fc.constant(listener), { maxLength: 3 }),
  fc.array(fc.oneof(fc.constant(listener), fc.anything()), { minLength: 1, maxLength: 3 }),
  fc.anything(),
);

const isListeners = (value: unknown): value is RunEventListeners | undefined =>
  value === undefined ||
  typeof value === 'function' ||
  (Array.isArray(value) && value.every((entry) => typeof entry === 'function'));

/** How each entry point takes `onEvent`: `undefined` when it accepted the value, else the error it refused it with. */
const ENTRY_POINTS: readonly {
  readonly name: string;
  readonly refusedWith: { isInstance(error: unknown): boolean };
  readonly give: (onEvent: RunEventListeners) => unknown;
}[] = [
  {
    name: 'executeAction',
    refusedWith: InvalidToolOptionError,
    give: (onEvent) => executeAction(tools, { id: 'c', toolName: 'echo', args: { text: 'hi' } }, { onEvent }),
  },
  {
    name: 'executeStreamingAction',
    refusedWith: InvalidToolOptionError,
    give: (onEvent) =>
      executeStreamingAction(tools, { id: 'c', toolName: 'echo' }, { onEvent }).abort('done'),
  },
  {
    name: 'executePlan',
    refusedWith: PlanOptionsError,
    give: (onEvent) => executePlan(PLAN, { tools, onEvent }),
  },
  {
    name: 'createToolPlanTool',
    refusedWith: PlanOptionsError,
    give: (onEvent) => createToolPlanTool({ tools, onEvent }),
  },
  {
    name: 'createInProcessStepRunner',
    refusedWith: PlanOptionsError,
    give: (onEvent) => createInProcessStepRunner(tools, { onEvent }),
  },
  {
    name: 'createMcpServer',
    refusedWith: InvalidMcpOptionError,
    give: (onEvent) => createMcpServer(tools, { onEvent }),
  },
  {
    name: 'createAgUiHandler',
    refusedWith: InvalidAgUiOptionError,
    give: (onEvent) => createAgUiHandler({ model: createScriptedModel({ script: [] }), tools, onEvent }),
  },
  {
    name: 'runAgent',
    refusedWith: InvalidAgentOptionsError,
    give: (onEvent) =>
      runAgent({
        model: createScriptedModel({ script: [{ text: 'Done.' }] }),
        tools,
        task: 'Say done.',
        onEvent,
      }),
  },
];

async function refusal(give: () => unknown): Promise<unknown> {
  try {
    await give();
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('onEvent values', () => {
  it(
    'property: every entry point accepts a listener or an array of listeners, and refuses anything else typed',
    async () => {
      await fc.assert(
        fc.asyncProperty(onEventValue, async (value) => {
          for (const entry of ENTRY_POINTS) {
            const error = await refusal(() => entry.give(value as RunEventListeners));
            if (isListeners(value)) {
              expect(error, entry.name).toBeUndefined();
            } else {
              expect(entry.refusedWith.isInstance(error), `${entry.name}: ${String(error)}`).toBe(true);
              expect((error as { option?: unknown }).option, entry.name).toBe('onEvent');
            }
          }
        }),
        { numRuns: Math.min(NUM_RUNS, 300) },
      );
    },
    propertyTimeout(20),
  );
});
