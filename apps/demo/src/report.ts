import type { RunEvent } from '@org/core';
import { TOOL_PLAN_TOOL_NAME } from '@org/plan-executor';
import { MODE_LABELS, type ModeRun } from './run-mode.js';

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(3)} s`;
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
  } = {},
): string | undefined {
  const stamp = `  [+${seconds(event.timestamp - startedAt).padStart(9)}]`;
  switch (event.type) {
    case 'inference-started': {
      const tools = options.toolsInPrompt === true ? 'tools in the prompt' : `${event.toolCount} tools`;
      return `${stamp} model call ${event.step + 1} → ${event.messageCount} messages, ${tools}, tool choice ${event.toolChoice.type}`;
    }
    case 'inference-finished': {
      const answer =
        event.toolCalls.length === 0
          ? 'answered with text'
          : `asked for ${event.toolCalls.length} tool call${event.toolCalls.length === 1 ? '' : 's'}: ${event.toolCalls
              .map((call) => call.toolName)
              .join(', ')}`;
      return `${stamp} model call ${event.step + 1} ← ${answer} (${event.usage.inputTokens} in / ${event.usage.outputTokens} out tokens, ${Math.round(event.durationMs)} ms)`;
    }
    case 'tool-call-started':
      return `${stamp} tool ${event.action.toolName} ${shortJson(event.action.args)} started`;
    case 'tool-call-finished': {
      const observation = event.observation;
      const error = observation.error === undefined ? '' : `: ${observation.error.message}`;
      // A plan call succeeds as a call even when some of its steps failed: show the plan's own status.
      const plan = observation.toolName === TOOL_PLAN_TOOL_NAME ? planOutcome(observation.output) : undefined;
      if (observation.status === 'success' && plan !== undefined) {
        return `${stamp} tool ${observation.toolName} ${plan.status} after ${Math.round(observation.durationMs)} ms: ${plan.summary}`;
      }
      return `${stamp} tool ${observation.toolName} ${observation.status} after ${Math.round(observation.durationMs)} ms${error}`;
    }
    case 'plan-step-started':
      return `${stamp}     plan step ${event.stepId} (${event.toolName}) started`;
    case 'plan-step-finished': {
      const error = event.error === undefined ? '' : `: ${event.error.message}`;
      return `${stamp}     plan step ${event.stepId} (${event.toolName}) ${event.status} after ${Math.round(event.durationMs)} ms${error}`;
    }
    case 'validation-failed':
      return `${stamp} call ${event.toolName} rejected (${event.error.code}): ${event.error.message}`;
    case 'decision-extraction-failed':
      return `${stamp} unreadable ReAct decision (attempt ${event.attempt}): ${event.message}`;
    case 'adjustment':
      return `${stamp} adjustment (${event.adjustment.kind}): ${event.adjustment.message}`;
    case 'tool-call-intercepted':
      return `${stamp} tool ${event.toolName} ${event.decision}: ${event.reason}`;
    case 'run-finished':
      return `${stamp} run finished: ${event.reason} after ${event.steps} steps`;
    default:
      return undefined;
  }
}

/** The status and summary of a plan call's output (the text `formatPlanResult` wrote), when it has them. */
function planOutcome(output: unknown): { readonly status: string; readonly summary: string } | undefined {
  if (typeof output !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(output);
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { status, summary } = parsed as { status?: unknown; summary?: unknown };
    return typeof status === 'string' && typeof summary === 'string' ? { status, summary } : undefined;
  } catch {
    return undefined;
  }
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
      run.result.finishReason === 'final-answer' || run.result.finishReason === 'terminal-tool'
        ? run.result.text
        : `(${run.result.finishReason}${run.result.finishDetail === undefined ? '' : `: ${run.result.finishDetail}`})`;
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
