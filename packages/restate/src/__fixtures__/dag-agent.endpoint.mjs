// The replay-order test's agent: one plan of 12 steps whose dependencies fan in and out, run 3 at a time, each step
// taking a random time, so steps finish in a different order than they started. With HANG_GATE=1 the `gate` step
// never finishes, so the test kills this process mid-plan and the next process replays the rest in journal order.

import { createScriptedModel } from '@org/provider-scripted';
import { createRestateAgent } from '@org/restate';
import { defineTool } from '@org/tools';
import { record, serveEndpoint, toolResults } from './endpoint-support.mjs';

const hangGate = process.env.HANG_GATE === '1';
const step = (id, inputs) => ({
  id,
  tool: 'work',
  arguments: { id, inputs: inputs.map((input) => `$ref:${input}.value`) },
});

const model = createScriptedModel({
  script: (request) => {
    const results = toolResults(request);
    record(`model call after ${results.length} tool result(s)`);
    if (results.length > 0) return { text: `Plan finished: ${results[0].content.slice(0, 200)}` };
    return {
      toolCalls: [
        {
          id: 'plan-1',
          toolName: 'execute_tool_plan',
          arguments: {
            steps: [
              step('a1', []),
              step('a2', []),
              step('a3', []),
              step('a4', []),
              step('b1', ['a1', 'a2']),
              step('b2', ['a3']),
              step('b3', ['a4', 'a1']),
              { id: 'gate', tool: 'gate', arguments: {} },
              step('c1', ['b1', 'b2', 'gate']),
              step('c2', ['b3']),
              step('c3', ['b2', 'c2']),
              step('d1', ['c1', 'c2', 'c3']),
            ],
          },
        },
      ],
    };
  },
});

const work = defineTool({
  name: 'work',
  description: 'Combines its inputs after a while.',
  input: {
    type: 'object',
    properties: { id: { type: 'string' }, inputs: { type: 'array', items: { type: 'string' } } },
    required: ['id', 'inputs'],
  },
  execute: async ({ id, inputs }) => {
    await new Promise((resolve) => setTimeout(resolve, 5 + Math.floor(Math.random() * 60)));
    record(`work ${id}`);
    return { value: `${id}(${inputs.join(',')})` };
  },
});
const gate = defineTool({
  name: 'gate',
  description: 'Opens when the operator says so.',
  input: { type: 'object', properties: {} },
  execute: async () => {
    if (hangGate) {
      record('gate waiting');
      await new Promise(() => {});
    }
    record('gate open');
    return { value: 'gate' };
  },
});

const agent = createRestateAgent({
  name: process.env.AGENT_NAME,
  agent: { model, tools: [work, gate], plan: { maxConcurrency: 3 } },
});
// Every step's call and the run share the attempt's abort signal: a listener left behind would warn here.
process.on('warning', (warning) => record(`warning ${warning.name}: ${warning.message}`));
await serveEndpoint([agent]);
