import { type RunEvent, readStrictJson } from '@org/core';
import { TOOL_PLAN_TOOL_NAME } from '@org/plan-executor';
import { MODE_LABELS, type ModeRun, type TypedOutput } from './run-mode.js';

/**
 * Milliseconds as seconds with three decimals (`2.353 s`).
 *
 * @example
 * seconds(2353); // '2.353 s'
 */
export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(3)} s`;
}

/**
 * The stamp that starts a live line: the time since the run started, on the run's clock.
 *
 * @example
 * stamp(2353); // '  [+  2.353 s]'
 */
export function stamp(sinceStartMs: number): string {
  return `  [+${seconds(sinceStartMs).padStart(9)}]`;
}

/** What a live line adds for a tool call or plan step that started before the model had finished its answer. */
export interface EarlyStart {
  /** The model call that was still writing (its step + 1). */
  readonly modelCall: number;
  /** The call started before its own arguments were complete (a tool that reads them as they stream). */
  readonly argumentsStreaming?: boolean;
}

function shortJson(value: unknown, limit = 90): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length} chars)`;
}

/**
 * One line for a live event, stamped with the time since the run started on the run's clock (simulated on a
 * virtual clock), or `undefined` for events the demo does not show.
 *
 * @example
 * onEvent: (event) => { const line = describeEvent(event, startedAt); if (line) console.log(line); }
 */
export function describeEvent(
  event: RunEvent,
  startedAt: number,
  options: {
    /** ReAct: the tools are described in the system prompt, not sent as native tools. */
    readonly toolsInPrompt?: boolean;
    /** A `tool-call-started` or `plan-step-started` that came before the model finished writing its answer. */
    readonly early?: EarlyStart;
    /**
     * A `tool-call-arguments-complete` of a call that already started on its streaming arguments (its
     * `tool-call-started` carried `{}`): shown, with the arguments that start could not show. Otherwise the event is
     * not shown: the call's `tool-call-started` shows its arguments.
     */
    readonly callStarted?: boolean;
  } = {},
): string | undefined {
  const at = stamp(event.timestamp - startedAt);
  const early =
    options.early === undefined
      ? ''
      : ` early, while model call ${options.early.modelCall} was still writing`;
  switch (event.type) {
    case 'inference-started': {
      const tools = options.toolsInPrompt === true ? 'tools in the prompt' : `${event.toolCount} tools`;
      return `${at} model call ${event.step + 1} → ${event.messageCount} messages, ${tools}, tool choice ${event.toolChoice.type}`;
    }
    case 'inference-finished': {
      const answer =
        event.toolCalls.length === 0
          ? 'answered with text'
          : `asked for ${event.toolCalls.length} tool call${event.toolCalls.length === 1 ? '' : 's'}: ${event.toolCalls
              .map((call) => call.toolName)
              .join(', ')}`;
      return `${at} model call ${event.step + 1} ← ${answer} (${event.usage.inputTokens} in / ${event.usage.outputTokens} out tokens, ${Math.round(event.durationMs)} ms)`;
    }
    case 'tool-call-started': {
      const args =
        options.early?.argumentsStreaming === true
          ? '(its arguments still streaming)'
          : shortJson(event.action.args);
      return `${at} tool ${event.action.toolName} ${args} started${early}`;
    }
    case 'tool-call-arguments-complete': {
      if (options.callStarted !== true) return undefined;
      // Raw text from the model: shown parsed when it is JSON, else as the text it is.
      const read = readStrictJson(event.arguments);
      return `${at} tool ${event.toolName} arguments complete: ${shortJson(read.ok ? read.value : event.arguments)}`;
    }
    case 'tool-call-finished': {
      const observation = event.observation;
      const error = observation.error === undefined ? '' : `: ${observation.error.message}`;
      // A plan call succeeds as a call even when some of its steps failed: show the plan's own status.
      const plan = observation.toolName === TOOL_PLAN_TOOL_NAME ? planOutcome(observation.output) : undefined;
      if (observation.status === 'success' && plan !== undefined) {
        return `${at} tool ${observation.toolName} ${plan.status} after ${Math.round(observation.durationMs)} ms: ${plan.summary}`;
      }
      return `${at} tool ${observation.toolName} ${observation.status} after ${Math.round(observation.durationMs)} ms${error}`;
    }
    case 'plan-step-started':
      return `${at}     plan step ${event.stepId} (${event.toolName}) started${early}`;
    case 'plan-step-finished': {
      const error = event.error === undefined ? '' : `: ${event.error.message}`;
      return `${at}     plan step ${event.stepId} (${event.toolName}) ${event.status} after ${Math.round(event.durationMs)} ms${error}`;
    }
    case 'validation-failed':
      return `${at} call ${event.toolName} rejected (${event.error.code}): ${event.error.message}`;
    case 'decision-extraction-failed':
      return `${at} unreadable ReAct decision (attempt ${event.attempt}): ${event.message}`;
    case 'adjustment':
      return `${at} adjustment (${event.adjustment.kind}): ${event.adjustment.message}`;
    case 'tool-call-intercepted':
      return `${at} tool ${event.toolName} ${event.decision}: ${event.reason}`;
    case 'run-finished':
      return `${at} run finished: ${event.reason} after ${event.steps} steps`;
    default:
      return undefined;
  }
}

/** The status and summary of a plan call's output (the text `formatPlanResult` wrote), when it has them. */
function planOutcome(output: unknown): { readonly status: string; readonly summary: string } | undefined {
  if (typeof output !== 'string') return undefined;
  const read = readStrictJson(output);
  if (!read.ok || typeof read.value !== 'object' || read.value === null) return undefined;
  const field = (name: string): unknown =>
    Object.hasOwn(read.value as object, name) ? (read.value as Record<string, unknown>)[name] : undefined;
  const status = field('status');
  const summary = field('summary');
  return typeof status === 'string' && typeof summary === 'string' ? { status, summary } : undefined;
}

function ratio(value: number, base: number | undefined): string {
  if (base === undefined || base === 0) return '—';
  return `${(value / base).toFixed(2)}x`;
}

/**
 * The comparison table: per task and mode, LLM round trips, input and output tokens, wall time (simulated on a
 * virtual clock), input tokens and time relative to ReAct on the same task, and the final answer in full. On a
 * virtual clock, the wall time of a task whose tools ran on a real server (an MCP server) is marked `*`: it adds the
 * calls' measured real time, and a note under the table says so.
 *
 * @example
 * console.log(formatComparisonTable(runs, { simulated: true }));
 */
export function formatComparisonTable(
  runs: readonly ModeRun[],
  options: { readonly simulated: boolean },
): string {
  const header = [
    'task',
    'mode',
    'round trips',
    'input tokens',
    'output tokens',
    options.simulated ? 'wall time (simulated)' : 'wall time',
    'input vs ReAct',
    'time vs ReAct',
    'final answer',
  ];
  const rows = runs.map((run) => {
    const react = runs.find((other) => other.task.id === run.task.id && other.mode === 'react');
    const answer =
      run.answer ??
      `(${run.result.finishReason}${run.result.finishDetail === undefined ? '' : `: ${run.result.finishDetail}`})`;
    return [
      run.task.id,
      MODE_LABELS[run.mode],
      String(run.result.roundTrips),
      String(run.result.usage.inputTokens),
      String(run.result.usage.outputTokens),
      // A connected task's tools ran for real (an MCP server): its wall time adds their measured real time.
      `${seconds(run.wallTimeMs)}${options.simulated && run.connectedTools !== undefined ? '*' : ''}`,
      ratio(run.result.usage.inputTokens, react?.result.usage.inputTokens),
      ratio(run.wallTimeMs, react?.wallTimeMs),
      answer,
    ];
  });
  const widths = header.map((title, column) =>
    column === header.length - 1 ? 0 : Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)),
  );
  const numeric = new Set([2, 3, 4, 5, 6, 7]);
  const line = (cells: readonly string[]): string =>
    `| ${cells
      .map((cell, column) =>
        column === cells.length - 1
          ? cell
          : numeric.has(column)
            ? cell.padStart(widths[column] ?? 0)
            : cell.padEnd(widths[column] ?? 0),
      )
      .join(' | ')} |`;
  const separator = `|${widths.map((width, column) => (column === widths.length - 1 ? '-'.repeat(14) : '-'.repeat(width + 2))).join('|')}|`;
  const connected = [
    ...new Map(
      runs.flatMap((run) =>
        run.connectedTools === undefined ? [] : [[run.task.id, run.connectedTools.source] as const],
      ),
    ),
  ];
  const notes =
    options.simulated && connected.length > 0
      ? [
          `* simulated model time plus the measured real time of the tool calls, made to a real server (${connected
            .map(([task, source]) => `${task}: ${source}`)
            .join('; ')})`,
        ]
      : [];
  return [line(header), separator, ...rows.map(line), ...notes].join('\n');
}

/**
 * A typed final answer, field by field (each value as JSON), under a line naming its schema and how the model was
 * asked for it.
 *
 * @example
 * for (const line of formatTypedOutput(run.typedOutput)) console.log(`   ${line}`);
 * // typed answer (OrdersReport, through the final_answer tool), validated:
 * //   customer          "ACME"
 */
export function formatTypedOutput(typed: TypedOutput): string[] {
  const via =
    typed.route === 'final_answer tool'
      ? 'through the final_answer tool'
      : typed.route === 'native structured output'
        ? 'as native structured output'
        : 'as JSON in the ReAct answer';
  const fields =
    typeof typed.value === 'object' && typed.value !== null && !Array.isArray(typed.value)
      ? Object.entries(typed.value)
      : [['(value)', typed.value] as const];
  const width = Math.max(...fields.map(([name]) => name.length));
  return [
    `typed answer (${typed.name}, ${via}), validated:`,
    ...fields.map(([name, value]) => `  ${name.padEnd(width)}  ${JSON.stringify(value) ?? 'undefined'}`),
  ];
}
