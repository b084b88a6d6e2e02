// The cluster test's agent: each run calls `slow_tool` once, named after its run (the task is `run <name>`). The
// tool's first execution for a run holds until its abort signal fires or HOLD_MS passes, so the test can lose a
// Restate node while every run's tool is in flight and see which attempts the cluster cut, and that they stopped.

import { createScriptedModel } from '@org/provider-scripted';
import { createRestateAgent } from '@org/restate';
import { defineTool } from '@org/tools';
import { holdOnce, record, serveEndpoint, toolResults } from './endpoint-support.mjs';

const model = createScriptedModel({
  script: (request) => {
    const results = toolResults(request);
    if (results.length > 0) return { text: `Finished: ${results[0].content}` };
    const task = request.messages.find((message) => message.role === 'user');
    const name = /^run (\S+)$/.exec(typeof task?.content === 'string' ? task.content : '')?.[1] ?? 'unnamed';
    return { toolCalls: [{ id: 'work-1', toolName: 'slow_tool', arguments: { name } }] };
  },
});

const slowTool = defineTool({
  name: 'slow_tool',
  description: 'Does slow work.',
  input: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  execute: async ({ name }, { signal }) => {
    record(`${name} started`);
    await holdOnce(name, signal);
    record(`${name} done`);
    return `${name} done`;
  },
});

await serveEndpoint([
  createRestateAgent({ name: process.env.AGENT_NAME, agent: { model, tools: [slowTool] } }),
]);
