import type { Adjustment } from '@org/core';

/** A wire request body, built from a `ModelRequest`, and the adjustments made to build it. */
export interface BuiltRequest {
  readonly body: Record<string, unknown>;
  readonly adjustments: readonly Adjustment[];
}
