import type { Action } from '@org/core';
import { formatObservationForModel, type ToolObservation } from '@org/tools';
import { canonicalJson } from './argument-leak.js';
import { ToolCallLoopError } from './errors.js';

/**
 * The loop guard counts repeats without progress: the same call (tool and arguments) that returned the same result
 * (what the model read of it) as the last time. A call whose result changed, such as a poll of a job whose status
 * moved on, starts counting again. After `maximum` such results in a row, the same call is refused and the run ends
 * with `loop-guard`. Its counts are plain data, saved in a paused run's state.
 */
export class LoopGuard {
  /** Per call: how many times in a row it returned the same result. */
  readonly #counts: Map<string, number>;
  /** Per call: the fingerprint of its last result. */
  readonly #results: Map<string, string>;
  readonly #maximum: number;

  constructor(
    maximum: number,
    saved: {
      readonly counts?: readonly (readonly [string, number])[];
      readonly results?: readonly (readonly [string, string])[];
    } = {},
  ) {
    this.#maximum = maximum;
    this.#counts = new Map(saved.counts ?? []);
    this.#results = new Map(saved.results ?? []);
  }

  /** The error that refuses the first of `actions` the guard stops, or undefined when all may run. */
  check(actions: readonly Action[]): ToolCallLoopError | undefined {
    for (const action of actions) {
      const repeats = this.#counts.get(callKey(action)) ?? 0;
      if (repeats >= this.#maximum) {
        return new ToolCallLoopError({
          toolName: action.toolName,
          argumentsJson: canonicalJson(action.args),
          count: repeats + 1,
          maximum: this.#maximum,
        });
      }
    }
    return undefined;
  }

  /** Records what a call returned. */
  record(action: Action, observation: ToolObservation): void {
    const key = callKey(action);
    const fingerprint = fingerprintOf(formatObservationForModel(observation));
    if (this.#results.get(key) === fingerprint) {
      this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
    } else {
      this.#results.set(key, fingerprint);
      this.#counts.set(key, 1);
    }
  }

  /** The counts, as JSON data for a paused run's state. */
  get counts(): (readonly [string, number])[] {
    return [...this.#counts];
  }

  /** The result fingerprints, as JSON data for a paused run's state. */
  get results(): (readonly [string, string])[] {
    return [...this.#results];
  }
}

function callKey(action: Action): string {
  return `${action.toolName} ${canonicalJson(action.args)}`;
}

/**
 * A short fingerprint of a result's text (its length and two 32-bit FNV-1a hashes with different seeds), so the
 * guard keeps a few bytes per call, not every output, and a paused state stays small.
 */
function fingerprintOf(text: string): string {
  let first = 0x811c9dc5;
  let second = 0x01000193 ^ text.length;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    first = Math.imul(first ^ code, 0x01000193);
    second = Math.imul(second ^ code, 0x5bd1e995) ^ (second >>> 15);
  }
  return `${text.length}:${(first >>> 0).toString(36)}:${(second >>> 0).toString(36)}`;
}
