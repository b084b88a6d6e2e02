import { AbortedError, type ModelRequest, type StreamPart } from '@org/core';
import { describe, expect, it, vi } from 'vitest';
import { CONFORMANCE_TOOLS, HISTORY_WITHOUT_TOOL_CALLS } from './conformance-fixtures.js';
import { type CallMode, errorOfCall } from './drive-model.js';
import type { ConformanceHarness } from './harness.js';
import { withFixture } from './with-fixture.js';

const CALL_MODES: readonly CallMode[] = ['generate', 'stream'];

const describeError = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

function requestWith(signal: AbortSignal): ModelRequest {
  return { messages: HISTORY_WITHOUT_TOOL_CALLS, tools: CONFORMANCE_TOOLS, signal };
}

/** Cancellation through `ModelRequest.signal`: before the call, while waiting for the answer, mid-stream. */
export function registerAbortCases(harness: ConformanceHarness): void {
  describe('abort', () => {
    for (const callMode of CALL_MODES) {
      it(`an already aborted signal → AbortedError · ${callMode}`, async () => {
        await withFixture(harness, async (fixture) => {
          const controller = new AbortController();
          controller.abort(new Error('user cancelled'));
          const error = await errorOfCall(fixture.model, requestWith(controller.signal), callMode);
          expect(AbortedError.isInstance(error), describeError(error)).toBe(true);
        });
      });
    }

    if (!harness.capabilities?.stalls) return;

    it('aborting while waiting for the answer → AbortedError · generate', async () => {
      await withFixture(harness, async (fixture) => {
        fixture.enqueue({ type: 'stall' });
        const controller = new AbortController();
        const pending = errorOfCall(fixture.model, requestWith(controller.signal), 'generate');
        await vi.waitFor(() => expect(fixture.requests()).toHaveLength(1), { timeout: 10_000, interval: 5 });
        controller.abort(new Error('user cancelled'));
        const error = await pending;
        expect(AbortedError.isInstance(error), describeError(error)).toBe(true);
      });
    });

    it('aborting mid-stream → the stream ends with an AbortedError part after the text so far', async () => {
      await withFixture(harness, async (fixture) => {
        fixture.enqueue({ type: 'stall', text: 'Let me think' });
        const controller = new AbortController();
        const parts: StreamPart[] = [];
        for await (const part of fixture.model.stream(requestWith(controller.signal))) {
          parts.push(part);
          if (part.type === 'text-delta' && !controller.signal.aborted)
            controller.abort(new Error('user cancelled'));
        }
        expect(parts.some((part) => part.type === 'text-delta')).toBe(true);
        expect(parts.filter((part) => part.type === 'finish')).toHaveLength(0);
        const last = parts.at(-1);
        expect(last?.type).toBe('error');
        const error = last?.type === 'error' ? last.error : undefined;
        expect(AbortedError.isInstance(error), describeError(error)).toBe(true);
      });
    });
  });
}
