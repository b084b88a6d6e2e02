import type { PlanResult } from '@org/plan-executor';

/** One step of a plan run, placed in time (milliseconds from the plan's start). */
export interface TimelineStep {
  readonly id: string;
  readonly tool: string;
  /** `success`, `error`, `skipped`, `timeout`, ... */
  readonly status: string;
  /** Steps whose output this one references. */
  readonly dependsOn: readonly string[];
  /** Offset of the start; for a step that never ran, its finish. */
  readonly startMs: number;
  readonly endMs: number;
  readonly ran: boolean;
  /** On the chain of steps that decided when the plan finished. */
  readonly critical: boolean;
  /** For a skipped step: the failed step it traces back to. */
  readonly skippedBecauseOf?: string;
}

/** A plan run, ready to draw. */
export interface PlanTimeline {
  readonly title: string;
  readonly durationMs: number;
  readonly steps: readonly TimelineStep[];
  /** The critical path, first step first. */
  readonly criticalPath: readonly string[];
}

const REFERENCE = /\$ref:([A-Za-z0-9_-]+)/g;

/**
 * The step ids an argument value references (`$ref:<id>...`, anywhere in strings, arrays and objects).
 *
 * @example
 * referencedSteps({ readings: ['$ref:paris', 'from $ref:rome.temperatureC'] }); // ['paris', 'rome']
 */
export function referencedSteps(value: unknown): string[] {
  const found = new Set<string>();
  const visit = (item: unknown): void => {
    if (typeof item === 'string') {
      for (const match of item.matchAll(REFERENCE)) if (match[1] !== undefined) found.add(match[1]);
    } else if (Array.isArray(item)) {
      item.forEach(visit);
    } else if (typeof item === 'object' && item !== null) {
      Object.values(item).forEach(visit);
    }
  };
  visit(typeof value === 'string' ? parseJson(value) : value);
  return [...found];
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The timeline of a plan run: each step's start and end relative to the plan's start, and the critical path, found
 * by walking back from the last step to finish through the dependency that finished last (the one it waited for).
 *
 * @example
 * const timeline = buildPlanTimeline('weather', result, planArguments);
 * timeline.criticalPath; // ['oslo', 'compare']
 */
export function buildPlanTimeline(title: string, result: PlanResult, plan: unknown): PlanTimeline {
  const rawSteps = readSteps(plan);
  const origin = result.startedAt;
  const placed = result.steps.map((step) => {
    const raw = rawSteps.get(step.id);
    const ran = step.startedAt !== undefined;
    const endMs = (step.finishedAt ?? result.finishedAt) - origin;
    return {
      id: step.id,
      tool: step.tool,
      status: step.status,
      dependsOn: raw === undefined ? [] : referencedSteps(raw).filter((id) => id !== step.id),
      startMs: ran ? (step.startedAt as number) - origin : endMs,
      endMs,
      ran,
      ...(step.skippedBecauseOf === undefined ? {} : { skippedBecauseOf: step.skippedBecauseOf }),
    };
  });
  const byId = new Map(placed.map((step) => [step.id, step]));
  const critical: string[] = [];
  let current = [...placed].filter((step) => step.ran).sort((a, b) => b.endMs - a.endMs)[0];
  while (current !== undefined && !critical.includes(current.id)) {
    critical.unshift(current.id);
    current = current.dependsOn
      .map((id) => byId.get(id))
      .filter((step): step is NonNullable<typeof step> => step?.ran === true)
      .sort((a, b) => b.endMs - a.endMs)[0];
  }
  return {
    title,
    durationMs: result.finishedAt - origin,
    steps: placed.map((step) => ({ ...step, critical: critical.includes(step.id) })),
    criticalPath: critical,
  };
}

function readSteps(plan: unknown): Map<string, unknown> {
  const steps = new Map<string, unknown>();
  const parsed = typeof plan === 'string' ? parseJson(plan) : plan;
  const list =
    typeof parsed === 'object' && parsed !== null ? (parsed as { steps?: unknown }).steps : undefined;
  if (!Array.isArray(list)) return steps;
  for (const step of list) {
    if (typeof step === 'object' && step !== null) {
      const { id, arguments: args } = step as { id?: unknown; arguments?: unknown };
      if (typeof id === 'string') steps.set(id, args);
    }
  }
  return steps;
}

const ROW = 30;
const BAR = 18;
const CHART_WIDTH = 640;
const TOP = 56;

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
};

/**
 * A self-contained SVG of a plan run: one bar per step against time, the critical path outlined and joined,
 * a time axis, and a legend. Each bar is a `rect` with `class="step"` (plus `critical` when on the path) and
 * `data-step`, `data-status`, `data-start-ms`, `data-end-ms`.
 *
 * @example
 * writeFileSync('weather-plan.svg', renderTimelineSvg(timeline));
 */
export function renderTimelineSvg(timeline: PlanTimeline): string {
  // Room for the longest "id · tool" label at about 7 px per character of the 12 px font.
  const labelWidth = Math.max(
    160,
    ...timeline.steps.map((item) => Math.ceil(`${item.id} · ${item.tool}`.length * 7) + 24),
  );
  const duration = Math.max(timeline.durationMs, 1);
  const scale = CHART_WIDTH / duration;
  const height = TOP + timeline.steps.length * ROW + 60;
  const width = labelWidth + CHART_WIDTH + 40;
  const x = (ms: number): number => Math.round((labelWidth + ms * scale) * 10) / 10;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
    `<title>${escapeXml(`${timeline.title}: plan timeline`)}</title>`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="12" y="22" font-size="15" font-weight="600">${escapeXml(timeline.title)}</text>`,
    `<text x="12" y="40" fill="#555">${escapeXml(
      `${timeline.steps.length} steps in ${Math.round(timeline.durationMs)} ms; critical path: ${timeline.criticalPath.join(' → ') || 'none'}`,
    )}</text>`,
  );
  const step = tickStep(duration);
  const axisY = TOP + timeline.steps.length * ROW + 8;
  parts.push('<g class="axis" stroke="#ddd">');
  for (let tick = 0; tick <= duration + 0.001; tick += step) {
    parts.push(`<line x1="${x(tick)}" y1="${TOP - 4}" x2="${x(tick)}" y2="${axisY}"/>`);
  }
  parts.push('</g><g class="ticks" fill="#555" text-anchor="middle">');
  for (let tick = 0; tick <= duration + 0.001; tick += step) {
    parts.push(`<text x="${x(tick)}" y="${axisY + 14}">${tick} ms</text>`);
  }
  parts.push('</g>');
  const centers = new Map<string, { start: number; end: number; y: number }>();
  timeline.steps.forEach((item, index) => {
    const y = TOP + index * ROW;
    const start = x(item.startMs);
    const barWidth = Math.max(x(item.endMs) - start, 2);
    centers.set(item.id, { start, end: start + barWidth, y: y + BAR / 2 });
    const label = `${item.id} · ${item.tool}`;
    const classes = item.critical ? 'step critical' : 'step';
    const stroke = item.critical ? ' stroke="#d1242f" stroke-width="2.5"' : '';
    const fill = COLORS[item.status] ?? '#888';
    const detail = item.ran
      ? `${item.id} (${item.tool}): ${item.status}, ${Math.round(item.startMs)}–${Math.round(item.endMs)} ms`
      : `${item.id} (${item.tool}): ${item.status}, never ran`;
    parts.push(
      `<text x="${labelWidth - 8}" y="${y + 13}" text-anchor="end">${escapeXml(label)}</text>`,
      `<rect class="${classes}" data-step="${escapeXml(item.id)}" data-status="${escapeXml(item.status)}" data-start-ms="${Math.round(item.startMs)}" data-end-ms="${Math.round(item.endMs)}" x="${start}" y="${y}" width="${Math.round(barWidth * 10) / 10}" height="${BAR}" rx="3" fill="${fill}"${stroke}${item.ran ? '' : ' fill-opacity="0.5"'}><title>${escapeXml(detail)}</title></rect>`,
    );
    if (item.status !== 'success') {
      const note =
        item.skippedBecauseOf === undefined
          ? item.status
          : `${item.status} (${item.skippedBecauseOf} failed)`;
      parts.push(`<text x="${start + barWidth + 6}" y="${y + 13}" fill="${fill}">${escapeXml(note)}</text>`);
    }
  });
  const path = timeline.criticalPath
    .map((id) => centers.get(id))
    .filter((point): point is { start: number; end: number; y: number } => point !== undefined);
  if (path.length > 1) {
    const points = path
      .flatMap((point) => [`${point.start},${point.y}`, `${point.end},${point.y}`])
      .join(' ');
    parts.push(
      `<polyline class="critical-path" points="${points}" fill="none" stroke="#d1242f" stroke-width="1.5" stroke-dasharray="4 3"/>`,
    );
  }
  const legendY = height - 16;
  parts.push(
    `<g class="legend"><rect x="12" y="${legendY - 10}" width="14" height="10" fill="${COLORS.success}" stroke="#d1242f" stroke-width="2"/>`,
    `<text x="32" y="${legendY}">critical path</text>`,
    `<rect x="130" y="${legendY - 10}" width="14" height="10" fill="${COLORS.success}"/><text x="150" y="${legendY}">success</text>`,
    `<rect x="215" y="${legendY - 10}" width="14" height="10" fill="${COLORS.error}"/><text x="235" y="${legendY}">error</text>`,
    `<rect x="285" y="${legendY - 10}" width="14" height="10" fill="${COLORS.skipped}"/><text x="305" y="${legendY}">skipped</text></g>`,
    '</svg>',
  );
  return `${parts.join('\n')}\n`;
}
