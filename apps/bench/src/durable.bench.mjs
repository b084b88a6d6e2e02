// Benchmark 5: what journaling costs. The same agent runs in process (`runAgent`) and durably on Restate
// (`createRestateAgent` of @org/restate, served from this process, a real restate-server on 127.0.0.1), on two
// shapes of run with a model and tools that do no work of their own:
//   steps N: N steps of one model call and one tool call, then a final answer (N + 1 model calls, N tool calls);
//   plan K:  one model call that plans K chained steps, the K steps, then a final answer (2 model calls, K steps).
// Wall time per run (the durable one measured by its caller, over the ingress: start, every journaled effect,
// result); N and K at 4 and 24, so the difference of the two divided by 20 is the cost of one step, one plan step
// (a tool call), and by subtraction one model call, without the run's fixed cost. Median of interleaved rounds.
// When restate-server cannot be fetched or started here, the table says so instead of giving a number.
// Usage: node src/durable.bench.mjs
import assert from 'node:assert/strict';
import { createToolPlanTool } from '@org/plan-executor';
import { runAgent } from '@org/planner';
import { createRestateAgent } from '@org/restate';
import { defineTool } from '@org/tools';
import * as restate from '@restatedev/restate-sdk';
import {
  freePort,
  RESTATE_SERVER_VERSION,
  startLocalRestateServer,
} from '../../../packages/restate/scripts/local-restate-server.mjs';
import { fixed, median, table } from './report.mjs';

const ROUNDS = 15;
const SMALL = 4;
const LARGE = 24;
const MAX_STEPS = LARGE + 2;
const usage = Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

/**
 * A model whose answer is a function of the request (as a durable run needs): the task says the shape; the number of
 * tool results so far says where the run is.
 */
const model = {
  specificationVersion: 'v1',
  provider: 'bench',
  modelId: 'shape',
  capabilities: {
    toolCalls: true,
    toolChoice: { auto: 'native', required: 'native', none: 'native', tool: 'native' },
    parallelToolCalls: true,
    strictSchemas: false,
    streaming: false,
  },
  async generate(request) {
    const task = request.messages.find((message) => message.role === 'user')?.content ?? '';
    const [shape, size] = String(task).split(' ');
    const done = request.messages.filter((message) => message.role === 'tool').length;
    const answer = (toolCalls) => ({
      text: toolCalls.length === 0 ? 'done' : '',
      toolCalls,
      finishReason: toolCalls.length === 0 ? 'stop' : 'tool-calls',
      usage,
      adjustments: [],
    });
    if (shape === 'steps' && done < Number(size)) {
      return answer([{ id: `call_${done}`, toolName: 'noop', arguments: `{"i":${done}}` }]);
    }
    if (shape === 'plan' && done === 0) {
      const steps = Array.from({ length: Number(size) }, (_, index) => ({
        id: `s${index}`,
        tool: 'noop',
        arguments: { i: index === 0 ? 0 : `$ref:s${index - 1}.i` },
      }));
      return answer([{ id: 'plan', toolName: 'execute_tool_plan', arguments: JSON.stringify({ steps }) }]);
    }
    return answer([]);
  },
  stream() {
    throw new Error('not used');
  },
};

const noop = defineTool({
  name: 'noop',
  description: 'Does nothing; returns its input.',
  input: { type: 'object', properties: { i: {} }, required: ['i'] },
  execute: ({ i }) => ({ i }),
});
const planTool = createToolPlanTool({ tools: [noop] });

const CASES = [
  ['steps', SMALL],
  ['steps', LARGE],
  ['plan', SMALL],
  ['plan', LARGE],
];

async function inProcess(shape, size) {
  const result = await runAgent({
    model,
    tools: shape === 'plan' ? [noop, planTool] : [noop],
    maxSteps: MAX_STEPS,
    task: `${shape} ${size}`,
  });
  assert.equal(result.finishReason, 'final-answer');
  return result;
}

let runs = 0;
async function durable(ingressUrl, shape, size) {
  const response = await fetch(`${ingressUrl}/bench_${shape}/run-${++runs}/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ task: `${shape} ${size}` }),
  });
  const result = await response.json();
  assert.equal(response.status, 200, JSON.stringify(result));
  assert.equal(result.finishReason, 'final-answer');
  return result;
}

async function timed(run) {
  const started = performance.now();
  const result = await run();
  return { ms: performance.now() - started, result };
}

/** Per-step costs from the medians: (24 − 4 runs) / 20. */
function costs(medians) {
  const perStep = (medians['steps 24'] - medians['steps 4']) / (LARGE - SMALL);
  const perPlanStep = (medians['plan 24'] - medians['plan 4']) / (LARGE - SMALL);
  return { perStep, perPlanStep, perModelCall: perStep - perPlanStep, fixed: medians['steps 4'] };
}

async function measure(ingressUrl) {
  const samples = { local: {}, durable: {} };
  for (const side of ['local', 'durable'])
    for (const [shape, size] of CASES) samples[side][`${shape} ${size}`] = [];
  // Warm-up, and a check that both sides give the same answers.
  for (const [shape, size] of CASES) {
    const local = await inProcess(shape, size);
    const remote = await durable(ingressUrl, shape, size);
    assert.equal(remote.roundTrips, local.roundTrips);
    assert.equal(remote.observations.length, local.observations.length);
  }
  for (let round = 0; round < ROUNDS; round++) {
    const order = CASES.map((_, index) => CASES[(index + round) % CASES.length]);
    for (const [shape, size] of order) {
      const key = `${shape} ${size}`;
      const sides = round % 2 === 0 ? ['local', 'durable'] : ['durable', 'local'];
      for (const side of sides) {
        const { ms } = await timed(() =>
          side === 'local' ? inProcess(shape, size) : durable(ingressUrl, shape, size),
        );
        samples[side][key].push(ms);
      }
    }
  }
  const medians = (side) =>
    Object.fromEntries(Object.entries(samples[side]).map(([key, values]) => [key, median(values)]));
  return { local: medians('local'), durable: medians('durable') };
}

console.log('## 5. Durable runs on Restate: the cost of journaling\n');
console.log(
  `The same agent in process (\`runAgent\`) and durably (\`createRestateAgent\` of \`@org/restate\`, served from the`,
);
console.log(
  `benchmark's process, restate-server ${RESTATE_SERVER_VERSION} on 127.0.0.1, called over its ingress), with a model and a tool`,
);
console.log(
  'that do no work: what is measured is the journaling. Runs of 4 and 24 steps (one model call and one tool call',
);
console.log(
  'each), and of one plan of 4 and 24 chained steps; a cost per call is the difference of the two sizes divided by 20,',
);
console.log(`so the run's fixed cost cancels out. Wall time, median of ${ROUNDS} interleaved rounds.\n`);

let server;
let failure;
try {
  server = await startLocalRestateServer({ log: (message) => console.error(message) });
  const port = await freePort();
  const services = [
    createRestateAgent({ name: 'bench_steps', agent: { model, tools: [noop], maxSteps: MAX_STEPS } }),
    createRestateAgent({
      name: 'bench_plan',
      agent: { model, tools: [noop], plan: true, maxSteps: MAX_STEPS },
    }),
  ];
  // The SDK's own log lines go to stderr, so that stdout stays this report.
  await restate.serve({
    services,
    port,
    logger: (meta, message, ...rest) => {
      if (meta.level === 'warn' || meta.level === 'error')
        console.error(`[restate] ${meta.level}:`, message, ...rest);
    },
  });
  await server.registerDeployment(`http://127.0.0.1:${port}`);
} catch (error) {
  failure = error instanceof Error ? error.message.split('\n')[0] : String(error);
}

if (failure !== undefined) {
  table(
    ['cost', 'in process', 'Restate on 127.0.0.1', 'journaling adds'],
    [
      ['per model call', 'not measured', `not measured: ${failure}`, '—'],
      ['per tool call (plan step)', 'not measured', `not measured: ${failure}`, '—'],
    ],
  );
  await server?.stop();
  process.exit(0);
}

try {
  const { local, durable: remote } = await measure(server.ingressUrl);
  const localCosts = costs(local);
  const durableCosts = costs(remote);
  const ms = (value) => `${fixed(value, 2)} ms`;
  table(
    ['cost', 'in process', 'Restate on 127.0.0.1', 'journaling adds'],
    [
      [
        'per model call',
        ms(localCosts.perModelCall),
        ms(durableCosts.perModelCall),
        ms(durableCosts.perModelCall - localCosts.perModelCall),
      ],
      [
        'per tool call (plan step)',
        ms(localCosts.perPlanStep),
        ms(durableCosts.perPlanStep),
        ms(durableCosts.perPlanStep - localCosts.perPlanStep),
      ],
      [
        'per step (model call + tool call)',
        ms(localCosts.perStep),
        ms(durableCosts.perStep),
        ms(durableCosts.perStep - localCosts.perStep),
      ],
      [
        'a run of 4 steps, start to result',
        ms(localCosts.fixed),
        ms(durableCosts.fixed),
        ms(durableCosts.fixed - localCosts.fixed),
      ],
    ],
  );
  console.log('\nMedians per run:\n');
  table(
    ['run', 'in process', 'Restate on 127.0.0.1'],
    CASES.map(([shape, size]) => [
      `${shape} ${size}`,
      ms(local[`${shape} ${size}`]),
      ms(remote[`${shape} ${size}`]),
    ]),
  );
  console.log(
    '\nEach journaled effect is one round trip to the engine, which writes it to its log before the run goes on;',
  );
  console.log(
    'a model call or a tool call that takes hundreds of milliseconds makes these milliseconds small. Steps of a plan',
  );
  console.log('that do not depend on each other are journaled side by side.');
} finally {
  await server.stop();
}
process.exit(0);
