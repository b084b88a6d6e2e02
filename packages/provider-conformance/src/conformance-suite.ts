import { assertLanguageModel, SPECIFICATION_VERSION } from '@org/core';
import { describe, expect, it } from 'vitest';
import { registerAbortCases } from './abort-cases.js';
import { registerContentPartCases } from './content-part-cases.js';
import { registerEarlyToolCallCases } from './early-tool-call-cases.js';
import { registerErrorCases } from './error-mapping-cases.js';
import type { ConformanceHarness } from './harness.js';
import { registerReasoningCases } from './reasoning-cases.js';
import { registerStreamCases } from './stream-cases.js';
import { registerStructuredOutputCases } from './structured-output-cases.js';
import { registerToolChoiceMatrix } from './tool-choice-matrix.js';
import { withFixture } from './with-fixture.js';

/**
 * Registers the provider conformance suite as vitest `describe` / `it` blocks, inside a `describe` named after the
 * harness. Call it at the top level of a test file. The cases:
 *
 * - the contract: `specificationVersion`, `assertLanguageModel`;
 * - the matrix tool-choice mode × parallel calls on / off × history with and without tool calls × `generate` /
 *   `stream`, checking the wire request (tool choice, parallel flag, tools, history pairing) and the calls parsed back;
 *   refusals before sending (unknown named tool, unpaired history);
 * - `stream()` collected equals `generate()`, and streams are well formed;
 * - tool calls complete early: of two calls, the first call's `tool-call` part comes before the second call's
 *   `tool-call-start` (needs `capabilities.sequentialToolCalls` where the stream does not show that order anyway);
 * - abort through the request's signal;
 * - reasoning: returned as `ModelResponse.reasoning` and `reasoning-delta` / `reasoning` parts, the model's own sent
 *   back, another provider's left out and reported (needs `capabilities.reasoning`);
 * - content parts: images and files of user messages and tool results on the wire, `ContentTooLargeError` before
 *   sending (needs `capabilities.contentParts`);
 * - structured output: `responseFormat` on the wire and the JSON back where the model declares
 *   `capabilities.structuredOutput`, `InvalidRequestError` before sending where it does not;
 * - with `capabilities.errorReplies`: 429 with retry-after, 401, 403, 400 with the provider's message, 500, 503,
 *   context length; with `capabilities.disconnects`: a connection lost mid-stream.
 *
 * @example
 * // packages/provider-acme/test/conformance.test.ts
 * import { runConformanceSuite } from '@org/provider-conformance';
 * import { createAcmeHarness } from './fake-acme-server.js';
 *
 * runConformanceSuite(createAcmeHarness());
 */
export function runConformanceSuite(harness: ConformanceHarness): void {
  describe(`provider conformance: ${harness.name}`, () => {
    describe('contract', () => {
      it(`implements LanguageModel specification ${SPECIFICATION_VERSION}`, async () => {
        await withFixture(harness, async (fixture) => {
          expect(assertLanguageModel(fixture.model)).toBe(fixture.model);
          expect(fixture.model.specificationVersion).toBe(SPECIFICATION_VERSION);
          expect(typeof fixture.model.provider).toBe('string');
          expect(fixture.model.provider.length).toBeGreaterThan(0);
          expect(typeof fixture.model.modelId).toBe('string');
        });
      });
    });
    registerToolChoiceMatrix(harness);
    registerStreamCases(harness);
    registerEarlyToolCallCases(harness);
    registerAbortCases(harness);
    registerErrorCases(harness);
    registerReasoningCases(harness);
    registerContentPartCases(harness);
    registerStructuredOutputCases(harness);
  });
}
