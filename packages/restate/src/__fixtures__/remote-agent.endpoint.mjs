// The remote-tool test's agent process: its tools come from the tool services of another process.

import { createScriptedModel } from '@org/provider-scripted';
import { createRestateAgent, restateToolSource } from '@org/restate';
import { record, serveEndpoint, toolResults } from './endpoint-support.mjs';

const model = createScriptedModel({
  script: (request) => {
    const results = toolResults(request);
    record(`model call after ${results.length} tool result(s)`);
    if (results.length === 0) {
      return {
        toolCalls: [{ id: 'direct-1', toolName: 'remote_where_am_i', arguments: { label: 'direct' } }],
      };
    }
    if (results.length === 1) {
      return {
        toolCalls: [
          {
            id: 'plan-1',
            toolName: 'execute_tool_plan',
            arguments: {
              steps: [
                { id: 'first', tool: 'remote_where_am_i', arguments: { label: 'plan-first' } },
                { id: 'second', tool: 'remote_where_am_i', arguments: { label: 'after $ref:first.label' } },
              ],
            },
          },
        ],
      };
    }
    return { text: `Ran remotely: ${results.map((result) => result.content).join(' | ')}` };
  },
});

const agent = createRestateAgent({
  name: process.env.AGENT_NAME,
  agent: {
    model,
    toolSources: [restateToolSource(process.env.TOOLS_SERVICE, { prefix: 'remote_' })],
    plan: true,
  },
});
const broken = createRestateAgent({
  name: process.env.BROKEN_AGENT_NAME,
  agent: { model, toolSources: [restateToolSource(process.env.BROKEN_TOOLS_SERVICE)] },
});
await serveEndpoint([agent, broken]);
