// The approval test's agent: its one tool needs approval, so every run pauses once.

import { createScriptedModel } from '@org/provider-scripted';
import { createRestateAgent } from '@org/restate';
import { defineTool } from '@org/tools';
import { record, serveEndpoint, toolResults } from './endpoint-support.mjs';

const model = createScriptedModel({
  script: (request) => {
    const results = toolResults(request);
    record(`model call after ${results.length} tool result(s)`);
    if (results.length === 0) {
      return { toolCalls: [{ id: 'delete-1', toolName: 'delete_file', arguments: { path: 'report.txt' } }] };
    }
    return { text: `Done: ${results[0].content}` };
  },
});

const deleteFile = defineTool({
  name: 'delete_file',
  description: 'Deletes a file.',
  input: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  needsApproval: true,
  execute: ({ path }) => {
    record(`delete ${path}`);
    return `deleted ${path}`;
  },
});

const agent = createRestateAgent({ name: process.env.AGENT_NAME, agent: { model, tools: [deleteFile] } });
await serveEndpoint([agent]);
