/** Token counts of one model call, or of a whole run when summed. */
export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly totalTokens: number;
  /** Input tokens served from the provider's prompt cache, where the provider reports it. */
  readonly cachedInputTokens?: number;
  /** Output tokens spent on hidden reasoning, where the provider reports it. */
  readonly reasoningTokens?: number;
}

/** A usage of zero, the identity of `addUsage`. */
export const EMPTY_USAGE: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

/**
 * Builds a `Usage` from input and output counts; the total is their sum unless the provider gave one.
 *
 * @example
 * createUsage({ inputTokens: 120, outputTokens: 30, cachedInputTokens: 100 });
 */
export function createUsage(counts: {
  inputTokens: number;
  outputTokens: number;
  totalTokens?: number;
  cachedInputTokens?: number | undefined;
  reasoningTokens?: number | undefined;
}): Usage {
  return {
    inputTokens: counts.inputTokens,
    outputTokens: counts.outputTokens,
    totalTokens: counts.totalTokens ?? counts.inputTokens + counts.outputTokens,
    ...(counts.cachedInputTokens === undefined ? {} : { cachedInputTokens: counts.cachedInputTokens }),
    ...(counts.reasoningTokens === undefined ? {} : { reasoningTokens: counts.reasoningTokens }),
  };
}

/** Sums usages; optional counts are summed where either side reports them. */
export function addUsage(left: Usage, right: Usage): Usage {
  const optional = (a: number | undefined, b: number | undefined): number | undefined =>
    a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
  return createUsage({
    inputTokens: left.inputTokens + right.inputTokens,
    outputTokens: left.outputTokens + right.outputTokens,
    totalTokens: left.totalTokens + right.totalTokens,
    cachedInputTokens: optional(left.cachedInputTokens, right.cachedInputTokens),
    reasoningTokens: optional(left.reasoningTokens, right.reasoningTokens),
  });
}
