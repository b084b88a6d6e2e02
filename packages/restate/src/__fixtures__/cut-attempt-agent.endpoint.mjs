// The cut-attempt test's agent: a model call, a direct tool call, a plan step and a program's call, each of which holds on its first
// execution in this process until its abort signal fires (as a well-behaved slow call does), so the test can cut the
// attempt there (kill the restate-server) and see the old attempt stop before the engine runs the step again.

import { createScriptedModel } from '@org/provider-scripted';
import { createRestateAgent } from '@org/restate';
import { defineTool } from '@org/tools';
import { holdOnce, record, serveEndpoint, toolResults } from './endpoint-support.mjs';

const model = createScriptedModel({
  script: async (request, { signal }) => {
    const results = toolResults(request);
    record(`model call after ${results.length} tool result(s)`);
    if (results.length === 0) {
      await holdOnce('model', signal);
      return { toolCalls: [{ id: 'direct-1', toolName: 'slow_tool', arguments: { name: 'direct' } }] };
    }
    if (results.length === 1) {
      return {
        toolCalls: [
          {
            id: 'plan-1',
            toolName: 'execute_tool_plan',
            arguments: { steps: [{ id: 'step', tool: 'slow_tool', arguments: { name: 'step' } }] },
          },
        ],
      };
    }
    if (results.length === 2) {
      // A program whose call holds: the call of a program in flight when its attempt is cut.
      const code = `const result = await slow_tool({ name: 'code' }); return result;`;
      return { toolCalls: [{ id: 'code-1', toolName: 'run_code', arguments: { code } }] };
    }
    return { text: `Done after ${results.length} tool results.` };
  },
});

const slowTool = defineTool({
  name: 'slow_tool',
  description: 'Does slow work.',
  input: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  execute: async ({ name }, { signal }) => {
    await holdOnce(name, signal);
    record(`${name} done`);
    return `${name} done`;
  },
});

const agent = createRestateAgent({
  name: process.env.AGENT_NAME,
  agent: { model, tools: [slowTool], plan: true, code: true },
});
await serveEndpoint([agent]);
