// The code-mode tests' agent: the model answers with one program (`run_code`) that calls tools one after the other
// and side by side (Promise.all), reads Date.now() and Math.random() to pick a branch, and waits at a gate. With
// HANG_GATE=1 the gate never opens, so the test kills this process mid-program, after some calls finished.

import { createScriptedModel } from '@org/provider-scripted';
import { createRestateAgent } from '@org/restate';
import { defineTool } from '@org/tools';
import { record, serveEndpoint, toolResults } from './endpoint-support.mjs';

const hangGate = process.env.HANG_GATE === '1';

const PROGRAMS = {
  crash: `
    const a = await work({ id: 'a' });
    const [b, c] = await Promise.all([work({ id: 'b' }), work({ id: 'c' })]);
    const now = Date.now();
    const random = Math.random();
    const branch = random < 0.5 ? 'low' : 'high';
    await note({ text: branch + ' ' + now + ' ' + random });
    const picked = branch === 'low' ? await work({ id: 'low' }) : await work({ id: 'high' });
    const gate = await open_gate({});
    const [d, e] = await Promise.all([work({ id: 'd' }), work({ id: 'e:' + gate.value })]);
    return { values: [a, b, c, picked, d, e].map((x) => x.value), branch, now, random };
  `,
  // Two programs in one answer: a durable run runs them one after the other.
  twoFirst: `
    const a = await work({ id: 'p1-a' });
    const b = await work({ id: 'p1-b' });
    return [a.value, b.value];
  `,
  twoSecond: `
    const [a, gate] = await Promise.all([work({ id: 'p2-a' }), open_gate({})]);
    const b = await work({ id: 'p2-b' });
    return [a.value, gate.value, b.value];
  `,
};

// An answer is a function of the request, so a model in a new process answers a replayed run where it left off.
const model = createScriptedModel({
  script: (request) => {
    const results = toolResults(request);
    record(`model call after ${results.length} tool result(s)`);
    if (results.length > 0) return { text: `Programs finished: ${results.length}` };
    const names = process.env.PROGRAM === 'two' ? ['twoFirst', 'twoSecond'] : [process.env.PROGRAM];
    return {
      toolCalls: names.map((name, index) => ({
        id: `code-${index + 1}`,
        toolName: 'run_code',
        arguments: { code: PROGRAMS[name] },
      })),
    };
  },
});

const work = defineTool({
  name: 'work',
  description: 'Does one piece of work.',
  input: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  execute: async ({ id }) => {
    // Finishing in a random order, so Promise.all's calls settle differently than they started.
    await new Promise((resolve) => setTimeout(resolve, 5 + Math.floor(Math.random() * 40)));
    record(`work ${id}`);
    return { value: `done ${id}` };
  },
});
const note = defineTool({
  name: 'note',
  description: 'Writes a note.',
  input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  execute: ({ text }) => {
    record(`note ${text}`);
    return { value: 'noted' };
  },
});
const openGate = defineTool({
  name: 'open_gate',
  description: 'Opens when the operator says so.',
  input: { type: 'object', properties: {} },
  execute: async () => {
    if (hangGate) {
      record('gate waiting');
      await new Promise(() => {});
    }
    record('gate open');
    return { value: 'open' };
  },
});

const agent = createRestateAgent({
  name: process.env.AGENT_NAME,
  agent: { model, tools: [work, note, openGate], code: true },
});
await serveEndpoint([agent]);
