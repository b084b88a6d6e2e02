import { timerDelayProblem } from '@org/core';
import { InvalidScriptError } from './errors.js';

/**
 * Simulated latency of one model call: `timeToFirstTokenMs + perInputTokenMs × input tokens` before the first
 * part, then `perOutputTokenMs` per output token.
 */
export interface LatencyProfile {
  /** Fixed cost of every call: network round trip, queueing, scheduling. */
  readonly timeToFirstTokenMs: number;
  /** Prompt processing (prefill) per input token. */
  readonly perInputTokenMs: number;
  /** Generation (decode) per output token. */
  readonly perOutputTokenMs: number;
}

/**
 * Three reference profiles: a fast hosted model, a typical hosted model, and a slow or local one. They are
 * round figures in the range providers show in practice, for comparing strategies, not for predicting a
 * particular model.
 *
 * @example
 * createScriptedModel({ script, latency: LATENCY_PROFILES.typical });
 */
export const LATENCY_PROFILES: Readonly<Record<'fast' | 'typical' | 'slow', LatencyProfile>> = Object.freeze({
  fast: Object.freeze({ timeToFirstTokenMs: 200, perInputTokenMs: 0.02, perOutputTokenMs: 5 }),
  typical: Object.freeze({ timeToFirstTokenMs: 500, perInputTokenMs: 0.1, perOutputTokenMs: 15 }),
  slow: Object.freeze({ timeToFirstTokenMs: 1500, perInputTokenMs: 0.5, perOutputTokenMs: 40 }),
});

/**
 * Throws `InvalidScriptError` unless every field is a number of milliseconds from 0 to `MAX_TIMER_DELAY_MS` of
 * `@org/core` (the shared rule `timerDelayProblem`: on a real clock a longer wait would fire after 1 ms).
 */
export function assertLatencyProfile(profile: LatencyProfile, path = 'latency'): void {
  for (const key of ['timeToFirstTokenMs', 'perInputTokenMs', 'perOutputTokenMs'] as const) {
    const value: unknown = (profile as unknown as Record<string, unknown>)[key];
    const problem = timerDelayProblem(value, { zero: true });
    if (problem !== undefined) {
      throw new InvalidScriptError({ path: `${path}.${key}`, message: `${problem}.` });
    }
  }
}

/** The simulated duration of a call, split into the wait before the first part and the generation time. */
export function simulatedLatency(
  profile: LatencyProfile | undefined,
  inputTokens: number,
  outputTokens: number,
): { readonly firstTokenMs: number; readonly generationMs: number } {
  if (profile === undefined) return { firstTokenMs: 0, generationMs: 0 };
  return {
    firstTokenMs: profile.timeToFirstTokenMs + profile.perInputTokenMs * inputTokens,
    generationMs: profile.perOutputTokenMs * outputTokens,
  };
}

/** When the tokens of one answer come out, in milliseconds from the moment its request was sent. */
export interface OutputTimeline {
  /** The wait before the first token. */
  readonly firstTokenMs: number;
  /** The last token: the whole latency `generate` spends (`firstTokenMs + generationMs`, computed as it does). */
  readonly endMs: number;
  /** When the first `tokens` output tokens are out, from `firstTokenMs` to `endMs`. */
  at(tokens: number): number;
}

/**
 * The timeline of an answer billed as `outputTokens` whose stream counts `countedTokens`: after the first-token
 * wait, `perOutputTokenMs` per token. The two counts agree unless a turn overrides `usage.outputTokens` (or a text
 * is pathological); then the generation time is shared out in proportion, so the last token still lands on `endMs`.
 */
export function outputTimeline(
  profile: LatencyProfile | undefined,
  inputTokens: number,
  outputTokens: number,
  countedTokens: number,
): OutputTimeline {
  const { firstTokenMs, generationMs } = simulatedLatency(profile, inputTokens, outputTokens);
  const perOutputTokenMs = profile?.perOutputTokenMs ?? 0;
  const endMs = firstTokenMs + generationMs;
  const at =
    countedTokens === outputTokens
      ? (tokens: number): number => firstTokenMs + perOutputTokenMs * tokens
      : (tokens: number): number =>
          firstTokenMs + Math.min(generationMs, (generationMs * tokens) / Math.max(1, countedTokens));
  return { firstTokenMs, endMs, at };
}
