// Benchmark 2: framework CPU time per tool round trip, our agent loop (runAgent + the function-calling planner)
// beside the Vercel AI SDK (generateText with MockLanguageModelV3) and LangChain.js (createAgent of `langchain`, and
// a hand-written loop over @langchain/core), on the same scripted conversation: N steps of one call to a no-op tool
// with a zod schema, then a final answer. Each framework gets its own mock model that answers from a counter and
// does nothing else, so what is measured is the framework: request building, parsing and validating the call,
// running the tool, recording the history.
// CPU time (process.cpuUsage, user + system) per step; a warm-up run each, then rounds in which every contender
// runs once, in turn (a different order each round); the median per contender.
// Usage: node src/overhead.bench.mjs [--quick]
import assert from 'node:assert/strict';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { tool as langchainTool } from '@langchain/core/tools';
import { tool as aiTool, generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { createAgent } from 'langchain';
import { DESCRIPTION, FINAL, inputSchema, runOrg } from './org-loop.mjs';
import { fixed, median, ratio, table, verdict } from './report.mjs';

const quick = process.argv.includes('--quick');

// ---------------------------------------------------------------------------------------------------------------
// Vercel AI SDK: generateText with tools, stopWhen: stepCountIs(steps + 1).

const usageV3 = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

function aiModel(steps) {
  let call = 0;
  return new MockLanguageModelV3({
    doGenerate: async () => {
      const index = call++;
      if (index < steps) {
        return {
          content: [
            { type: 'tool-call', toolCallId: `call_${index}`, toolName: 'noop', input: `{"i":${index}}` },
          ],
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage: usageV3,
          warnings: [],
        };
      }
      return {
        content: [{ type: 'text', text: FINAL }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: usageV3,
        warnings: [],
      };
    },
  });
}

const aiTools = {
  noop: aiTool({ description: DESCRIPTION, inputSchema: inputSchema(), execute: ({ i }) => i }),
};

async function runAiSdk(steps) {
  const result = await generateText({
    model: aiModel(steps),
    tools: aiTools,
    prompt: 'Run the steps.',
    stopWhen: stepCountIs(steps + 1),
  });
  assert.equal(result.text, FINAL);
  assert.equal(result.steps.length, steps + 1);
}

// ---------------------------------------------------------------------------------------------------------------
// LangChain.js: a chat model answering from a counter; createAgent (langchain 1.x, on LangGraph), and the loop
// written by hand over @langchain/core (bindTools → invoke → tool.invoke(toolCall) → ToolMessage).

class CounterChatModel extends BaseChatModel {
  constructor(steps) {
    super({});
    this.steps = steps;
    this.call = 0;
  }
  _llmType() {
    return 'counter';
  }
  bindTools() {
    return this;
  }
  async _generate() {
    const index = this.call++;
    const message =
      index < this.steps
        ? new AIMessage({
            content: '',
            tool_calls: [{ id: `call_${index}`, name: 'noop', args: { i: index }, type: 'tool_call' }],
          })
        : new AIMessage({ content: FINAL });
    return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] };
  }
}

const langchainNoop = langchainTool(({ i }) => i, {
  name: 'noop',
  description: DESCRIPTION,
  schema: inputSchema(),
});

async function runLangChainAgent(steps) {
  const agent = createAgent({ model: new CounterChatModel(steps), tools: [langchainNoop] });
  const result = await agent.invoke(
    { messages: [{ role: 'user', content: 'Run the steps.' }] },
    { recursionLimit: 2 * steps + 10 },
  );
  assert.equal(result.messages.at(-1).content, FINAL);
  assert.equal(result.messages.length, 2 * steps + 2);
}

async function runLangChainCore(steps) {
  const model = new CounterChatModel(steps).bindTools([langchainNoop]);
  const tools = { noop: langchainNoop };
  const messages = [{ role: 'user', content: 'Run the steps.' }];
  for (let step = 0; step <= steps; step++) {
    const answer = await model.invoke(messages);
    messages.push(answer);
    if ((answer.tool_calls?.length ?? 0) === 0) break;
    for (const call of answer.tool_calls) {
      const result = await tools[call.name].invoke(call);
      assert.ok(result instanceof ToolMessage);
      messages.push(result);
    }
  }
  assert.equal(messages.at(-1).content, FINAL);
  assert.equal(messages.length, 2 * steps + 2);
}

// ---------------------------------------------------------------------------------------------------------------

const CONTENDERS = [
  ['@org/planner runAgent', runOrg],
  ['Vercel AI SDK generateText', runAiSdk],
  ['LangChain createAgent', runLangChainAgent],
  ['LangChain core, hand-written loop', runLangChainCore],
];

const cpuMicros = (before) => {
  const used = process.cpuUsage(before);
  return used.user + used.system;
};

/**
 * CPU µs per step of each contender: `repeat` conversations of `steps` steps per sample. A contender whose warm-up
 * cost more than 20x the cheapest one's is far from the race the target decides: it gets `SLOW_ROUNDS` samples,
 * the others `rounds`, which keeps the run short without losing precision where it matters.
 */
const SLOW_ROUNDS = 3;
async function measure(steps, repeat, rounds, warmups) {
  const warmupCost = [];
  for (const [, run] of CONTENDERS) {
    const before = process.cpuUsage();
    for (let warmup = 0; warmup < warmups; warmup++) await run(steps);
    warmupCost.push(cpuMicros(before));
  }
  const cheapest = Math.min(...warmupCost);
  const roundsOf = warmupCost.map((cost) => (cost > 20 * cheapest ? Math.min(rounds, SLOW_ROUNDS) : rounds));
  const samples = CONTENDERS.map(() => []);
  for (let round = 0; round < rounds; round++) {
    // Rotate the order each round so that no contender always follows the same one (garbage, JIT state).
    for (let offset = 0; offset < CONTENDERS.length; offset++) {
      const index = (round + offset) % CONTENDERS.length;
      if (round >= roundsOf[index]) continue;
      const run = CONTENDERS[index][1];
      const before = process.cpuUsage();
      for (let repetition = 0; repetition < repeat; repetition++) await run(steps);
      samples[index].push(cpuMicros(before) / (repeat * steps));
    }
  }
  return samples.map((values) => ({
    median: median(values),
    min: Math.min(...values),
    max: Math.max(...values),
    rounds: values.length,
  }));
}

const sizes = quick
  ? [
      { steps: 10, repeat: 10, rounds: 3, warmups: 1 },
      { steps: 1000, repeat: 1, rounds: 2, warmups: 1 },
    ]
  : [
      { steps: 10, repeat: 20, rounds: 9, warmups: 2 },
      { steps: 1000, repeat: 1, rounds: 9, warmups: 1 },
    ];

console.log('## 2. Framework overhead per tool round trip\n');
console.log(
  'The same conversation in each framework: N steps of one call to a no-op tool (zod schema `{ i: int }`), then a final',
);
console.log(
  "answer; each framework's own mock model (ours: a `LanguageModel` answering from a counter; AI SDK: `MockLanguageModelV3`",
);
console.log(
  'from `ai/test`; LangChain: a `BaseChatModel` subclass answering from a counter, as its fakes cannot script a sequence of',
);
console.log(
  'tool calls). CPU time (`process.cpuUsage`, user + system) per step, after warm-up runs, median of the rounds; in',
);
console.log(
  `each round every contender runs once, in a rotating order (a contender more than 20x costlier than the cheapest in the warm-up runs only the first ${SLOW_ROUNDS} rounds: it is far from the race the target decides). The machine is shared: compare the ratios, not the µs, and see the min – max spread. Versions: ai 6.0.322, @langchain/core 1.4.0, langchain 1.5.14.\n`,
);

const results = [];
for (const size of sizes) {
  const measured = await measure(size.steps, size.repeat, size.rounds, size.warmups);
  results.push({ size, measured });
  console.log(
    `### ${size.steps}-step conversations (${size.repeat} per sample, ${size.warmups} warm-up run(s) each; history grows to ${2 * size.steps + 2} messages)\n`,
  );
  const ours = measured[0].median;
  table(
    ['framework', 'CPU µs per step (median)', 'min – max', 'rounds', 'ours / it'],
    CONTENDERS.map(([name], index) => [
      name,
      fixed(measured[index].median, 1),
      `${fixed(measured[index].min, 1)} – ${fixed(measured[index].max, 1)}`,
      measured[index].rounds,
      index === 0 ? '1.00x' : ratio(ours, measured[index].median),
    ]),
  );
  console.log('');
}

console.log('### Target: no slower than the fastest of them\n');
table(
  ['target', 'ours / fastest', 'result'],
  results.map(({ size, measured }) => {
    const others = measured.slice(1).map((value, index) => ({ name: CONTENDERS[index + 1][0], ...value }));
    const fastest = others.sort((left, right) => left.median - right.median)[0];
    const value = measured[0].median / fastest.median;
    return [
      `loop CPU per step no slower than the fastest other, ${size.steps}-step conversations (fastest: ${fastest.name}, ${fixed(fastest.median, 1)} µs; ours ${fixed(measured[0].median, 1)} µs)`,
      `${fixed(value)}x`,
      verdict(value <= 1),
    ];
  }),
);

// Where our loop's time goes: a CPU profile of 12 runs of the 1000-step conversation in a child process.
const { profileOrgLoop } = await import('./profile.mjs');
console.log('\n### Where our loop spends its time (CPU profile, 1000-step conversations)\n');
await profileOrgLoop({ runs: quick ? 4 : 12, steps: 1000 });
