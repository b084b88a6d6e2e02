// Runs, in a worker thread, an agent whose scripted model sends 10^5-deep tool arguments, and posts the outcome.
// A worker, so that a synchronous hang (the scripted model's token count) can be ended by the test.
import { parentPort, workerData } from 'node:worker_threads';
import { runAgent } from '@org/planner';
import { createScriptedModel } from '@org/provider-scripted';
import { defineTool } from '@org/tools';

const depth = workerData.depth;
const text = `{"city":${'['.repeat(depth)}${']'.repeat(depth)}}`;
let ran = 0;
const tool = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city.',
  input: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  execute: () => {
    ran++;
    return { temperatureC: 18 };
  },
});
const model = createScriptedModel({
  script: [{ toolCalls: [{ toolName: 'get_weather', arguments: text }] }, { text: 'Done.' }],
});
const result = await runAgent({ model, tools: [tool], task: 'Weather?' });
parentPort.postMessage({
  ran,
  finishReason: result.finishReason,
  codes: result.observations.map((observation) => observation.error?.code ?? observation.status),
});
