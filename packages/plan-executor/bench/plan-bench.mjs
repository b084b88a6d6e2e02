// Benchmarks of @org/plan-executor, run from the built package (`pnpm bench` builds first):
//   1. makespan / critical path, this executor beside a level-by-level (wave) executor, on a virtual clock and on
//      real timers: random layered DAGs of 10 to 10,000 steps, and the skew case;
//   2. per-step overhead with no-op tools, beside a hand-written Promise-based DAG runner;
//   3. the token count of the execute_tool_plan description.
// Usage: node bench/plan-bench.mjs [--quick] [--section makespan|overhead|description]
//   --section runs one section only (its heading and table as in the whole run), e.g. to profile or re-measure it.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { defineTool, executeAction, ToolRegistry, validateToolArguments } from '@org/tools';
import { z } from 'zod';
import { createToolPlanTool, executePlan, TOOL_PLAN_DESCRIPTION, validatePlan } from '../dist/index.js';

const quick = process.argv.includes('--quick');
const SECTIONS = ['makespan', 'overhead', 'description'];
const sectionIndex = process.argv.indexOf('--section');
const onlySection = sectionIndex === -1 ? undefined : process.argv[sectionIndex + 1];
if (onlySection !== undefined && !SECTIONS.includes(onlySection)) {
  console.error(`--section takes one of ${SECTIONS.join(', ')}; got ${onlySection}`);
  process.exit(2);
}
const wanted = (section) => onlySection === undefined || onlySection === section;
// The default limit (500 steps) is for plans written by a model; the benchmark goes to 10,000.
const limits = { maxSteps: 10_000 };

// ---------------------------------------------------------------------------------------------------------------
// Clocks

/** Time moves only when everything else is idle; timers fire one at a time, in order. */
class VirtualClock {
  time = 0;
  sequence = 0;
  heap = [];
  now() {
    return this.time;
  }
  sleep(ms, signal) {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const timer = { at: this.time + ms, sequence: this.sequence++, resolve, cancelled: false };
      this.push(timer);
      signal?.addEventListener(
        'abort',
        () => {
          timer.cancelled = true;
          resolve();
        },
        { once: true },
      );
    });
  }
  async run(promise) {
    let settled = false;
    promise.then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve));
      if (settled) return promise;
      // Fire every timer due at the next instant, then let the microtasks they start run.
      const next = this.pop();
      if (next === undefined) throw new Error('deadlock: nothing left to fire');
      this.time = next.at;
      next.resolve();
      while (this.peek() !== undefined && this.peek().at === this.time) this.pop().resolve();
    }
  }
  less(a, b) {
    return a.at < b.at || (a.at === b.at && a.sequence < b.sequence);
  }
  push(timer) {
    const heap = this.heap;
    heap.push(timer);
    let index = heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.less(heap[index], heap[parent])) break;
      [heap[index], heap[parent]] = [heap[parent], heap[index]];
      index = parent;
    }
  }
  peek() {
    while (this.heap.length > 0 && this.heap[0].cancelled) this.removeTop();
    return this.heap[0];
  }
  pop() {
    const top = this.peek();
    if (top !== undefined) this.removeTop();
    return top;
  }
  removeTop() {
    const heap = this.heap;
    const last = heap.pop();
    if (heap.length === 0) return;
    heap[0] = last;
    let index = 0;
    for (;;) {
      const left = index * 2 + 1;
      let smallest = index;
      if (left < heap.length && this.less(heap[left], heap[smallest])) smallest = left;
      if (left + 1 < heap.length && this.less(heap[left + 1], heap[smallest])) smallest = left + 1;
      if (smallest === index) break;
      [heap[index], heap[smallest]] = [heap[smallest], heap[index]];
      index = smallest;
    }
  }
}

const realClock = {
  now: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    }),
};

// ---------------------------------------------------------------------------------------------------------------
// DAGs

function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Steps in layers; each step after the first layer depends on 1 to 3 steps of the layer before, and sometimes one further back. */
function layeredDag(count, seed) {
  const next = random(seed);
  const layerCount = Math.max(2, Math.round(Math.sqrt(count) / 2));
  const layers = Array.from({ length: layerCount }, () => []);
  for (let index = 0; index < count; index++) layers[Math.floor((index * layerCount) / count)].push(index);
  const dependencies = Array.from({ length: count }, () => []);
  const durations = Array.from({ length: count }, () => 10 + Math.floor(next() * 91));
  for (let layer = 1; layer < layerCount; layer++) {
    const previous = layers[layer - 1];
    for (const step of layers[layer]) {
      const wanted = 1 + Math.floor(next() * 3);
      const chosen = new Set();
      while (chosen.size < Math.min(wanted, previous.length))
        chosen.add(previous[Math.floor(next() * previous.length)]);
      if (layer > 1 && next() < 0.3) chosen.add(layers[Math.floor(next() * (layer - 1))][0]);
      dependencies[step] = [...chosen].sort((a, b) => a - b);
    }
  }
  return { dependencies, durations };
}

const skewDag = {
  // A1 900 → A2 100, B1 100 → B2 900
  dependencies: [[], [0], [], [2]],
  durations: [900, 100, 100, 900],
};

function criticalPath({ dependencies, durations }) {
  const finish = new Array(durations.length).fill(0);
  for (let step = 0; step < durations.length; step++) {
    let start = 0;
    for (const dependency of dependencies[step]) start = Math.max(start, finish[dependency]);
    finish[step] = start + durations[step];
  }
  return Math.max(...finish);
}

function levelsOf({ dependencies }) {
  const level = new Array(dependencies.length).fill(0);
  for (let step = 0; step < dependencies.length; step++) {
    for (const dependency of dependencies[step]) level[step] = Math.max(level[step], level[dependency] + 1);
  }
  const levels = [];
  level.forEach((value, step) => {
    levels[value] ??= [];
    levels[value].push(step);
  });
  return levels;
}

const planOf = (dag, scale = 1) => ({
  steps: dag.dependencies.map((dependencies, step) => ({
    id: `s${step}`,
    tool: 'work',
    arguments: {
      ms: dag.durations[step] * scale,
      inputs: dependencies.map((dependency) => `$ref:s${dependency}.ok`),
    },
  })),
});

// ---------------------------------------------------------------------------------------------------------------
// Makespan: this executor versus waves

function workTools(clock, measured) {
  return new ToolRegistry([
    defineTool({
      name: 'work',
      description: 'Sleeps for ms.',
      input: z.object({ ms: z.number(), inputs: z.array(z.unknown()).optional() }),
      execute: async ({ ms }, context) => {
        const started = clock.now();
        await clock.sleep(ms, context.signal);
        measured?.set(context.toolCallId, clock.now() - started);
        return { ok: true };
      },
    }),
  ]);
}

async function waves(dag, tools, scale) {
  const results = new Array(dag.durations.length);
  for (const level of levelsOf(dag)) {
    await Promise.all(
      level.map(async (step) => {
        const inputs = dag.dependencies[step].map((dependency) => results[dependency]?.ok ?? null);
        const observation = await executeAction(tools, {
          id: `s${step}`,
          toolName: 'work',
          args: { ms: dag.durations[step] * scale, inputs },
        });
        results[step] = observation.rawOutput;
      }),
    );
  }
}

async function makespanOnce(dag, mode) {
  const scale = mode === 'virtual' ? 1 : 0.1;
  const clock = mode === 'virtual' ? new VirtualClock() : realClock;
  const ours = new Map();
  const tools = workTools(clock, ours);
  const drive = (promise) => (mode === 'virtual' ? clock.run(promise) : promise);
  const plan = planOf(dag, scale);
  const validationStart = performance.now();
  const checked = validatePlan(plan, { tools, limits });
  const validationMs = performance.now() - validationStart;
  if (!checked.ok) throw checked.error;
  const result = await drive(
    executePlan(checked.plan, { tools, clock, maxConcurrency: Number.POSITIVE_INFINITY, limits }),
  );
  // From the first dispatch to the last step's end, on the plan's clock; validation is reported on its own.
  const oursTime = result.durationMs;
  if (result.status !== 'success') throw new Error(`plan failed: ${result.status}`);
  const waveMeasured = new Map();
  const waveTools = workTools(clock, waveMeasured);
  const waveStart = clock.now();
  await drive(waves(dag, waveTools, scale));
  const waveTime = clock.now() - waveStart;
  const nominal = criticalPath(dag) * scale;
  // On real timers a sleep lasts a little longer than asked (more so on a loaded machine); the fair bound is the
  // critical path of the durations the tools really took, measured inside them.
  const measuredPath = (measured) =>
    criticalPath({
      dependencies: dag.dependencies,
      durations: dag.durations.map((_, step) => measured.get(`s${step}`)),
    });
  const oursPath = mode === 'virtual' ? nominal : measuredPath(ours);
  const wavePath = mode === 'virtual' ? nominal : measuredPath(waveMeasured);
  return {
    oursTime,
    waveTime,
    oursPath,
    wavePath,
    validationMs,
    oursRatio: oursTime / oursPath,
    waveRatio: waveTime / wavePath,
  };
}

/** Virtual time is exact: one run. Real timers: one warm-up run, then the run with the median ratio of three. */
async function makespan(dag, mode) {
  if (mode === 'virtual') return makespanOnce(dag, mode);
  await makespanOnce(dag, mode);
  const runs = [];
  for (let run = 0; run < 3; run++) runs.push(await makespanOnce(dag, mode));
  runs.sort((left, right) => left.oursRatio - right.oursRatio);
  return runs[1];
}

// ---------------------------------------------------------------------------------------------------------------
// Overhead: no-op tools, this executor versus a hand-written Promise DAG runner

const noop = defineTool({
  name: 'noop',
  description: 'Does nothing.',
  input: z.object({ inputs: z.array(z.unknown()).optional() }),
  execute: () => 1,
});
const noopTools = new ToolRegistry([noop]);
const noopPlan = (dag) => ({
  steps: dag.dependencies.map((dependencies, step) => ({
    id: `s${step}`,
    tool: 'noop',
    arguments: { inputs: dependencies.map((dependency) => `$ref:s${dependency}`) },
  })),
});

/** The baseline: one promise per step, chained on its dependencies' promises; same validation and tool call. */
async function promiseDag(dag) {
  const promises = new Array(dag.dependencies.length);
  const context = {
    signal: new AbortController().signal,
    toolCallId: '',
    toolName: 'noop',
    reportProgress() {},
    injected: {},
  };
  for (let step = 0; step < dag.dependencies.length; step++) {
    const dependencies = dag.dependencies[step];
    promises[step] = Promise.all(dependencies.map((dependency) => promises[dependency])).then((inputs) => {
      const checked = validateToolArguments(noop, { inputs });
      if (!checked.ok) throw checked.error;
      return noop.execute(checked.value, context);
    });
  }
  await Promise.all(promises);
}

/** A runner that calls the tool directly (no executeAction): isolates the scheduler's own cost. */
const directRunner = {
  run: ({ action }) =>
    Promise.resolve({
      actionId: action.id,
      toolName: action.toolName,
      status: 'success',
      output: noop.execute(action.args, undefined),
      durationMs: 0,
    }),
};

/**
 * µs of CPU per step of each contender, and each one's ratio to the first (the baseline). The contenders take turns
 * block by block (A B C A B C ...: a block is `repetitions` runs of one contender, timed with process.cpuUsage, so
 * time the process spent descheduled on a shared machine is not counted), in a rotating order; `batches` rounds of
 * blocks are timed. No collection is forced between blocks: after a full collection V8 starts the next block with a
 * small young generation, which charged the executor (it allocates a result per step) 3x the baseline instead of
 * 1.5x. A ratio is the median of the per-round
 * ratios (both sides measured back to back); µs are the median round. Blocks stay long (at least 10 runs and 30,000
 * steps): at 10,000 steps a run allocates about one young generation, and with one run per block the collections fell
 * at the same point of every run of a contender, which read the executor at 0.6x the baseline where long blocks read
 * 1.3x-1.5x.
 */
async function timePerStep(count, contenders, batches) {
  const repetitions = Math.max(10, Math.round((quick ? 10_000 : 30_000) / count));
  for (const run of contenders) for (let warmup = 0; warmup < repetitions; warmup++) await run();
  const samples = contenders.map(() => []);
  for (let batch = 0; batch < batches; batch++) {
    for (let offset = 0; offset < contenders.length; offset++) {
      const index = (batch + offset) % contenders.length;
      const before = process.cpuUsage();
      for (let repetition = 0; repetition < repetitions; repetition++) await contenders[index]();
      const used = process.cpuUsage(before);
      samples[index].push((used.user + used.system) / (repetitions * count));
    }
  }
  const median = (values) => [...values].sort((left, right) => left - right)[values.length >> 1];
  // A ratio over two rounds at a time: the order rotates each round, so each side ran once first and once second,
  // and whichever runs second pays for some of the first one's garbage (at 10,000 steps two runs' medians were 11%
  // apart with a ratio per round).
  const ratiosOf = (values) => {
    const ratios = [];
    for (let batch = 0; batch + 1 < values.length; batch += 2)
      ratios.push((values[batch] + values[batch + 1]) / (samples[0][batch] + samples[0][batch + 1]));
    return ratios;
  };
  return samples.map((values) => ({ perStep: median(values), ratio: median(ratiosOf(values)) }));
}

// ---------------------------------------------------------------------------------------------------------------

/**
 * The contenders of one overhead measurement, the baseline first: `target` (the validated plan, the ratio judged),
 * `whole` (a plan validated in the call) or `runner` (the default runner, executeAction).
 */
function overheadContenders(count, set) {
  const dag = layeredDag(count, count + 1);
  const plan = noopPlan(dag);
  const checked = validatePlan(plan, { tools: noopTools, limits });
  if (!checked.ok) throw checked.error;
  const options = {
    tools: noopTools,
    runner: directRunner,
    maxConcurrency: Number.POSITIVE_INFINITY,
    limits,
  };
  const baseline = () => promiseDag(dag);
  if (set === 'target') return [baseline, () => executePlan(checked.plan, options)];
  if (set === 'whole') return [baseline, () => executePlan(plan, options)];
  return [
    baseline,
    () => executePlan(checked.plan, { tools: noopTools, maxConcurrency: Number.POSITIVE_INFINITY, limits }),
  ];
}

/**
 * Runs one overhead measurement in a fresh Node process, a pair of contenders alone in it: in one shared process the
 * other columns' calls (other runners, plans validated in the call) made the executor's code polymorphic and its
 * ratio swing from 1.0x to 1.8x between runs, and the three-contender process of the informational columns read the
 * plan validated in the call 7.8x the baseline in one run and 8.6x in the next (the baseline's blocks paid for the
 * others' collections).
 */
function measureInChild(count, set) {
  const child = spawnSync(
    process.execPath,
    [
      '--expose-gc',
      // process.cpuUsage counts every thread of the process, V8's concurrent GC threads too: their marking and
      // sweeping landed in whichever block ran then, and one process in three measured the executor (and the
      // baseline) 50-80% slower for a whole run. Collected on the main thread, each block pays for the garbage its
      // own allocation collects: nine processes at 1000 steps measured 1.06x to 1.16x instead of 1.01x to 1.82x.
      '--single-threaded-gc',
      fileURLToPath(import.meta.url),
      '--overhead-child',
      String(count),
      set,
      ...(quick ? ['--quick'] : []),
    ],
    { encoding: 'utf8', maxBuffer: 1 << 20 },
  );
  if (child.status !== 0) throw new Error(`overhead child (${count} steps, ${set}) failed: ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1));
}

/** Rounds of blocks per measuring process of each set (see overheadContenders). */
const BATCHES = quick ? { target: 6, whole: 6, runner: 6 } : { target: 32, whole: 16, runner: 16 };

const childIndex = process.argv.indexOf('--overhead-child');
if (childIndex !== -1) {
  const count = Number(process.argv[childIndex + 1]);
  const set = process.argv[childIndex + 2];
  console.log(JSON.stringify(await timePerStep(count, overheadContenders(count, set), BATCHES[set])));
  process.exit(0);
}

const fixed = (value, digits = 2) => value.toFixed(digits);
const sizes = quick ? [10, 100, 1000] : [10, 100, 1000, 10_000];

console.log('# @org/plan-executor benchmarks');
console.log(`node ${process.version}, ${new Date().toISOString()}\n`);
if (wanted('makespan')) {
  console.log('## Makespan / critical path (maxConcurrency: Infinity)\n');
  console.log(
    '| DAG | clock | critical path | this executor | ratio | waves (level by level) | ratio | plan validation |',
  );
  console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  const cases = [
    ['skew (A1 900 → A2 100, B1 100 → B2 900)', skewDag],
    ...sizes.map((count) => [`layered, ${count} steps`, layeredDag(count, count)]),
  ];
  for (const mode of ['virtual', 'real']) {
    for (const [name, dag] of cases) {
      const result = await makespan(dag, mode);
      const unit = (value) => `${fixed(value, mode === 'virtual' ? 0 : 1)} ms`;
      const slack = mode === 'virtual' ? '' : ` (+${fixed(result.oursTime - result.oursPath, 1)} ms)`;
      console.log(
        `| ${name} | ${mode === 'virtual' ? 'virtual' : 'real timers (durations ÷ 10)'} | ${unit(result.oursPath)} | ${unit(result.oursTime)} | ${fixed(result.oursRatio, mode === 'virtual' ? 4 : 3)}${slack} | ${unit(result.waveTime)} | ${fixed(result.waveRatio, 3)} | ${fixed(result.validationMs, 2)} ms (real) |`,
      );
    }
  }
  console.log(
    "\nThis executor's makespan is PlanResult.durationMs (first dispatch to last finish); the plan was validated",
  );
  console.log(
    'beforehand, in the time of the last column. On real timers the ratio divides by the critical path of the durations',
  );
  console.log(
    'the tools measured inside themselves (a timer fires late, more so on a loaded machine), so it counts scheduling',
  );
  console.log('delay only. Targets: exactly 1.0000 on the virtual clock, ≤ 1.02 (+5 ms) on real timers.\n');
}

const TARGET_PROCESSES = quick ? 1 : 9;
/**
 * Fresh processes for the ratio of a plan validated in the call, each of `BATCHES.whole` rounds. Measured in one
 * process, it moved 8.7% to 14.7% between two full runs: one process is one draw of how V8 compiled and collected.
 * The default runner's column is µs only, from one process.
 */
const WHOLE_PROCESSES = quick ? 1 : 9;

/** `processes` fresh measurements of one set: the one with the median ratio (of its second contender), and the range. */
function medianProcess(count, set, processes) {
  const draws = Array.from({ length: processes }, () => measureInChild(count, set));
  const ratios = draws.map(([, measured]) => measured.ratio).sort((left, right) => left - right);
  const middle = draws.find(([, measured]) => measured.ratio === ratios[ratios.length >> 1]);
  return { middle, low: ratios[0], high: ratios.at(-1) };
}
if (wanted('overhead')) {
  console.log(
    `## Per-step overhead with no-op tools (CPU µs per step, process.cpuUsage: contenders interleaved block by block, each set in fresh processes with single-threaded GC; a process's ratio: median of the ratios over two rounds (each side once first, once second); the target's ratio: the median of ${TARGET_PROCESSES} processes of ${BATCHES.target} rounds, a plan validated in the call: the median of ${WHOLE_PROCESSES} processes of ${BATCHES.whole} rounds, min – max across them beside each; the default runner: one process of ${BATCHES.runner} rounds)\n`,
  );
  console.log(
    '| steps | Promise DAG baseline | this executor, validated plan | ratio | ratio min – max (processes) | this executor, plan validated in the call | ratio | ratio min – max (processes) | default runner (executeAction) |',
  );
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const count of sizes) {
    // A fresh process compiles the executor its own way (inlining, feedback): the ratio of one process is one draw.
    // The target's ratio is the median over TARGET_PROCESSES processes, their min – max beside it.
    const target = medianProcess(count, 'target', TARGET_PROCESSES);
    const whole = medianProcess(count, 'whole', WHOLE_PROCESSES);
    const [, { perStep: full }] = measureInChild(count, 'runner');
    const [{ perStep: baseline }, hot] = target.middle;
    console.log(
      `| ${count} | ${fixed(baseline)} | ${fixed(hot.perStep)} | ${fixed(hot.ratio)}x | ${fixed(target.low)} – ${fixed(target.high)} | ${fixed(whole.middle[1].perStep)} | ${fixed(whole.middle[1].ratio)}x | ${fixed(whole.low)} – ${fixed(whole.high)} | ${fixed(full)} |`,
    );
  }
  console.log(
    "\nThe baseline and the executor both validate each step's arguments (validateToolArguments, the zod fast path) and call",
  );
  console.log(
    'the no-op tool directly; the executor also fills $refs, keeps timings and builds a result per step. "Validated in the',
  );
  console.log(
    'call" adds plan validation (shape, ids, references, cycles). The last column runs each step through',
  );
  console.log(
    'executeAction of @org/tools (the default runner). Targets: ≤ 1.5x baseline, ≤ 5 µs per step.\n',
  );
}

if (wanted('description')) {
  console.log('## execute_tool_plan description\n');
  const planTool = createToolPlanTool({ tools: noopTools });
  const description = planTool.description;
  // The whole tool as a provider receives it on every request that offers it: name, description and input schema.
  const specText = JSON.stringify({ name: planTool.name, description, parameters: planTool.inputSchema });
  try {
    const { getEncoding } = await import('js-tiktoken');
    const o200k = getEncoding('o200k_base');
    const cl100k = getEncoding('cl100k_base');
    console.log(
      `Description: ${o200k.encode(description).length} tokens (o200k_base), ${cl100k.encode(description).length} tokens (cl100k_base), ${description.length} characters.`,
    );
    console.log(
      `The whole tool spec as sent ({name, description, parameters} JSON): ${o200k.encode(specText).length} tokens (o200k_base), ${cl100k.encode(specText).length} tokens (cl100k_base), ${specText.length} characters.`,
    );
    // With tools that declare output schemas, the description lists their output fields (named as the model sees
    // them) so that $ref paths are not guessed: the cost of that hint, for three typical tools.
    const withOutputs = new ToolRegistry([
      defineTool({
        name: 'get_weather',
        description: 'Weather.',
        input: z.object({ city: z.string() }),
        output: z.object({ city: z.string(), temperature: z.number(), conditions: z.string() }),
        execute: () => ({}),
      }),
      defineTool({
        name: 'search',
        description: 'Search.',
        input: z.object({ q: z.string() }),
        output: z.object({
          total: z.number(),
          items: z.array(z.object({ id: z.string(), title: z.string(), url: z.string() })),
        }),
        execute: () => ({}),
      }),
      defineTool({
        name: 'orders.get',
        description: 'An order.',
        input: z.object({ id: z.string() }),
        output: z.object({
          id: z.string(),
          total: z.number(),
          lines: z.array(z.object({ sku: z.string(), qty: z.number() })),
        }),
        execute: () => ({}),
      }),
    ]);
    const hinted = createToolPlanTool({ tools: withOutputs });
    const hint = hinted.description.slice(TOOL_PLAN_DESCRIPTION.length);
    const hintedSpec = JSON.stringify({
      name: hinted.name,
      description: hinted.description,
      parameters: hinted.inputSchema,
    });
    console.log(
      `With three tools that declare output schemas, the output-field hint adds ${o200k.encode(hint).length} tokens (o200k_base); the whole spec is ${o200k.encode(hintedSpec).length} tokens:${hint}`,
    );
  } catch (error) {
    console.log(
      `Description: ${description.length} characters; spec: ${specText.length} characters (no tokenizer available: ${error.message}).`,
    );
  }
  console.log(`\n> ${TOOL_PLAN_DESCRIPTION}`);
}
