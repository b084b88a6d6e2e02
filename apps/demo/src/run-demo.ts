import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorMessageOf, type LanguageModel, OrgError, type ToolChoice } from '@org/core';
import {
  type Clock,
  countTokens,
  createVirtualClock,
  LATENCY_PROFILES,
  realClock,
} from '@org/provider-scripted';
import { parseAgentConfig } from './agent-config.js';
import { agentConfigToTask } from './agent-task.js';
import type { DemoTask } from './demo-task.js';
import { type DemoUi, startDemoUi } from './devtools-ui.js';
import { DemoUsageError } from './errors.js';
import { createLiveTrace } from './live-trace.js';
import { createOfflineModel } from './offline-model.js';
import { type DemoArguments, parseDemoArguments, USAGE } from './parse-args.js';
import { createProviderModel } from './providers.js';
import { formatComparisonTable, formatTypedOutput } from './report.js';
import { MODE_LABELS, type Mode, type ModeRun, runTaskInMode } from './run-mode.js';
import { summarizeRunTimeline } from './run-timeline.js';
import { DEMO_TASKS } from './tasks.js';
import { renderTimelineSvg } from './timeline-svg.js';
import { createTraceRecorder } from './trace-recorder.js';

/** Where the demo writes and reads: the output streams, the environment and the working directory. */
export interface DemoIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly environment: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /**
   * `stdout` is a terminal: the model's text is printed as it streams, inline. Default false: each stretch of
   * streamed text is printed once complete, on one stamped line (logs, CI, tests).
   */
  readonly isTTY?: boolean;
  /**
   * Stops the demo (the CLI aborts it on Ctrl-C): the run in progress ends at its next step, its servers are closed,
   * no further run starts, and the exit code is 130.
   */
  readonly signal?: AbortSignal;
}

/** What a demo run did. */
export interface DemoOutcome {
  /** 0: every run reached an answer; 1: a run failed; 2: bad arguments, agent file or credentials; 130: stopped. */
  readonly exitCode: number;
  readonly runs: readonly ModeRun[];
  /** The SVG timelines written (one per function-calling and plan run that called tools), absolute paths. */
  readonly timelines: readonly string[];
}

/**
 * The default output directory: `apps/demo/out`.
 *
 * @example
 * writeFileSync(join(DEFAULT_OUT_DIR, 'weather-plan.svg'), svg);
 */
export const DEFAULT_OUT_DIR = fileURLToPath(new URL('../out/', import.meta.url));

/**
 * The demo, callable in process: parses `argv`, runs the tasks in each mode (offline on the scripted model unless
 * `--provider` is given), prints each step live (the model's text as it streams, and the calls that started while
 * it was writing), each typed answer field by field, the comparison table and the timelines it wrote. Never throws
 * for bad input: it prints the problem and returns exit code 2.
 *
 * @example
 * const outcome = await runDemo(['--task', 'weather'], {
 *   stdout: (text) => process.stdout.write(text),
 *   stderr: (text) => process.stderr.write(text),
 *   environment: process.env,
 *   cwd: process.cwd(),
 * });
 * process.exitCode = outcome.exitCode;
 */
export async function runDemo(argv: readonly string[], io: DemoIo): Promise<DemoOutcome> {
  const print = (text = ''): void => io.stdout(`${text}\n`);
  let options: DemoArguments;
  let tasks: {
    task: DemoTask;
    modes: readonly Mode[];
    toolChoice?: ToolChoice;
    maxParallelToolCalls?: number;
    maxSteps?: number;
  }[];
  let realModel: LanguageModel | undefined;
  try {
    options = parseDemoArguments(
      argv,
      DEMO_TASKS.map((task) => task.id),
    );
    if (options.help) {
      io.stdout(USAGE);
      return { exitCode: 0, runs: [], timelines: [] };
    }
    if (options.config !== undefined) {
      const file = resolve(io.cwd, options.config);
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (error) {
        throw new DemoUsageError({
          flag: '--config',
          message: `cannot read ${options.config}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`,
        });
      }
      const config = parseAgentConfig(text, { file: options.config, environment: io.environment });
      if (options.provider === undefined && config.offline === undefined) {
        throw new DemoUsageError({
          flag: '--config',
          message: `${options.config} has no 'offline' section (the calls and answer of the offline model); add one, or run it on a real provider with --provider and --model.`,
        });
      }
      print(
        `Agent '${config.name}' from ${options.config}: ${MODE_LABELS[config.mode]}, tool choice ${config.toolChoice.type === 'tool' ? `tool ${config.toolChoice.toolName}` : config.toolChoice.type} (${config.toolChoiceSource})`,
      );
      tasks = [
        {
          task: agentConfigToTask(config),
          modes: [config.mode],
          toolChoice: config.toolChoice,
          maxSteps: config.maxSteps,
          ...(config.maxParallelToolCalls === undefined
            ? {}
            : { maxParallelToolCalls: config.maxParallelToolCalls }),
        },
      ];
    } else {
      tasks = DEMO_TASKS.filter((task) => options.tasks.includes(task.id)).map((task) => ({
        task,
        modes: options.modes,
      }));
    }
    if (options.provider !== undefined) {
      realModel = createProviderModel(options.provider, options.model ?? '', io.environment, {
        ...(options.api === undefined ? {} : { api: options.api }),
        ...(options.baseUrl === undefined ? {} : { baseURL: options.baseUrl }),
        ...(options.structuredOutput === undefined ? {} : { structuredOutput: options.structuredOutput }),
      });
    }
  } catch (error) {
    if (OrgError.isInstance(error)) {
      io.stderr(`org-demo: ${error.message}\n`);
      return { exitCode: 2, runs: [], timelines: [] };
    }
    throw error;
  }

  const outDir = options.outDir === undefined ? DEFAULT_OUT_DIR : resolve(io.cwd, options.outDir);
  const simulated = realModel === undefined && !options.realTime;
  const latency = LATENCY_PROFILES[options.latency];
  print(
    realModel === undefined
      ? `Offline run on the scripted model (${options.latency} latency: ${latency.timeToFirstTokenMs} ms to first token, ${latency.perInputTokenMs} ms per input token, ${latency.perOutputTokenMs} ms per output token; ${simulated ? 'virtual clock, times are simulated' : 'real timers'}).`
      : `Run on ${realModel.provider} ${realModel.modelId}, real time.`,
  );
  // The tokenizer is built on first use (a second or more of CPU); on real timers that would land in the first run.
  if (options.realTime && realModel === undefined) countTokens('warm up the tokenizer');
  const runs: ModeRun[] = [];
  const timelines: string[] = [];
  const traceRecorder = options.trace ? createTraceRecorder('org-demo') : undefined;
  let ui: DemoUi | undefined;
  if (options.ui) {
    try {
      ui = await startDemoUi(io.cwd, options.uiPort ?? 4319);
    } catch (error) {
      io.stderr(`org-demo: --ui: the run viewer could not start: ${errorMessageOf(error)}\n`);
      return { exitCode: 2, runs: [], timelines: [] };
    }
    print(`Run viewer: ${ui.url} (recording into ${relative(io.cwd, ui.file)})`);
  }
  const runListeners = [traceRecorder?.listener, ui?.listener].filter((listener) => listener !== undefined);
  const setupFailures: string[] = [];
  everyTask: for (const { task, modes, toolChoice, maxParallelToolCalls, maxSteps } of tasks) {
    print();
    print(`━━ ${task.title}: ${task.summary}`);
    print(`   "${task.prompt}"`);
    for (const mode of modes) {
      if (io.signal?.aborted) break everyTask;
      const clock: Clock = realModel === undefined && !options.realTime ? createVirtualClock() : realClock;
      const model =
        realModel ??
        createOfflineModel(task, mode, {
          clock,
          latency,
          structuredOutput: options.structuredOutput === 'native',
        });
      print();
      print(`── ${task.id} · ${MODE_LABELS[mode]}`);
      const trace = options.quiet
        ? undefined
        : createLiveTrace({
            startedAt: clock.now(),
            toolsInPrompt: mode === 'react',
            inline: io.isTTY === true,
            write: io.stdout,
          });
      let run: ModeRun;
      try {
        run = await runTaskInMode(task, mode, {
          model: ui === undefined ? model : ui.recordModel(model),
          clock,
          ...(io.signal === undefined ? {} : { signal: io.signal }),
          ...(toolChoice === undefined ? {} : { toolChoice }),
          ...(maxParallelToolCalls === undefined ? {} : { maxParallelToolCalls }),
          ...(maxSteps === undefined ? {} : { maxSteps }),
          ...(options.eager ? {} : { eagerToolExecution: false }),
          ...(runListeners.length === 0
            ? {}
            : {
                runListener: (event) => {
                  for (const listener of runListeners) listener(event);
                },
              }),
          ...(trace === undefined ? {} : { onEvent: trace.onEvent }),
        });
      } catch (error) {
        trace?.end();
        // A task's tools could not be opened (its MCP server did not start): the other runs go on.
        if (!OrgError.isInstance(error)) throw error;
        print(`   failed: ${error.message}`);
        setupFailures.push(`${task.id}/${mode} (${error.message})`);
        continue;
      }
      trace?.end();
      runs.push(run);
      print(`   answer: ${run.answer ?? `(${run.result.finishReason}) ${run.result.finishDetail ?? ''}`}`);
      if (run.typedOutput !== undefined) {
        for (const line of formatTypedOutput(run.typedOutput)) print(`   ${line}`);
      }
      if (run.connectedTools !== undefined) {
        const { source, realCallTimesMs } = run.connectedTools;
        const totalMs = realCallTimesMs.reduce((sum, ms) => sum + ms, 0);
        print(
          `   tools: ${source}, ${realCallTimesMs.length} call${realCallTimesMs.length === 1 ? '' : 's'} in ${Math.round(totalMs)} ms of measured real time${simulated ? ' (added to the simulated time)' : ''}`,
        );
      }
      if (traceRecorder !== undefined) {
        print('   trace:');
        for (const line of traceRecorder.takeTree().split('\n')) print(`     ${line}`);
      }
      // ReAct waits for each whole decision, so nothing there overlaps the model: its timeline would be a staircase.
      if (mode !== 'react' && run.timeline.toolCalls.length > 0) {
        mkdirSync(outDir, { recursive: true });
        const file = join(outDir, `${task.id}-${mode}.svg`);
        writeFileSync(file, renderTimelineSvg(run.timeline));
        timelines.push(file);
        const shown = relative(io.cwd, file);
        print(
          `   timeline: ${shown.startsWith('..') || isAbsolute(shown) ? file : shown} (${summarizeRunTimeline(run.timeline)})`,
        );
      }
    }
  }
  if (io.signal?.aborted) {
    await ui?.serveUntil(io.signal);
    io.stderr('org-demo: stopped.\n');
    return { exitCode: 130, runs, timelines };
  }
  print();
  print(formatComparisonTable(runs, { simulated }));
  if (timelines.length > 0) {
    print();
    print('Run timelines (open in a browser):');
    for (const file of timelines) print(`  ${file}`);
  }
  const failed = runs.filter(
    (run) => run.result.finishReason !== 'final-answer' && run.result.finishReason !== 'terminal-tool',
  );
  const failures = [
    ...failed.map(
      (run) =>
        `${run.task.id}/${run.mode} (${run.result.finishReason}${run.result.finishDetail === undefined ? '' : `: ${run.result.finishDetail}`})`,
    ),
    ...setupFailures,
  ];
  if (failures.length > 0) {
    io.stderr(`org-demo: ${failures.length} run(s) ended without an answer: ${failures.join('; ')}\n`);
  }
  if (ui !== undefined) {
    print();
    print(`Run viewer: ${ui.url} — serving until Ctrl-C.`);
    await ui.serveUntil(io.signal);
  }
  return { exitCode: failures.length > 0 ? 1 : 0, runs, timelines };
}
