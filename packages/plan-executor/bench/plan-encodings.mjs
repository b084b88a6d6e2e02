// The output tokens of a plan in each encoding considered for execute_tool_plan (issue 15), on the tasks of the
// modes bench (apps/bench/src/modes.bench.mjs). Counts are o200k_base, as `countTokens` of @org/provider-scripted
// counts them (the same tokenizer, js-tiktoken), for the call's tool name and its argument text.
// Every encoding the plan tool accepts is also read back with parsePlan, to check it means the same plan.
// Usage: node bench/plan-encodings.mjs   (from the built package: run `npx tsc -p tsconfig.build.json` first)
import assert from 'node:assert/strict';
import { getEncoding } from 'js-tiktoken';
import { parsePlan } from '../dist/index.js';

const encoder = getEncoding('o200k_base');
const tokens = (text) => encoder.encode(text).length;

const eight = ['q1', 'q2', 'q3', 'q4', 'q5', 'q6', 'q7', 'q8'];
const depth3 = [
  ...['a1', 'a2', 'a3', 'b1', 'b2', 'b3'].map((query) => ({ id: query, tool: 'search', args: { query } })),
  { id: 'sumA', tool: 'sum', args: { values: ['$ref:a1.score', '$ref:a2.score', '$ref:a3.score'] } },
  { id: 'sumB', tool: 'sum', args: { values: ['$ref:b1.score', '$ref:b2.score', '$ref:b3.score'] } },
  { id: 'winner', tool: 'compare', args: { a: '$ref:sumA', b: '$ref:sumB' } },
];
const TASKS = {
  'fan-out 2': [
    { id: 'a1', tool: 'search', args: { query: 'a1' } },
    { id: 'b1', tool: 'search', args: { query: 'b1' } },
  ],
  'fan-out 8 + compare': [
    ...eight.map((query) => ({ id: query, tool: 'search', args: { query } })),
    { id: 'top', tool: 'best', args: { scores: eight.map((id) => `$ref:${id}.score`) } },
  ],
  'depth 3': depth3,
  'chain of 4': [
    { id: 'h1', tool: 'hop', args: { key: 'start' } },
    { id: 'h2', tool: 'hop', args: { key: '$ref:h1.next' } },
    { id: 'h3', tool: 'hop', args: { key: '$ref:h2.next' } },
    { id: 'h4', tool: 'hop', args: { key: '$ref:h3.next' } },
  ],
  skew: [
    { id: 'A1', tool: 'search', args: { query: 'A1' } },
    { id: 'A2', tool: 'search', args: { query: 'A2', after: '$ref:A1.score' } },
    { id: 'B1', tool: 'search', args: { query: 'B1' } },
    { id: 'B2', tool: 'search', args: { query: 'B2', after: '$ref:B1.score' } },
  ],
  'single call': [{ id: 'solo', tool: 'search', args: { query: 'solo' } }],
};

/** The steps no other step uses: what the modes bench asks for (`output_steps`), and the object form's default. */
const leaves = (calls) => {
  const used = new Set(
    calls.flatMap((call) =>
      [...JSON.stringify(call.args).matchAll(/\$ref:([A-Za-z0-9_-]+)/g)].map((match) => match[1]),
    ),
  );
  return calls.filter((call) => !used.has(call.id)).map((call) => call.id);
};
/** Rewrites `$ref:x.y` to another reference form. */
const refs = (value, form) =>
  JSON.parse(
    JSON.stringify(value).replace(/\$ref:([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)/g, (_, path) => form(path)),
  );

// [name, accepted by the plan tool, encode(calls) -> plan object]
const CANDIDATES = [
  [
    'list, `$ref:`, output_steps (the seed format)',
    true,
    (calls) => ({
      steps: calls.map((c) => ({ id: c.id, tool: c.tool, arguments: c.args })),
      output_steps: leaves(calls),
    }),
  ],
  [
    'list, `$ref:`, arguments as JSON strings',
    true,
    (calls) => ({
      steps: calls.map((c) => ({ id: c.id, tool: c.tool, arguments: JSON.stringify(c.args) })),
      output_steps: leaves(calls),
    }),
  ],
  [
    'list of tuples `[id, tool, args]`, `$ref:`',
    false,
    (calls) => ({ steps: calls.map((c) => [c.id, c.tool, c.args]), output_steps: leaves(calls) }),
  ],
  [
    'list of tuples, `$id`, no output_steps',
    false,
    (calls) => ({ steps: calls.map((c) => [c.id, c.tool, refs(c.args, (p) => `$${p}`)]) }),
  ],
  [
    'object `{id: [tool, args]}`, `$id`',
    false,
    (calls) => ({
      steps: Object.fromEntries(calls.map((c) => [c.id, [c.tool, refs(c.args, (p) => `$${p}`)]])),
    }),
  ],
  [
    'object `{id: {tool: args}}`, `$ref:`, output_steps',
    true,
    (calls) => ({
      steps: Object.fromEntries(calls.map((c) => [c.id, { [c.tool]: c.args }])),
      output_steps: leaves(calls),
    }),
  ],
  [
    'object `{id: {tool: args}}`, `$id`, output_steps',
    true,
    (calls) => ({
      steps: Object.fromEntries(calls.map((c) => [c.id, { [c.tool]: refs(c.args, (p) => `$${p}`) }])),
      output_steps: leaves(calls),
    }),
  ],
  [
    'object `{id: {tool: args}}`, `$id`, default outputs (chosen)',
    true,
    (calls) => ({
      steps: Object.fromEntries(calls.map((c) => [c.id, { [c.tool]: refs(c.args, (p) => `$${p}`) }])),
    }),
  ],
  [
    'one line per step `id=tool({...})` in a string',
    false,
    (calls) => ({
      plan: calls.map((c) => `${c.id}=${c.tool}(${JSON.stringify(refs(c.args, (p) => `$${p}`))})`).join('\n'),
    }),
  ],
];

const callTokens = (plan) => tokens('execute_tool_plan') + tokens(JSON.stringify(plan));
const rows = [];
for (const [name, accepted, encode] of CANDIDATES) {
  const row = [name, accepted ? 'yes' : 'no'];
  for (const [task, calls] of Object.entries(TASKS)) {
    const plan = encode(calls);
    row.push(String(callTokens(plan)));
    if (!accepted) continue;
    // Every accepted encoding reads back to the same plan as the seed format.
    const parsed = parsePlan(plan);
    assert.ok(parsed.ok, `${name} on ${task}: ${parsed.ok ? '' : parsed.error.message}`);
    const seed = parsePlan(CANDIDATES[0][2](calls));
    assert.deepEqual(parsed.plan, seed.plan, `${name} on ${task} means another plan`);
  }
  rows.push(row);
}

// The modes bench, before issue 15: native parallel calls wrote 83 output tokens on depth 3 (tool calls and the
// answer), plan mode 219 (the seed plan and the same answer).
const NATIVE_DEPTH3_OUTPUT = 83;
const answer = tokens('The winner is group B (10 vs 9).');
const chosen = callTokens(CANDIDATES.at(-2)[2](depth3)) + answer;

console.log(`| encoding | accepted | ${Object.keys(TASKS).join(' | ')} |`);
console.log(
  `| --- | --- | ${Object.keys(TASKS)
    .map(() => '---:')
    .join(' | ')} |`,
);
for (const row of rows) console.log(`| ${row.join(' | ')} |`);
console.log(
  `\nDepth 3, the whole plan-mode output with the chosen encoding: ${chosen} tokens (the plan call and the ${answer}-token answer) against ${NATIVE_DEPTH3_OUTPUT} for native parallel calls: ${(chosen / NATIVE_DEPTH3_OUTPUT).toFixed(2)}x (target ≤ 1.8x; the seed format: ${callTokens(CANDIDATES[0][2](depth3)) + answer} tokens, ${((callTokens(CANDIDATES[0][2](depth3)) + answer) / NATIVE_DEPTH3_OUTPUT).toFixed(2)}x).`,
);
