// The remote-tool test's tool process: a tool service, and a misbehaving service that answers `describe` wrongly.
import { createRestateToolService } from '@org/restate';
import { defineTool } from '@org/tools';
import * as restate from '@restatedev/restate-sdk';
import { record, serveEndpoint } from './endpoint-support.mjs';

const whereAmI = defineTool({
  name: 'where_am_i',
  description: 'Says which process ran the call.',
  input: { type: 'object', properties: { label: { type: 'string' } }, required: ['label'] },
  execute: ({ label }) => {
    record(`where_am_i ${label}`);
    return { pid: process.pid, label };
  },
});

const tools = createRestateToolService({ name: process.env.TOOLS_SERVICE, tools: [whereAmI] });
const broken = restate.service({
  name: process.env.BROKEN_TOOLS_SERVICE,
  handlers: {
    describe: async () => ({ version: 2, tools: [] }),
    execute: async () => ({}),
  },
  options: { ingressPrivate: true },
});
await serveEndpoint([tools, broken]);
