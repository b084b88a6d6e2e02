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

/** Per-tool statistics, keyed by the tool name the model used (unknown names included). */
export type ToolStats = Readonly<Record<string, ToolSelectionStats>>;

const EMPTY: ToolSelectionStats = { chosen: 0, succeeded: 0, failed: 0, invalid: 0, blocked: 0, skipped: 0 };

/** Adds one call's outcome to the statistics. */
export function recordToolOutcome(
  stats: Record<string, ToolSelectionStats>,
  toolName: string,
  outcome: ObservationStatus | 'invalid',
): void {
  const current = stats[toolName] ?? EMPTY;
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
  stats[toolName] = { ...current, chosen: current.chosen + 1, [field]: current[field] + 1 };
}
