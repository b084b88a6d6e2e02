// Our contender of the overhead benchmark: runAgent with the function-calling planner, a LanguageModel that answers
// from a counter (N calls of the no-op tool, then a final answer) and a no-op tool with a zod schema.
import assert from 'node:assert/strict';
import { createFunctionCallingPlanner, runAgent } from '@org/planner';
import { defineTool, ToolRegistry } from '@org/tools';
import { z } from 'zod';

export const FINAL = 'All steps done.';
export const DESCRIPTION = 'Does nothing; returns its input.';
export const inputSchema = () => z.object({ i: z.number().int().describe('The step number') });

const usage = Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

/** A `LanguageModel` that calls `noop` `steps` times, then answers. */
export function counterModel(steps) {
  let call = 0;
  return {
    specificationVersion: 'v1',
    provider: 'bench',
    modelId: 'counter',
    capabilities: {
      toolCalls: true,
      toolChoice: { auto: 'native', required: 'native', none: 'native', tool: 'native' },
      parallelToolCalls: true,
      strictSchemas: false,
      streaming: false,
    },
    async generate() {
      const index = call++;
      if (index < steps) {
        return {
          text: '',
          toolCalls: [{ id: `call_${index}`, toolName: 'noop', arguments: `{"i":${index}}` }],
          finishReason: 'tool-calls',
          usage,
          adjustments: [],
        };
      }
      return { text: FINAL, toolCalls: [], finishReason: 'stop', usage, adjustments: [] };
    },
    // biome-ignore lint/correctness/useYield: the loop under test only calls generate.
    async *stream() {
      throw new Error('stream is not used by this benchmark');
    },
  };
}

/**
 * The same model, streaming: each answer arrives as stream parts (a call's start, its arguments in two deltas, the
 * complete call, the finish; the final answer in two text deltas), so the loop takes its streaming path.
 */
export function streamingCounterModel(steps) {
  let call = 0;
  return {
    ...counterModel(0),
    capabilities: { ...counterModel(0).capabilities, streaming: true },
    async generate() {
      throw new Error('generate is not used by the streamed benchmark');
    },
    async *stream() {
      const index = call++;
      if (index < steps) {
        const id = `call_${index}`;
        const args = `{"i":${index}}`;
        yield { type: 'tool-call-start', toolCallId: id, toolName: 'noop' };
        yield { type: 'tool-call-delta', toolCallId: id, argumentsDelta: args.slice(0, 3) };
        yield { type: 'tool-call-delta', toolCallId: id, argumentsDelta: args.slice(3) };
        yield { type: 'tool-call', toolCall: { id, toolName: 'noop', arguments: args } };
        yield { type: 'finish', finishReason: 'tool-calls', usage, adjustments: [] };
        return;
      }
      yield { type: 'text-delta', delta: FINAL.slice(0, 4) };
      yield { type: 'text-delta', delta: FINAL.slice(4) };
      yield { type: 'finish', finishReason: 'stop', usage, adjustments: [] };
    },
  };
}

const tools = new ToolRegistry([
  defineTool({ name: 'noop', description: DESCRIPTION, input: inputSchema(), execute: ({ i }) => i }),
]);

/** One conversation of `steps` tool round trips and a final answer, checked (`streamed`: on the stream path). */
export async function runOrg(steps, { streamed = false } = {}) {
  const result = await runAgent({
    model: streamed ? streamingCounterModel(steps) : counterModel(steps),
    tools,
    planner: createFunctionCallingPlanner(),
    task: 'Run the steps.',
    maxSteps: steps + 1,
  });
  assert.equal(result.finishReason, 'final-answer', result.finishDetail);
  assert.equal(result.text, FINAL);
  assert.equal(result.observations.length, steps);
  assert.equal(result.roundTrips, steps + 1);
}

// Run as a script (the profiler's child process): node src/org-loop.mjs <runs> <steps>
if (import.meta.url === `file://${process.argv[1]}`) {
  const runs = Number(process.argv[2] ?? 12);
  const steps = Number(process.argv[3] ?? 1000);
  for (let run = 0; run < runs; run++) await runOrg(steps);
}
