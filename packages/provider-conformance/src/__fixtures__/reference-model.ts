import {
  AbortedError,
  AuthenticationError,
  assertToolCallPairing,
  assertToolChoiceOffered,
  ContextLengthExceededError,
  createUsage,
  InvalidRequestError,
  type LanguageModel,
  type ModelRequest,
  type ModelResponse,
  ProviderUnavailableError,
  RateLimitError,
  SPECIFICATION_VERSION,
  StreamInterruptedError,
  type StreamPart,
  ToolChoice,
} from '@org/core';
import type { ConformanceFixture, ScriptedReply, WireRequest } from '../harness.js';
import { projectModelRequest } from '../project-model-request.js';

const PROVIDER = 'reference';

/**
 * A minimal offline model that honours the whole contract, used to check the suite itself: its "wire request" is the
 * `ModelRequest` it received, and the scripted replies are rendered straight into responses, parts and core errors.
 */
export function createReferenceFixture(): ConformanceFixture {
  const queue: ScriptedReply[] = [];
  const seen: WireRequest[] = [];

  const begin = (request: ModelRequest, stream: boolean): ScriptedReply => {
    if (request.signal?.aborted)
      throw new AbortedError({ operation: 'reference model call', cause: request.signal.reason });
    assertToolCallPairing(request.messages);
    assertToolChoiceOffered(
      request.toolChoice ?? ToolChoice.auto(),
      (request.tools ?? []).map((tool) => tool.name),
    );
    seen.push(projectModelRequest(request, { stream }));
    const reply = queue.shift();
    if (reply === undefined)
      throw new InvalidRequestError({ provider: PROVIDER, message: 'No reply scripted.' });
    return reply;
  };

  const errorOf = (reply: Extract<ScriptedReply, { type: 'error' }>): Error => {
    const options = { provider: PROVIDER, message: reply.message, statusCode: reply.status };
    if (reply.reason === 'context-length-exceeded') return new ContextLengthExceededError(options);
    if (reply.status === 429) {
      const seconds = Number(reply.headers?.['retry-after']);
      return new RateLimitError({
        ...options,
        ...(Number.isFinite(seconds) ? { retryAfterMs: seconds * 1000 } : {}),
      });
    }
    if (reply.status === 401 || reply.status === 403) return new AuthenticationError(options);
    if (reply.status >= 500) return new ProviderUnavailableError(options);
    return new InvalidRequestError(options);
  };

  const untilAborted = (signal: AbortSignal | undefined): Promise<never> =>
    new Promise((_, reject) => {
      if (signal?.aborted) {
        reject(new AbortedError({ operation: 'reference model call', cause: signal.reason }));
        return;
      }
      signal?.addEventListener(
        'abort',
        () => reject(new AbortedError({ operation: 'reference model call', cause: signal.reason })),
        {
          once: true,
        },
      );
    });

  const respond = (reply: Extract<ScriptedReply, { type: 'response' }>): ModelResponse => {
    const toolCalls = reply.toolCalls ?? [];
    return {
      text: reply.text ?? '',
      toolCalls,
      finishReason: reply.finishReason ?? (toolCalls.length > 0 ? 'tool-calls' : 'stop'),
      usage: createUsage(reply.usage ?? { inputTokens: 0, outputTokens: 0 }),
      adjustments: [],
    };
  };

  const model: LanguageModel = {
    specificationVersion: SPECIFICATION_VERSION,
    provider: PROVIDER,
    modelId: 'reference-1',
    capabilities: {
      toolCalls: true,
      toolChoice: { auto: 'native', required: 'native', none: 'native', tool: 'native' },
      parallelToolCalls: true,
      strictSchemas: false,
      streaming: true,
    },
    async generate(request) {
      const reply = begin(request, false);
      if (reply.type === 'error') throw errorOf(reply);
      if (reply.type === 'stall') return untilAborted(request.signal);
      if (reply.type === 'disconnect')
        throw new ProviderUnavailableError({ provider: PROVIDER, message: 'Connection lost.' });
      return respond(reply);
    },
    async *stream(request) {
      let reply: ScriptedReply;
      try {
        reply = begin(request, true);
      } catch (error) {
        yield { type: 'error', error: error as Error };
        return;
      }
      if (reply.type === 'error') {
        yield { type: 'error', error: errorOf(reply) };
        return;
      }
      if (reply.type === 'stall' || reply.type === 'disconnect') {
        if (reply.text) yield { type: 'text-delta', delta: reply.text };
        if (reply.type === 'disconnect') {
          yield {
            type: 'error',
            error: new StreamInterruptedError({
              provider: PROVIDER,
              message: 'Connection lost.',
              partialText: reply.text,
            }),
          };
          return;
        }
        try {
          await untilAborted(request.signal);
        } catch (error) {
          yield { type: 'error', error: error as Error };
        }
        return;
      }
      const response = respond(reply);
      if (response.text) yield { type: 'text-delta', delta: response.text };
      for (const toolCall of response.toolCalls) {
        const parts: StreamPart[] = [
          { type: 'tool-call-start', toolCallId: toolCall.id, toolName: toolCall.toolName },
          { type: 'tool-call-delta', toolCallId: toolCall.id, argumentsDelta: toolCall.arguments },
          { type: 'tool-call', toolCall },
        ];
        yield* parts;
      }
      yield { type: 'finish', finishReason: response.finishReason, usage: response.usage, adjustments: [] };
    },
  };

  return {
    model,
    enqueue: (reply) => {
      queue.push(reply);
    },
    requests: () => seen,
    close: async () => {
      queue.length = 0;
    },
  };
}
