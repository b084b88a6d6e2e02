import {
  AbortedError,
  type Adjustment,
  AuthenticationError,
  assertContentWithinLimits,
  assertToolCallPairing,
  assertToolChoiceOffered,
  type ContentLimits,
  ContextLengthExceededError,
  contentText,
  createUsage,
  InvalidRequestError,
  type LanguageModel,
  type Message,
  type ModelRequest,
  type ModelResponse,
  ProviderUnavailableError,
  RateLimitError,
  type ReasoningPart,
  SPECIFICATION_VERSION,
  StreamInterruptedError,
  type StreamPart,
  ToolChoice,
} from '@org/core';
import type { ConformanceFixture, ScriptedReply, WireRequest } from '../harness.js';
import { projectModelRequest } from '../project-model-request.js';

const PROVIDER = 'reference';

/** The media limits of the reference model: small, so the suite's oversized image stays small. */
export const REFERENCE_CONTENT_LIMITS: ContentLimits = Object.freeze({
  maxImageBytes: 64 * 1024,
  maxFileBytes: 128 * 1024,
});

/**
 * A way the reference model can break the contract, to prove the suite catches it:
 * - `reasoning-dropped`: replies come back without their reasoning;
 * - `reasoning-part-before-deltas`: a stream yields each `reasoning` part before its `reasoning-delta` parts;
 * - `own-reasoning-not-sent`: the model's own reasoning is left out of the wire (unreported);
 * - `foreign-reasoning-as-text`: another provider's reasoning is sent as assistant text (unreported);
 * - `foreign-reasoning-unreported`: another provider's reasoning is left out without an Adjustment;
 * - `media-flattened`: images and files of user and tool messages are sent as their text rendering, unreported;
 * - `limits-unchecked`: media limits are not checked before sending;
 * - `response-format-dropped`: a response format is left off the wire although structured output is declared;
 * - `response-format-unchecked`: a response format is sent although structured output is not declared;
 * - `tool-calls-at-end`: a stream yields every `tool-call` part only at its end, after all calls started.
 */
export type ReferenceFault =
  | 'reasoning-dropped'
  | 'reasoning-part-before-deltas'
  | 'own-reasoning-not-sent'
  | 'foreign-reasoning-as-text'
  | 'foreign-reasoning-unreported'
  | 'media-flattened'
  | 'limits-unchecked'
  | 'response-format-dropped'
  | 'response-format-unchecked'
  | 'tool-calls-at-end';

/** Options of `createReferenceFixture`. */
export interface ReferenceFixtureOptions {
  /** Whether the model declares native structured output. Default `true`. */
  readonly structuredOutput?: boolean;
  /**
   * Whether its wire carries reasoning. Default `true`; `false` models an API without reasoning (OpenAI Chat
   * Completions): every reasoning part of the history is left out, and reported.
   */
  readonly reasoningOnWire?: boolean;
  /** Contract breaches to commit (none by default). */
  readonly faults?: readonly ReferenceFault[];
}

/**
 * The request as the reference model "sends" it (its wire): another provider's reasoning left out (and reported),
 * unless a fault says otherwise.
 */
function toWire(
  request: ModelRequest,
  faults: ReadonlySet<ReferenceFault>,
  reasoningOnWire: boolean,
): { wire: ModelRequest; adjustments: Adjustment[] } {
  const adjustments: Adjustment[] = [];
  let foreign = 0;
  const messages = request.messages.map((message): Message => {
    if ((message.role === 'user' || message.role === 'tool') && faults.has('media-flattened')) {
      return { ...message, content: contentText(message.content) };
    }
    if (message.role !== 'assistant' || message.reasoning === undefined) return message;
    const own: ReasoningPart[] = [];
    const others: ReasoningPart[] = [];
    for (const part of message.reasoning) {
      (part.provider === PROVIDER && reasoningOnWire ? own : others).push(part);
    }
    foreign += others.length;
    const kept = faults.has('own-reasoning-not-sent') ? [] : own;
    const { reasoning: _reasoning, ...rest } = message;
    const content = faults.has('foreign-reasoning-as-text')
      ? [...others.map((part) => part.text), message.content].join('\n')
      : message.content;
    return { ...rest, content, ...(kept.length > 0 ? { reasoning: kept } : {}) };
  });
  if (
    foreign > 0 &&
    !faults.has('foreign-reasoning-as-text') &&
    !faults.has('foreign-reasoning-unreported')
  ) {
    adjustments.push({
      kind: 'history-rewritten',
      message: `Left out ${foreign} reasoning part(s) produced by another provider, or not carried by this wire.`,
    });
  }
  let responseFormat = request.responseFormat;
  if (faults.has('response-format-dropped')) responseFormat = undefined;
  const { responseFormat: _format, ...rest } = request;
  return {
    wire: { ...rest, messages, ...(responseFormat === undefined ? {} : { responseFormat }) },
    adjustments,
  };
}

/**
 * A minimal offline model that honours the whole contract, used to check the suite itself: its "wire request" is the
 * `ModelRequest` after its own conversion, and the scripted replies are rendered straight into responses, parts and
 * core errors. `faults` make it break the contract in chosen ways.
 */
export function createReferenceFixture(options: ReferenceFixtureOptions = {}): ConformanceFixture {
  const queue: ScriptedReply[] = [];
  const seen: WireRequest[] = [];
  const faults: ReadonlySet<ReferenceFault> = new Set(options.faults ?? []);
  const structuredOutput = options.structuredOutput ?? true;
  let adjustments: Adjustment[] = [];

  const begin = (request: ModelRequest, stream: boolean): ScriptedReply => {
    if (request.signal?.aborted)
      throw new AbortedError({ operation: 'reference model call', cause: request.signal.reason });
    assertToolCallPairing(request.messages);
    assertToolChoiceOffered(
      request.toolChoice ?? ToolChoice.auto(),
      (request.tools ?? []).map((tool) => tool.name),
    );
    if (!faults.has('limits-unchecked')) {
      assertContentWithinLimits(request.messages, REFERENCE_CONTENT_LIMITS, PROVIDER);
    }
    if (
      request.responseFormat !== undefined &&
      !structuredOutput &&
      !faults.has('response-format-unchecked')
    ) {
      throw new InvalidRequestError({
        provider: PROVIDER,
        message: 'The reference model has no native structured output; leave out responseFormat.',
      });
    }
    const converted = toWire(request, faults, options.reasoningOnWire ?? true);
    adjustments = converted.adjustments;
    seen.push(projectModelRequest(converted.wire, { stream }));
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
    const reasoning: ReasoningPart[] = faults.has('reasoning-dropped')
      ? []
      : (reply.reasoning ?? []).map((block) => ({ type: 'reasoning', provider: PROVIDER, ...block }));
    return {
      text: reply.text ?? '',
      toolCalls,
      ...(reasoning.length > 0 ? { reasoning } : {}),
      finishReason: reply.finishReason ?? (toolCalls.length > 0 ? 'tool-calls' : 'stop'),
      usage: createUsage(reply.usage ?? { inputTokens: 0, outputTokens: 0 }),
      adjustments,
    };
  };

  const reasoningParts = (reasoning: readonly ReasoningPart[]): StreamPart[] =>
    reasoning.flatMap((part): StreamPart[] => {
      const deltas: StreamPart[] = (part.text.match(/[\s\S]{1,7}/g) ?? []).map((delta) => ({
        type: 'reasoning-delta',
        delta,
      }));
      const complete: StreamPart = { type: 'reasoning', reasoning: part };
      return faults.has('reasoning-part-before-deltas') ? [complete, ...deltas] : [...deltas, complete];
    });

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
      structuredOutput,
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
      yield* reasoningParts(response.reasoning ?? []);
      if (response.text) yield { type: 'text-delta', delta: response.text };
      const atEnd = faults.has('tool-calls-at-end');
      for (const toolCall of response.toolCalls) {
        const parts: StreamPart[] = [
          { type: 'tool-call-start', toolCallId: toolCall.id, toolName: toolCall.toolName },
          { type: 'tool-call-delta', toolCallId: toolCall.id, argumentsDelta: toolCall.arguments },
        ];
        if (!atEnd) parts.push({ type: 'tool-call', toolCall });
        yield* parts;
      }
      if (atEnd) for (const toolCall of response.toolCalls) yield { type: 'tool-call', toolCall };
      yield {
        type: 'finish',
        finishReason: response.finishReason,
        usage: response.usage,
        adjustments: response.adjustments,
      };
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
