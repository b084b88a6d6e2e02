import type { Clock } from '@org/core';

/**
 * The time of a durable run, read from its journal: the moment the run started (journaled once), moved forward to
 * the moment each journaled effect finished. A replay therefore reads the same times as the first execution did,
 * whatever the wall clock says, and the run's timestamps and step durations stay those of the first execution.
 * Within a step nothing is journaled, so time stands still there: what a tool measures of itself (an observation's
 * `durationMs`) is measured inside its journaled call, on the wall clock.
 */
export class JournalClock {
  #now: number;

  constructor(startedAt: number) {
    this.#now = startedAt;
  }

  readonly now = (): number => this.#now;

  /** Moves the clock to `at`, the wall time a journaled effect finished (never backwards). */
  advanceTo(at: unknown): void {
    if (typeof at === 'number' && Number.isFinite(at) && at > this.#now) this.#now = at;
  }

  /**
   * As a plan executor's `Clock`. A durable plan has no wall-clock deadline of its own (each step's deadline is kept
   * inside its journaled call), so `sleep` is never asked for; if it is, it fails loudly rather than time anything.
   */
  asPlanClock(): Clock {
    return {
      now: this.now,
      sleep: () => {
        throw new Error(
          'A plan in a durable run has no wall-clock deadline: give the run `toolTimeoutMs` (each step keeps it inside its journaled call).',
        );
      },
    };
  }
}
