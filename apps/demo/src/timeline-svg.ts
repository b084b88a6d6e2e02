import type { PlanTimeline, TimelineStep } from './plan-timeline.js';
import {
  type RunTimeline,
  summarizeRunTimeline,
  type TimelineModelCall,
  type TimelineToolCall,
} from './run-timeline.js';

const ROW = 28;
const BAR = 18;
const CHART_WIDTH = 720;
const TOP = 60;

function escapeXml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');
}

function tickStep(durationMs: number): number {
  const rough = Math.max(durationMs, 1) / 8;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  for (const factor of [1, 2, 5, 10]) if (factor * magnitude >= rough) return factor * magnitude;
  return 10 * magnitude;
}

const COLORS: Readonly<Record<string, string>> = {
  success: '#4c9be8',
  error: '#e5534b',
  timeout: '#e5534b',
  skipped: '#b0b7c3',
  aborted: '#b0b7c3',
  blocked: '#d4a72c',
  unfinished: '#b0b7c3',
};
/** The model: waiting for the first token (light), then generating (dark). */
const MODEL_WAIT = '#d9cff5';
const MODEL_WRITING = '#7a5bd0';
const EARLY = '#e8a33d';
const CRITICAL = '#d1242f';

type Row =
  | { readonly kind: 'model'; readonly call: TimelineModelCall }
  | { readonly kind: 'tool'; readonly call: TimelineToolCall }
  | { readonly kind: 'step'; readonly step: TimelineStep; readonly plan: PlanTimeline };

/** Ids can be long (a provider's `call_…`); a label shows the start of one. */
function shortId(id: string): string {
  return id.length <= 24 ? id : `${id.slice(0, 23)}…`;
}

function modelLabel(call: TimelineModelCall): string {
  return `model call ${call.step + 1}${call.attempt > 1 ? ` (attempt ${call.attempt})` : ''}`;
}

function rowLabel(row: Row): string {
  switch (row.kind) {
    case 'model':
      return modelLabel(row.call);
    case 'tool':
      return `${shortId(row.call.id)} · ${row.call.tool}`;
    case 'step':
      return `${row.step.id} · ${row.step.tool}`;
  }
}

/**
 * The rows top to bottom: model calls and tool calls in the order they started (a model call first on a tie: it
 * started the work), each plan's steps in the plan's order right under the call that ran the plan.
 */
function rowsOf(timeline: RunTimeline): Row[] {
  const started: { row: Row; at: number; rank: number }[] = [
    ...timeline.modelCalls.map((call) => ({
      row: { kind: 'model', call } as Row,
      at: call.startMs,
      rank: 0,
    })),
    ...timeline.toolCalls.map((call) => ({ row: { kind: 'tool', call } as Row, at: call.startMs, rank: 1 })),
  ];
  started.sort((a, b) => a.at - b.at || a.rank - b.rank);
  const rows: Row[] = [];
  const placed = new Set<PlanTimeline>();
  const stepRows = (plan: PlanTimeline): Row[] => plan.steps.map((step) => ({ kind: 'step', step, plan }));
  for (const { row } of started) {
    rows.push(row);
    if (row.kind !== 'tool') continue;
    for (const plan of timeline.plans) {
      if (plan.planId === row.call.id && !placed.has(plan)) {
        placed.add(plan);
        rows.push(...stepRows(plan));
      }
    }
  }
  for (const plan of timeline.plans) if (!placed.has(plan)) rows.push(...stepRows(plan));
  return rows;
}

/**
 * A self-contained SVG of a run against one time axis: each model call as a bar from its request to its complete
 * answer (light while waiting for the first token, dark while generating), every tool call and plan step as a bar
 * coloured by status, a band behind all rows wherever the model was generating (a bar that starts inside a band
 * started while the model was still writing, and is flagged), each plan's critical path outlined in red and joined,
 * and a legend. A plan timeline alone (`buildPlanTimeline`) is drawn as its steps.
 *
 * For tools that read it: model calls are `rect.model-call` (`data-model-call`, `data-start-ms`,
 * `data-first-token-ms` when known, `data-end-ms`, `data-status`) with a `rect.model-generation` inside them from the
 * first token on; tool calls are `rect.tool-call` (`data-tool-call`, `data-tool`, ...); plan steps are `rect.step`
 * (`data-step`, `data-status`, `data-start-ms`, `data-end-ms`); `critical` and `early` are added as classes.
 *
 * @example
 * writeFileSync('weather-plan.svg', renderTimelineSvg(run.timeline));
 */
export function renderTimelineSvg(timeline: RunTimeline | PlanTimeline): string {
  const run: RunTimeline =
    'steps' in timeline
      ? {
          title: timeline.title,
          durationMs: timeline.durationMs,
          modelCalls: [],
          toolCalls: [],
          plans: [timeline],
        }
      : timeline;
  const rows = rowsOf(run);
  // Room for the longest label at about 7 px per character of the 12 px font.
  const labelWidth = Math.max(160, ...rows.map((row) => Math.ceil(rowLabel(row).length * 7) + 24));
  const end = Math.max(
    run.durationMs,
    ...rows.map((row) => (row.kind === 'step' ? row.step.endMs : row.call.endMs)),
    1,
  );
  const scale = CHART_WIDTH / end;
  const axisY = TOP + rows.length * ROW + 6;
  const height = axisY + 62;
  const width = labelWidth + CHART_WIDTH + 40;
  const x = (ms: number): number => Math.round((labelWidth + ms * scale) * 10) / 10;
  const widthOf = (fromMs: number, toMs: number): number =>
    Math.max(Math.round((x(toMs) - x(fromMs)) * 10) / 10, 2);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
    `<title>${escapeXml(`${run.title}: run timeline`)}</title>`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="12" y="22" font-size="15" font-weight="600">${escapeXml(run.title)}</text>`,
    `<text x="12" y="40" fill="#555">${escapeXml(summarizeRunTimeline(run))}</text>`,
  ];

  // Behind everything: where the model was generating, across every row.
  parts.push('<g class="generation-bands">');
  for (const call of run.modelCalls) {
    const from = call.firstTokenMs ?? call.startMs;
    parts.push(
      `<rect class="generation-band" x="${x(from)}" y="${TOP - 6}" width="${widthOf(from, call.endMs)}" height="${rows.length * ROW + 8}" fill="${MODEL_WRITING}" fill-opacity="0.08"/>`,
    );
  }
  parts.push('</g>');

  const tick = tickStep(end);
  parts.push('<g class="axis" stroke="#ddd">');
  for (let at = 0; at <= end + 0.001; at += tick) {
    parts.push(`<line x1="${x(at)}" y1="${TOP - 6}" x2="${x(at)}" y2="${axisY}"/>`);
  }
  parts.push('</g><g class="ticks" fill="#555" text-anchor="middle">');
  for (let at = 0; at <= end + 0.001; at += tick) {
    parts.push(`<text x="${x(at)}" y="${axisY + 14}">${at} ms</text>`);
  }
  parts.push('</g>');

  const centers = new Map<TimelineStep, { start: number; end: number; y: number }>();
  /** The vertical middle of each model call's row, by its number (step + 1). */
  const modelRows = new Map<number, number>();
  rows.forEach((row, index) => {
    const y = TOP + index * ROW;
    parts.push(
      `<text x="${labelWidth - 8}" y="${y + 13}" text-anchor="end"${row.kind === 'model' ? ` fill="${MODEL_WRITING}" font-weight="600"` : ''}>${escapeXml(rowLabel(row))}</text>`,
    );
    if (row.kind === 'model') {
      modelRows.set(row.call.step + 1, y + BAR / 2);
      parts.push(modelBar(row.call, y, x, widthOf));
      return;
    }
    const item = row.kind === 'step' ? row.step : row.call;
    const start = x(item.startMs);
    const barWidth = widthOf(item.startMs, item.endMs);
    const critical = row.kind === 'step' && row.step.critical;
    const early = item.startedDuringModelCall !== undefined;
    if (row.kind === 'step') centers.set(row.step, { start, end: start + barWidth, y: y + BAR / 2 });
    const fill = COLORS[item.status] ?? '#888';
    const classes = [
      row.kind === 'step' ? 'step' : 'tool-call',
      critical ? 'critical' : '',
      early ? 'early' : '',
    ]
      .filter(Boolean)
      .join(' ');
    const identity =
      row.kind === 'step'
        ? `data-step="${escapeXml(row.step.id)}"`
        : `data-tool-call="${escapeXml(row.call.id)}" data-tool="${escapeXml(row.call.tool)}"`;
    const name =
      row.kind === 'step' ? `${row.step.id} (${row.step.tool})` : `${row.call.tool} (${row.call.id})`;
    const detail = item.ran
      ? `${name}: ${item.status}, ${Math.round(item.startMs)}–${Math.round(item.endMs)} ms${early ? `, started while model call ${item.startedDuringModelCall} was writing` : ''}`
      : `${name}: ${item.status}, never ran`;
    const stroke = critical ? ` stroke="${CRITICAL}" stroke-width="2.5"` : '';
    parts.push(
      `<rect class="${classes}" ${identity} data-status="${escapeXml(item.status)}" data-start-ms="${Math.round(item.startMs)}" data-end-ms="${Math.round(item.endMs)}" x="${start}" y="${y}" width="${barWidth}" height="${BAR}" rx="3" fill="${fill}"${stroke}${item.ran ? '' : ' fill-opacity="0.5"'}><title>${escapeXml(detail)}</title></rect>`,
    );
    if (early) {
      parts.push(
        `<path class="early-marker" d="M${start} ${y - 1} l-4 -6 h8 z" fill="${EARLY}"><title>started while the model was writing</title></path>`,
      );
    }
    if (item.status !== 'success') {
      const cause = row.kind === 'step' ? row.step.skippedBecauseOf : undefined;
      const note = cause === undefined ? item.status : `${item.status} (${cause} failed)`;
      parts.push(`<text x="${start + barWidth + 6}" y="${y + 13}" fill="${fill}">${escapeXml(note)}</text>`);
    }
  });

  for (const plan of run.plans) {
    const path = plan.criticalPath
      .map((id) => plan.steps.find((step) => step.id === id))
      .map((step) => (step === undefined ? undefined : centers.get(step)))
      .filter((point): point is { start: number; end: number; y: number } => point !== undefined);
    // A path the model's writing held up starts on that model call's bar, where it completed the first step.
    const writerY =
      plan.criticalPathAfterModelCall === undefined
        ? undefined
        : modelRows.get(plan.criticalPathAfterModelCall);
    const first = path[0];
    const from = writerY === undefined || first === undefined ? [] : [`${first.start},${writerY}`];
    if (path.length + from.length > 1) {
      const points = [
        ...from,
        ...path.flatMap((point) => [`${point.start},${point.y}`, `${point.end},${point.y}`]),
      ].join(' ');
      parts.push(
        `<polyline class="critical-path" points="${points}" fill="none" stroke="${CRITICAL}" stroke-width="1.5" stroke-dasharray="4 3"/>`,
      );
    }
  }
  parts.push(legend(height - 16, run.modelCalls.length > 0, run.plans.length > 0), '</svg>');
  return `${parts.join('\n')}\n`;
}

function modelBar(
  call: TimelineModelCall,
  y: number,
  x: (ms: number) => number,
  widthOf: (fromMs: number, toMs: number) => number,
): string {
  const firstToken =
    call.firstTokenMs === undefined ? '' : ` data-first-token-ms="${Math.round(call.firstTokenMs)}"`;
  const waited = call.firstTokenMs === undefined ? undefined : Math.round(call.firstTokenMs - call.startMs);
  const detail =
    `${modelLabel(call)}: ${call.status}, ${Math.round(call.startMs)}–${Math.round(call.endMs)} ms` +
    (waited === undefined
      ? ''
      : `; ${waited} ms to the first token, then ${Math.round(call.endMs - (call.firstTokenMs ?? call.startMs))} ms generating`) +
    (call.outputTokens === undefined ? '' : ` (${call.outputTokens} output tokens)`);
  const generation =
    call.firstTokenMs === undefined
      ? ''
      : `<rect class="model-generation" x="${x(call.firstTokenMs)}" y="${y}" width="${widthOf(call.firstTokenMs, call.endMs)}" height="${BAR}" rx="3" fill="${call.status === 'failed' ? COLORS.error : MODEL_WRITING}"/>`;
  return (
    `<g class="model">` +
    `<rect class="model-call" data-model-call="${call.step + 1}" data-attempt="${call.attempt}" data-status="${call.status}" data-start-ms="${Math.round(call.startMs)}"${firstToken} data-end-ms="${Math.round(call.endMs)}" x="${x(call.startMs)}" y="${y}" width="${widthOf(call.startMs, call.endMs)}" height="${BAR}" rx="3" fill="${MODEL_WAIT}"><title>${escapeXml(detail)}</title></rect>` +
    `${generation}</g>`
  );
}

function legend(y: number, withModel: boolean, withPlans: boolean): string {
  const items: string[] = [];
  let at = 12;
  const swatch = (fill: string, label: string, extra = ''): void => {
    items.push(
      `<rect x="${at}" y="${y - 10}" width="14" height="10" fill="${fill}"${extra}/><text x="${at + 20}" y="${y}">${escapeXml(label)}</text>`,
    );
    at += 20 + label.length * 6.5 + 18;
  };
  if (withModel) {
    swatch(MODEL_WAIT, 'waiting for the first token');
    swatch(MODEL_WRITING, 'model writing');
  }
  swatch(COLORS.success as string, 'success');
  swatch(COLORS.error as string, 'error');
  swatch(COLORS.skipped as string, 'skipped');
  if (withPlans) swatch(COLORS.success as string, 'critical path', ` stroke="${CRITICAL}" stroke-width="2"`);
  if (withModel) {
    items.push(
      `<path d="M${at + 7} ${y - 1} l-4 -6 h8 z" fill="${EARLY}"/><text x="${at + 20}" y="${y}">started while the model was writing</text>`,
    );
  }
  return `<g class="legend">${items.join('')}</g>`;
}
