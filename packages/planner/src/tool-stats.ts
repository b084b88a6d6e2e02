import type { ObservationStatus } from '@org/core';

/** How often the model chose one tool, and how those calls ended. */
export interface ToolSelectionStats {
  /** Calls the model made to this tool (valid or not). */
  readonly chosen: number;
  readonly succeeded: number;
  /** Ran and failed, or timed out. */
  readonly failed: number;
  /** Rejected before running: unparseable or invalid arguments, an unknown tool. */
  readonly invalid: number;
  /** Refused by a hook, or denied approval. */
  readonly blocked: number;
  /** Not run: beyond the parallel limit, stopped by the loop guard, or aborted. */
  readonly skipped: number;
}

/**
 * Per-tool statistics, keyed by the tool name the model used (unknown names included). A null-prototype object:
 * a name such as `__proto__`, `constructor` or `toString` is an ordinary own key, and a lookup of a name the model
 * never used is `undefined` (read it with `Object.hasOwn` or `?.`, never through `in`).
 */
export type ToolStats = Readonly<Record<string, ToolSelectionStats>>;

const EMPTY: ToolSelectionStats = { chosen: 0, succeeded: 0, failed: 0, invalid: 0, blocked: 0, skipped: 0 };

/** An empty statistics record (null prototype), or a copy of `from` with each entry's fields. */
export function createToolStats(from?: ToolStats): Record<string, ToolSelectionStats> {
  const stats = Object.create(null) as Record<string, ToolSelectionStats>;
  if (from !== undefined)
    for (const name of Object.keys(from)) stats[name] = from[name] as ToolSelectionStats;
  return stats;
}

/** Adds one call's outcome to the statistics (a record made by `createToolStats`). */
export function recordToolOutcome(
  stats: Record<string, ToolSelectionStats>,
  toolName: string,
  outcome: ObservationStatus | 'invalid',
): void {
  // Own properties only: a model-chosen name never reads an inherited value (`stats` has no prototype; this keeps
  // it right for a plain record too).
  const current = Object.hasOwn(stats, toolName) ? (stats[toolName] as ToolSelectionStats) : EMPTY;
  const field: keyof ToolSelectionStats =
    outcome === 'success'
      ? 'succeeded'
      : outcome === 'invalid'
        ? 'invalid'
        : outcome === 'blocked'
          ? 'blocked'
          : outcome === 'skipped' || outcome === 'aborted'
            ? 'skipped'
            : 'failed';
  const next = { ...current, chosen: current.chosen + 1, [field]: current[field] + 1 };
  // A data property, whatever the name: on a plain object, `stats['__proto__'] = ...` would replace its prototype.
  Object.defineProperty(stats, toolName, {
    value: next,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
