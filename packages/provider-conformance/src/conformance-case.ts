import { describe, it } from 'vitest';
import type { ConformanceHarness, HarnessCapabilities } from './harness.js';

/** One case of the suite as data: registered as an `it` block, and run directly by the suite's own tests. */
export interface ConformanceCase {
  readonly name: string;
  run(): Promise<void>;
}

/** Registers cases as `it` blocks inside a `describe` named `group`. */
export function registerCases(group: string, cases: readonly ConformanceCase[]): void {
  describe(group, () => {
    for (const conformanceCase of cases) it(conformanceCase.name, () => conformanceCase.run());
  });
}

/**
 * The failure of a case the harness is not equipped for: it names the capability to declare and what the harness
 * must do first, so the case fails with instructions instead of crashing on a missing projection or being skipped.
 *
 * @example
 * throw missingHarnessCapability(harness, 'reasoning', "render ResponseReply.reasoning, project WireMessage.reasoning");
 */
export function missingHarnessCapability(
  harness: ConformanceHarness,
  capability: keyof HarnessCapabilities,
  needs: string,
): Error {
  return new Error(
    `The harness '${harness.name}' does not declare capabilities.${capability}, which this case needs: ${needs}. ` +
      `See "What a harness provides for the feature cases" in the @org/provider-conformance README.`,
  );
}

/**
 * The failure of a case whose harness declared a capability but did not project the fact it promises.
 *
 * @example
 * if (wire.rawBody === undefined) throw missingProjection(harness, 'WireRequest.rawBody', 'reasoning');
 */
export function missingProjection(
  harness: ConformanceHarness,
  field: string,
  capability: keyof HarnessCapabilities,
): Error {
  return new Error(
    `The harness '${harness.name}' declares capabilities.${capability} but its projection leaves ${field} ` +
      `undefined; project it from the request body.`,
  );
}
