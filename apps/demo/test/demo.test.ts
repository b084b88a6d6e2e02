import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createTaskScripts } from '@org/provider-scripted';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_TASKS, type DemoOutcome, referencedSteps, runDemo } from '../src/index.js';
import { assertWellFormedXml } from './xml.js';

const outDir = mkdtempSync(join(tmpdir(), 'org-demo-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

async function demo(
  argv: readonly string[],
  environment: Record<string, string | undefined> = {},
  isTTY = false,
): Promise<DemoOutcome & { stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const outcome = await runDemo(argv, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    environment,
    cwd: process.cwd(),
    isTTY,
  });
  return { ...outcome, stdout, stderr };
}

/** The answers the tools' data implies; every mode must reach them. */
const EXPECTED_ANSWERS: Record<string, string> = {
  weather:
    'Madrid is the warmest at 27°C and Oslo the coldest at 7°C (Rome 24°C, Paris 18°C), a spread of 20°C.',
  orders:
    'ACME has 3 delayed orders worth €4130, 5.7 days late on average; Rapid Freight accounts for the most late days (15).',
  research:
    '306 papers in all: quantization is busiest (88, led by "GPTQ: Accurate Post-Training Quantization"), kv cache compression quietest (27).',
  prices:
    'Cheapest that answered: contoso at €315 (northwind €329). Globex could not be checked: its price service failed.',
  invoices: 'ACME owes €2865 on 3 unpaid invoices: INV-5 (€860), INV-7 (€1575), INV-9 (€430).',
  memory:
    'Ada Lovelace (Slack @ada) owns checkout-service; Grace Hopper (pager 555-0142) is on call. Logged INC-2041 in memory (INC-2041 affects checkout-service).',
};

interface TableRow {
  task: string;
  mode: string;
  roundTrips: number;
  inputTokens: number;
  outputTokens: number;
  wallTimeS: number;
  answer: string;
}

function tableRows(stdout: string): TableRow[] {
  const lines = stdout.split('\n');
  const header = lines.findIndex((line) => line.startsWith('| task '));
  expect(header).toBeGreaterThanOrEqual(0);
  return lines
    .slice(header + 2)
    .filter((line) => line.startsWith('| '))
    .map((line) => {
      const cells = line
        .slice(2, -2)
        .split(' | ')
        .map((cell) => cell.trim());
      return {
        task: cells[0] ?? '',
        mode: cells[1] ?? '',
        roundTrips: Number(cells[2]),
        inputTokens: Number(cells[3]),
        outputTokens: Number(cells[4]),
        wallTimeS: Number.parseFloat(cells[5] ?? ''),
        answer: cells.slice(8).join(' | '),
      };
    });
}

describe('the demo, end to end offline', () => {
  it('runs every task in the four modes, prints each step live, the table and the timelines', async () => {
    const outcome = await demo(['--out', outDir]);
    expect(outcome.stderr).toBe('');
    expect(outcome.exitCode).toBe(0);

    // Live steps, stamped with simulated time.
    expect(outcome.stdout).toContain('virtual clock, times are simulated');
    // ReAct describes the tools in its prompt: the line says so rather than "0 tools".
    expect(outcome.stdout).toMatch(/\[\+ +0\.000 s\] model call 1 → 2 messages, tools in the prompt/);
    expect(outcome.stdout).not.toMatch(/messages, 0 tools/);
    // A plan call whose steps failed or were skipped is shown with the plan's status, not as a plain success.
    expect(outcome.stdout).toMatch(
      /tool execute_tool_plan partial after \d+ ms: 2 of 4 steps succeeded, 1 failed, 1 skipped\./,
    );
    expect(outcome.stdout).toMatch(
      /model call 1 ← asked for 4 tool calls: get_weather, get_weather, get_weather, get_weather/,
    );
    expect(outcome.stdout).toMatch(/tool get_weather \{"city":"Oslo"\} started/);
    // The model's answers stream: each stretch of text once, stamped with when it started and ended streaming.
    expect(outcome.stdout).toMatch(
      /\[\+ +\d+\.\d{3} s\] model call 3 wrote, streamed from \+\d+\.\d{3} s: Madrid is the warmest at 27°C/,
    );
    expect(outcome.stdout).toMatch(/model call 1 … writing a call to execute_tool_plan/);
    // Eager tools start as soon as their call is complete in the stream, while the model writes the next one.
    expect(outcome.stdout).toContain(
      'tool get_weather {"city":"Paris"} started early, while model call 1 was still writing',
    );
    expect(outcome.stdout).toContain(
      'tool search_papers {"topic":"speculative decoding"} started early, while model call 1 was still writing',
    );
    // The typed answer of the orders task, field by field, in every mode.
    expect(
      outcome.stdout.match(/typed answer \(OrdersReport, through the final_answer tool\), validated:/g),
    ).toHaveLength(3);
    expect(outcome.stdout).toContain('typed answer (OrdersReport, as JSON in the ReAct answer), validated:');
    expect(
      outcome.stdout.match(/\n {5}worstCarrier {5}\{"name":"Rapid Freight","lateDays":15\}\n/g),
    ).toHaveLength(4);
    expect(outcome.stdout).toMatch(/plan step compare \(compare_temperatures\) started/);
    expect(outcome.stdout).toMatch(/plan step oslo \(get_weather\) success after 690 ms/);
    expect(outcome.stdout).toMatch(
      /plan step globex \(get_price\) error after 280 ms: .*503 Service Unavailable/,
    );
    expect(outcome.stdout).toMatch(/plan step convert \(convert_currency\) skipped/);
    // The MCP task: its tools are a real server, their real time measured and labelled.
    expect(outcome.stdout).toMatch(/tool memory\.search_nodes \{"query":"checkout"\} started/);
    expect(outcome.stdout).toMatch(/plan step people \(memory\.open_nodes\) success after \d+ ms/);
    expect(
      outcome.stdout.match(
        /tools: MCP server-memory over stdio, 4 calls in \d+ ms of measured real time \(added to the simulated time\)/g,
      ),
    ).toHaveLength(4);
    expect(outcome.stdout).toContain(
      '* simulated model time plus the measured real time of the tool calls, made to a real server (memory: MCP server-memory over stdio)',
    );
    // Each plan step is shown once as it starts.
    expect(outcome.stdout.match(/plan step paris \(get_weather\) started/g)).toHaveLength(1);

    // The comparison table: one row per task and mode, the analytic round trips, the same right answer.
    const rows = tableRows(outcome.stdout);
    expect(rows.map((row) => `${row.task}/${row.mode}`)).toEqual(
      DEMO_TASKS.flatMap((task) =>
        ['ReAct', 'function calling', 'plan mode', 'code mode'].map((mode) => `${task.id}/${mode}`),
      ),
    );
    for (const task of DEMO_TASKS) {
      const scripts = createTaskScripts({
        calls: task.calls,
        answer: task.answer,
        ...(task.aggregates === undefined ? {} : { aggregates: task.aggregates }),
      });
      const [react, native, plan, code] = rows.filter((row) => row.task === task.id) as [
        TableRow,
        TableRow,
        TableRow,
        TableRow,
      ];
      // A call whose input failed is never made: in `prices`, `convert` needs the failing `globex`, so ReAct makes
      // 3 calls + the answer and native calling one parallel round + the answer (the analytic counts assume success).
      // In `invoices`, ReAct makes one call per invoice the list returned (five), beyond the analytic count.
      const expected =
        task.id === 'prices'
          ? { react: 4, native: 2, plan: 2 }
          : task.id === 'invoices'
            ? { ...scripts.roundTrips, react: 7 }
            : scripts.roundTrips;
      expect([react.roundTrips, native.roundTrips, plan.roundTrips, code.roundTrips]).toEqual([
        expected.react,
        expected.native,
        expected.plan,
        2,
      ]);
      for (const row of [react, native, plan, code]) {
        expect({ task: task.id, mode: row.mode, answer: row.answer }).toEqual({
          task: task.id,
          mode: row.mode,
          answer: EXPECTED_ANSWERS[task.id],
        });
        expect(row.inputTokens).toBeGreaterThan(0);
        expect(row.outputTokens).toBeGreaterThan(0);
      }
      // Simulated time on a virtual clock is deterministic, so compared exactly, not timed.
      expect(plan.wallTimeS).toBeLessThan(react.wallTimeS);
      expect(plan.inputTokens).toBeLessThan(react.inputTokens);
    }
    expect(rows.find((row) => row.task === 'research' && row.mode === 'ReAct')?.roundTrips).toBe(8);
    expect(rows.find((row) => row.task === 'orders' && row.mode === 'function calling')?.roundTrips).toBe(4);
    // The fan-out: native and plan mode need the list before they can fetch each invoice; one program does it all.
    const invoices = (mode: string): TableRow | undefined =>
      rows.find((row) => row.task === 'invoices' && row.mode === mode);
    expect([invoices('function calling')?.roundTrips, invoices('plan mode')?.roundTrips]).toEqual([3, 3]);
    expect(invoices('code mode')?.roundTrips).toBe(2);
    expect(outcome.stdout).toMatch(
      /── invoices · code mode\n(.*\n)*? {2}\[\+ +\d+\.\d{3} s\] tool list_invoices \{"customer":"ACME"\} started early, while model call 1 was still writing/,
    );
    expect(outcome.stdout).toMatch(/tool get_invoice \{"id":"INV-9"\} started\n/);
    expect(outcome.stdout).toMatch(/program: 6 steps in \d+ ms/);

    // The same numbers as the runs returned.
    for (const run of outcome.runs) {
      expect(run.result.finishReason).toBe('final-answer');
      expect(run.answer).toBe(EXPECTED_ANSWERS[run.task.id]);
      if (run.task.id === 'orders')
        expect(run.result.output).toMatchObject({ customer: 'ACME', delayedOrders: 3 });
      else expect(run.result.text).toBe(EXPECTED_ANSWERS[run.task.id]);
    }

    // One timeline per function-calling and plan run, each path printed.
    expect(outcome.timelines.map((file) => basename(file))).toEqual(
      DEMO_TASKS.flatMap((task) => [`${task.id}-native.svg`, `${task.id}-plan.svg`, `${task.id}-code.svg`]),
    );
    for (const file of outcome.timelines) expect(outcome.stdout).toContain(file);
  });

  it('writes well-formed SVG timelines: the model calls, one bar per plan step, the critical path marked', async () => {
    const outcome = await demo(['--out', outDir, '--quiet']);
    expect(outcome.exitCode).toBe(0);
    // A fan-out task runs two plans (the list, then one step per item): drawn below, with its program.
    for (const task of DEMO_TASKS.filter((entry) =>
      entry.calls.every((call) => call.forEach === undefined),
    )) {
      const svg = readFileSync(join(outDir, `${task.id}-plan.svg`), 'utf8');
      assertWellFormedXml(svg);
      expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
      const bars = [
        ...svg.matchAll(
          /<rect class="(step(?: critical)?(?: early)?)" data-step="([^"]+)" data-status="([^"]+)" data-start-ms="(\d+)" data-end-ms="(\d+)"/g,
        ),
      ].map(([, classes = '', id = '', status = '', startMs = '', endMs = '']) => ({
        critical: classes.startsWith('step critical'),
        id,
        status,
        startMs: Number(startMs),
        endMs: Number(endMs),
      }));
      expect(bars.map((bar) => bar.id)).toEqual(task.calls.map((call) => call.id));
      // The model's two calls (the plan, the answer) on the same axis, each with its time to first token.
      expect(
        svg.match(/<rect class="model-call" data-model-call="\d+"[^>]* data-first-token-ms="\d+"/g),
      ).toHaveLength(2);

      // The critical path (when its steps start depends on how fast the model writes the plan, as steps are
      // dispatched while it streams): it ends with the last step to finish (of those that ran), each step on it
      // waited for the one before, and a first step that waited for something other than a step waited for the
      // model writing it.
      const critical = bars.filter((bar) => bar.critical);
      expect(critical.length).toBeGreaterThan(0);
      const ran = bars.filter((bar) => bar.status !== 'skipped');
      expect(critical.at(-1)?.endMs).toBe(Math.max(...ran.map((bar) => bar.endMs)));
      const dependencies = new Map(task.calls.map((call) => [call.id, referencedSteps(call.arguments)]));
      critical.forEach((bar, index) => {
        const previous = critical[index - 1];
        if (previous !== undefined) expect(dependencies.get(bar.id)).toContain(previous.id);
      });
      const described = new RegExp(
        `critical path: (model call 1 → )?${critical.map((bar) => bar.id).join(' → ')} ·`,
      ).exec(svg);
      expect(described, `${task.id}: ${critical.map((bar) => bar.id).join(' → ')}`).not.toBeNull();
      const first = critical[0];
      if (described?.[1] === undefined) {
        expect(dependencies.get(first?.id ?? '')).toEqual([]);
      }
      if (critical.length > 1 || described?.[1] !== undefined) expect(svg).toContain('class="critical-path"');
    }
    // Function calling: the eager lookups start inside the first model call's bar.
    const weather = readFileSync(join(outDir, 'weather-native.svg'), 'utf8');
    assertWellFormedXml(weather);
    const firstCall = /<rect class="model-call" data-model-call="1"[^>]* data-end-ms="(\d+)"/.exec(weather);
    const early = [
      ...weather.matchAll(/<rect class="tool-call early" data-tool-call="(\w+)"[^>]* data-start-ms="(\d+)"/g),
    ];
    expect(early.map((bar) => bar[1])).toEqual(['paris', 'rome', 'oslo']);
    for (const bar of early) expect(Number(bar[2])).toBeLessThan(Number(firstCall?.[1]));
    const prices = readFileSync(join(outDir, 'prices-plan.svg'), 'utf8');
    expect(prices).toContain('data-step="globex" data-status="error"');
    expect(prices).toContain('data-step="convert" data-status="skipped"');
    expect(prices).toContain('skipped (globex failed)');

    // Code mode: the program's calls drawn as steps under the code call, named by their order in the program; the
    // list call started while the model was still writing the program (its argument a literal).
    const program = readFileSync(join(outDir, 'invoices-code.svg'), 'utf8');
    assertWellFormedXml(program);
    const steps = [...program.matchAll(/<rect class="step[^"]*" data-step="([^"]+)" data-status="(\w+)"/g)];
    // The list call started early (`early 1`): the program took its result as its first call; then one per invoice.
    // An invoice call starts early too when a prefix run of the program, made while the answer still streams, reaches
    // it after the list's result came (a matter of timing: `early n`), else when the program runs (`#n`).
    expect(steps.map((step) => step[2])).toEqual(Array(6).fill('success'));
    expect(steps[0]?.[1]).toBe('early 1');
    const rest = steps.slice(1).map((step) => step[1]);
    for (const label of rest) expect(label).toMatch(/^(#|early )[2-6]$/);
    expect(new Set(rest).size).toBe(5);
    expect(program).toMatch(/<rect class="step[^"]* early" data-step="early 1"/);
    expect(program.match(/<rect class="model-call" data-model-call="\d+"/g)).toHaveLength(2);
    const plans = readFileSync(join(outDir, 'invoices-plan.svg'), 'utf8');
    expect(plans.match(/<rect class="model-call" data-model-call="\d+"/g)).toHaveLength(3);
    expect([...plans.matchAll(/data-step="([^"]+)"/g)].map((match) => match[1])).toEqual([
      'list',
      ...[1, 2, 3, 4, 5].map((n) => `invoice_${n}`),
    ]);
  });

  it('runs one task in one mode and prints the usage on --help', async () => {
    const one = await demo(['--', '--task', 'orders', '--mode=plan', '--out', outDir, '--latency', 'slow']);
    expect(one.exitCode).toBe(0);
    expect(tableRows(one.stdout).map((row) => `${row.task}/${row.mode}`)).toEqual(['orders/plan mode']);
    const help = await demo(['--help']);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain('Usage: org-demo');
    expect(help.stdout).toContain('--no-eager');
  });

  it('--no-eager waits for each whole answer: nothing starts early, and the same run takes longer', async () => {
    const argv = ['--task', 'weather', '--mode', 'native', '--out', outDir];
    const eager = await demo(argv);
    const waiting = await demo([...argv, '--no-eager']);
    expect([eager.exitCode, waiting.exitCode]).toEqual([0, 0]);
    expect(eager.stdout).toContain('started early');
    expect(waiting.stdout).not.toContain('started early');
    expect(waiting.runs[0]?.answer).toBe(EXPECTED_ANSWERS.weather);
    // Simulated time on a virtual clock is deterministic: compared, not timed.
    expect(waiting.runs[0]?.wallTimeMs).toBeGreaterThan(
      eager.runs[0]?.wallTimeMs ?? Number.POSITIVE_INFINITY,
    );
  });

  it('--structured-output native asks the offline model for the typed answer natively', async () => {
    const native = await demo([
      '--task',
      'orders',
      '--mode',
      'plan',
      '--structured-output',
      'native',
      '--out',
      outDir,
    ]);
    expect(native.exitCode).toBe(0);
    expect(native.stdout).toContain('typed answer (OrdersReport, as native structured output), validated:');
    expect(native.runs[0]?.answer).toBe(EXPECTED_ANSWERS.orders);
    const bad = await demo(['--structured-output', 'natve']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("--structured-output: unknown value 'natve' (did you mean 'native'?)");
  });

  it('on a terminal, prints the model text inline as it streams', async () => {
    const tty = await demo(['--task', 'prices', '--mode', 'native', '--out', outDir], {}, true);
    expect(tty.exitCode).toBe(0);
    expect(tty.stdout).toMatch(
      /\[\+ +\d+\.\d{3} s\] model call 2 writes: Cheapest that answered: contoso at €315 \(northwind €329\)\. Globex could not be checked: its price service failed\.\n/,
    );
    expect(tty.stdout).not.toContain('wrote, streamed from');
  });

  it('rejects a bad flag or value with exit code 2 and a did-you-mean', async () => {
    const badMode = await demo(['--mode', 'reactt']);
    expect(badMode.exitCode).toBe(2);
    expect(badMode.stderr).toBe(
      "org-demo: --mode: unknown value 'reactt' (did you mean 'react'?); expected react, native, plan, code.\n",
    );
    const badFlag = await demo(['--taks', 'weather']);
    expect(badFlag.exitCode).toBe(2);
    expect(badFlag.stderr).toContain("unknown argument '--taks' (did you mean '--task'?)");
    const noValue = await demo(['--out']);
    expect(noValue.stderr).toContain('--out needs a value');
  });
});
