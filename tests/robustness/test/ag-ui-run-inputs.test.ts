/**
 * The AG-UI endpoint (`@org/ag-ui`) reads a run input from any client on the network: hostile input. Whatever the
 * body (broken JSON, `__proto__` keys as own keys from the wire, unknown roles, forged tool result ids, front-end
 * tools with bad schemas or taken names, resume entries with junk states, deep nesting, wrong types), the
 * web-standard handler answers: a 4xx with a typed JSON error and a bounded message, or a 200 SSE stream that starts
 * with RUN_STARTED and ends with exactly one RUN_FINISHED / RUN_ERROR. It never throws, and leaves the prototypes as
 * they were (the suite's prototype guard).
 */
import { createAgUiHandler } from '@org/ag-ui';
import { createScriptedModel } from '@org/provider-scripted';
import { defineTool } from '@org/tools';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { NUM_RUNS, propertyTimeout } from './support/run-helpers.js';

const RUNS = Math.max(50, Math.floor(NUM_RUNS / 4));

const getWeather = defineTool({
  name: 'get_weather',
  description: 'Current temperature of a city.',
  input: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, temperatureC: 18 }),
});
const pay = defineTool({
  name: 'pay',
  description: 'Pays an amount.',
  input: z.object({ amount: z.number() }),
  needsApproval: true,
  execute: ({ amount }) => `Paid ${amount}.`,
});

const handler = createAgUiHandler({
  // Any request is answered: a call of a server tool, of a tool the front end declared, or text.
  model: createScriptedModel({
    script: (request, context) => {
      const frontEndTool = (request.tools?.length ?? 0) > 2 ? request.tools?.at(-1)?.name : undefined;
      switch (context.callIndex % 4) {
        case 0:
          return { toolCalls: [{ toolName: 'get_weather', arguments: { city: 'Paris' } }] };
        case 1:
          return { toolCalls: [{ toolName: 'pay', arguments: { amount: 1 } }] };
        case 2:
          return frontEndTool === undefined
            ? { text: 'ok' }
            : { toolCalls: [{ toolName: frontEndTool, arguments: { city: 'Rome' } }] };
        default:
          return { text: 'ok' };
      }
    },
  }),
  tools: [getWeather, pay],
  stateSecret: 'a robustness secret of 32 bytes!!',
  maxBodyBytes: 256 * 1024,
});

const dangerous = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty');
const id = fc.oneof(fc.string({ maxLength: 12 }), dangerous);
const text = fc.oneof(fc.string({ maxLength: 40 }), dangerous);

const toolCall = fc.record({
  id,
  type: fc.constantFrom('function', 'other'),
  function: fc.record({
    name: fc.oneof(fc.constant('get_weather'), text),
    arguments: fc.oneof(fc.json(), text),
  }),
});
const message = fc.oneof(
  fc.record({ id, role: fc.constant('user'), content: text }),
  fc.record({
    id,
    role: fc.constant('user'),
    content: fc.array(
      fc.oneof(
        fc.record({ type: fc.constant('text'), text }),
        fc.record({
          type: fc.constantFrom('image', 'audio', 'video', 'document', 'binary'),
          source: fc.record({ type: fc.constantFrom('data', 'url', 'file'), value: text, mimeType: text }),
        }),
      ),
      { maxLength: 3 },
    ),
  }),
  fc.record({
    id,
    role: fc.constant('assistant'),
    content: text,
    toolCalls: fc.array(toolCall, { maxLength: 3 }),
  }),
  fc.record({ id, role: fc.constant('tool'), toolCallId: id, content: text }),
  fc.record({
    id,
    role: fc.constantFrom('system', 'developer', 'reasoning', 'activity', 'robot', '__proto__'),
    content: text,
  }),
  fc.anything({ maxDepth: 2 }),
);
const frontEndTool = fc.record({
  name: fc.oneof(fc.constantFrom('get_weather', 'confirm', 'pay'), text),
  description: text,
  parameters: fc.oneof(
    fc.constant({ type: 'object', properties: { city: { type: 'string' } } }),
    fc.constant({ type: 'wat' }),
    fc.constant({ type: 'object', properties: { p: { type: 'string', pattern: '(a+)+$' } } }),
    fc.json().map((json) => JSON.parse(json) as unknown),
  ),
});
const resumeEntry = fc.record({
  interruptId: id,
  status: fc.constantFrom('resolved', 'cancelled', 'maybe'),
  payload: fc.oneof(
    fc.boolean(),
    fc.record({ approved: fc.boolean(), reason: text }),
    fc.anything({ maxDepth: 2 }),
  ),
  metadata: fc.oneof(
    fc.record({ agentState: fc.anything({ maxDepth: 3 }) }),
    fc.record({
      agentState: fc.record({
        version: fc.constant(1),
        runId: id,
        resumeToken: id,
        seal: fc.constantFrom('hmac-sha256:00', 'nope'),
        step: fc.integer(),
        history: fc.array(fc.anything({ maxDepth: 2 }), { maxLength: 2 }),
      }),
    }),
  ),
});
const runInput = fc.record(
  {
    threadId: fc.oneof(text, fc.integer()),
    runId: text,
    messages: fc.array(message, { maxLength: 6 }),
    tools: fc.array(frontEndTool, { maxLength: 3 }),
    context: fc.array(fc.record({ description: text, value: fc.oneof(text, fc.integer()) }), {
      maxLength: 2,
    }),
    state: fc.anything({ maxDepth: 2 }),
    resume: fc.array(resumeEntry, { maxLength: 2 }),
  },
  { requiredKeys: ['threadId', 'runId', 'messages'] },
);

/** A well-formed conversation with one hostile turn at the end: reaches the loop more often than random messages. */
const plausibleInput = fc
  .tuple(
    text,
    fc.option(message, { nil: undefined, freq: 3 }),
    fc.array(
      fc.record({
        name: fc.constantFrom('confirm', 'choose_city'),
        description: text,
        parameters: fc.constant({ type: 'object', properties: { city: { type: 'string' } } }),
      }),
      { maxLength: 1 },
    ),
  )
  .map(([question, extra, tools]) => ({
    threadId: 'thread',
    runId: 'run',
    messages: [{ id: 'u1', role: 'user', content: question }, ...(extra === undefined ? [] : [extra])],
    tools,
    context: [],
  }));

/** Text a client may send: a run input, with wire-level damage (own `__proto__` keys, duplicates, cuts, depth). */
const body = fc.oneof(
  plausibleInput.map((input) => JSON.stringify(input)),
  plausibleInput.map((input) => JSON.stringify(input).replace('{', '{"__proto__":{"polluted":true},')),
  runInput.map((input) => JSON.stringify(input)),
  runInput.map((input) => JSON.stringify(input).replace('{', '{"__proto__":{"polluted":true},')),
  runInput.map((input) => JSON.stringify(input).replace('"role":"user"', '"role":"user","role":"tool"')),
  fc.tuple(runInput, fc.nat()).map(([input, cut]) => {
    const json = JSON.stringify(input);
    return json.slice(0, cut % Math.max(1, json.length));
  }),
  fc.integer({ min: 100, max: 5000 }).map((depth) => `${'{"messages":'.repeat(depth)}[]${'}'.repeat(depth)}`),
  fc.constant(
    `{"threadId":"t","runId":"r","messages":[{"id":"m","role":"user","content":"${'x'.repeat(300_000)}"}]}`,
  ),
  fc.json(),
);

/** How the bodies were answered, so the property is known to reach runs as well as refusals. */
const answered = { refused: 0, streamed: 0, interrupted: 0 };

async function answer(bodyText: string): Promise<void> {
  const response = await handler(
    new Request('http://localhost/agent', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: bodyText,
    }),
  );
  if (response.status !== 200) {
    expect([400, 413]).toContain(response.status);
    const payload = (await response.json()) as { error: { code: string; message: string } };
    expect(payload.error.code).toBe('invalid_ag_ui_request');
    expect(payload.error.message.length).toBeLessThan(2000);
    answered.refused += 1;
    return;
  }
  const events = (await response.text())
    .split('\n\n')
    .filter((block) => block.startsWith('data:'))
    .map((block) => JSON.parse(block.slice(5)) as { type: string; outcome?: { type: string } });
  const types = events.map((event) => event.type);
  answered.streamed += 1;
  if (events.at(-1)?.outcome?.type === 'interrupt') answered.interrupted += 1;
  expect(types[0]).toBe('RUN_STARTED');
  const terminals = types.filter((type) => type === 'RUN_FINISHED' || type === 'RUN_ERROR');
  expect(terminals).toHaveLength(1);
  expect(['RUN_FINISHED', 'RUN_ERROR']).toContain(types.at(-1));
}

describe('AG-UI run inputs from a hostile client', () => {
  it(
    'property: every body gets a typed 4xx or a well-formed event stream; nothing throws',
    async () => {
      await fc.assert(fc.asyncProperty(body, answer), { numRuns: RUNS });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(answered.refused).toBeGreaterThan(0);
      expect(answered.streamed).toBeGreaterThan(0);
    },
    propertyTimeout(20),
  );

  it(
    'property: without a stateSecret, every input with resume entries is refused before anything runs',
    async () => {
      let paid = 0;
      const payOnce = defineTool({
        name: 'pay',
        description: 'Pays an amount.',
        input: z.object({ amount: z.number() }),
        needsApproval: true,
        execute: ({ amount }) => {
          paid += 1;
          return `Paid ${amount}.`;
        },
      });
      const model = createScriptedModel({ script: [] });
      const unsealed = createAgUiHandler({ model, tools: [payOnce] });
      const wellFormed = fc.record({
        interruptId: fc.string({ minLength: 1, maxLength: 12 }),
        status: fc.constant('resolved'),
        payload: fc.constant(true),
        metadata: resumeEntry.map((entry) => entry.metadata),
      });
      await fc.assert(
        fc.asyncProperty(fc.array(wellFormed, { minLength: 1, maxLength: 2 }), async (resume) => {
          const response = await unsealed(
            new Request('http://localhost/', {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({
                threadId: 't',
                runId: 'r',
                messages: [],
                tools: [],
                context: [],
                state: {},
                forwardedProps: {},
                resume,
              }),
            }),
          );
          expect(response.status).toBe(400);
          const payload = (await response.json()) as { error: { problem: string; message: string } };
          expect(payload.error.problem).toBe('resume');
          expect(payload.error.message).toContain('stateSecret');
        }),
        { numRuns: RUNS },
      );
      expect(paid).toBe(0);
      expect(model.requests).toHaveLength(0);
    },
    propertyTimeout(20),
  );
});
