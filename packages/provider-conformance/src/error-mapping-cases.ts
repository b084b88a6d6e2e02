import {
  AuthenticationError,
  ContextLengthExceededError,
  InvalidMessageHistoryError,
  InvalidRequestError,
  type ModelRequest,
  ProviderError,
  ProviderUnavailableError,
  RateLimitError,
  StreamInterruptedError,
} from '@org/core';
import { describe, expect, it } from 'vitest';
import { CONFORMANCE_TOOLS, HISTORY_TOOL_CALLS, HISTORY_WITHOUT_TOOL_CALLS } from './conformance-fixtures.js';
import { type CallMode, errorOfCall, readStream } from './drive-model.js';
import type { ConformanceHarness, ErrorReply } from './harness.js';
import { withFixture } from './with-fixture.js';

const CALL_MODES: readonly CallMode[] = ['generate', 'stream'];
const REQUEST: ModelRequest = { messages: HISTORY_WITHOUT_TOOL_CALLS, tools: CONFORMANCE_TOOLS };

interface ErrorCase {
  readonly name: string;
  readonly reply: ErrorReply;
  readonly check: (error: unknown) => void;
}

const describeError = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

const ERROR_CASES: readonly ErrorCase[] = [
  {
    name: '429 with retry-after → RateLimitError.retryAfterMs',
    reply: {
      type: 'error',
      status: 429,
      message: 'Rate limit reached for requests',
      headers: { 'retry-after': '7' },
    },
    check: (error) => {
      expect(RateLimitError.isInstance(error), describeError(error)).toBe(true);
      const rateLimit = error as RateLimitError;
      expect(rateLimit.retryAfterMs).toBe(7000);
      expect(rateLimit.statusCode).toBe(429);
      expect(rateLimit.retryable).toBe(true);
    },
  },
  {
    name: '401 → AuthenticationError',
    reply: { type: 'error', status: 401, message: 'Invalid authentication credentials' },
    check: (error) => {
      expect(AuthenticationError.isInstance(error), describeError(error)).toBe(true);
      expect((error as AuthenticationError).statusCode).toBe(401);
      expect((error as AuthenticationError).retryable).toBe(false);
    },
  },
  {
    name: '403 → AuthenticationError',
    reply: { type: 'error', status: 403, message: 'This key may not use this model' },
    check: (error) => {
      expect(AuthenticationError.isInstance(error), describeError(error)).toBe(true);
      expect((error as AuthenticationError).statusCode).toBe(403);
    },
  },
  {
    name: "400 → InvalidRequestError with the provider's own message",
    reply: { type: 'error', status: 400, message: "Invalid value for 'temperature': must be at most 2." },
    check: (error) => {
      expect(InvalidRequestError.isInstance(error), describeError(error)).toBe(true);
      expect((error as InvalidRequestError).message).toContain(
        "Invalid value for 'temperature': must be at most 2.",
      );
      expect((error as InvalidRequestError).statusCode).toBe(400);
    },
  },
  {
    name: '500 → ProviderUnavailableError (retryable)',
    reply: { type: 'error', status: 500, message: 'The server had an error while processing your request' },
    check: (error) => {
      expect(ProviderUnavailableError.isInstance(error), describeError(error)).toBe(true);
      expect((error as ProviderUnavailableError).retryable).toBe(true);
      expect((error as ProviderUnavailableError).statusCode).toBe(500);
    },
  },
  {
    name: '503 → ProviderUnavailableError',
    reply: { type: 'error', status: 503, message: 'The engine is currently overloaded' },
    check: (error) => {
      expect(ProviderUnavailableError.isInstance(error), describeError(error)).toBe(true);
      expect((error as ProviderUnavailableError).statusCode).toBe(503);
    },
  },
  {
    name: 'context length exceeded → ContextLengthExceededError',
    reply: {
      type: 'error',
      status: 400,
      message: 'The prompt is longer than the context window of this model.',
      reason: 'context-length-exceeded',
    },
    check: (error) => {
      expect(ContextLengthExceededError.isInstance(error), describeError(error)).toBe(true);
      expect((error as ContextLengthExceededError).retryable).toBe(false);
    },
  },
];

/** Error mapping (when the harness can script errors), mid-stream disconnects, and history checked before sending. */
export function registerErrorCases(harness: ConformanceHarness): void {
  describe('errors', () => {
    for (const callMode of CALL_MODES) {
      it(`a tool call without its result is refused before sending · ${callMode}`, async () => {
        await withFixture(harness, async (fixture) => {
          const error = await errorOfCall(
            fixture.model,
            {
              messages: [
                ...HISTORY_WITHOUT_TOOL_CALLS,
                { role: 'assistant', content: '', toolCalls: HISTORY_TOOL_CALLS },
                { role: 'tool', toolCallId: 'call_hist_weather', toolName: 'get_weather', content: 'rain' },
                { role: 'user', content: 'Well?' },
              ],
              tools: CONFORMANCE_TOOLS,
            },
            callMode,
          );
          expect(InvalidMessageHistoryError.isInstance(error), describeError(error)).toBe(true);
          expect((error as InvalidMessageHistoryError).toolCallId).toBe('call_hist_search');
          expect(fixture.requests(), 'nothing sent').toHaveLength(0);
        });
      });
    }

    if (harness.capabilities?.errorReplies) {
      for (const errorCase of ERROR_CASES) {
        for (const callMode of CALL_MODES) {
          it(`${errorCase.name} · ${callMode}`, async () => {
            await withFixture(harness, async (fixture) => {
              fixture.enqueue(errorCase.reply);
              const error = await errorOfCall(fixture.model, REQUEST, callMode);
              errorCase.check(error);
              expect(ProviderError.isInstance(error)).toBe(true);
              expect((error as ProviderError).provider).toBe(fixture.model.provider);
            });
          });
        }
      }
    }

    if (harness.capabilities?.disconnects) {
      it('a connection lost mid-stream → StreamInterruptedError with the partial text, no incomplete call', async () => {
        await withFixture(harness, async (fixture) => {
          fixture.enqueue({
            type: 'disconnect',
            text: 'Checking the weather in Par',
            partialToolCall: { id: 'call_cut', toolName: 'get_weather', partialArguments: '{"city":"Par' },
          });
          const { parts, threw, thrown } = await readStream(fixture.model.stream(REQUEST));
          expect(threw, `stream() threw: ${describeError(thrown)}`).toBe(false);
          const text = parts.map((part) => (part.type === 'text-delta' ? part.delta : '')).join('');
          expect(text).toBe('Checking the weather in Par');
          expect(parts.filter((part) => part.type === 'tool-call' || part.type === 'finish')).toHaveLength(0);
          const last = parts.at(-1);
          expect(last?.type).toBe('error');
          const error = last?.type === 'error' ? last.error : undefined;
          expect(StreamInterruptedError.isInstance(error), describeError(error)).toBe(true);
          expect((error as StreamInterruptedError).partialText).toBe('Checking the weather in Par');
        });
      });
    }
  });
}
