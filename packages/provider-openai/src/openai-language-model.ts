import {
  AbortedError,
  type Adjustment,
  applyToolCallPolicy,
  assertToolCallPairing,
  type ContentLimits,
  InvalidRequestError,
  isToolCallAccepted,
  type LanguageModel,
  type ModelCapabilities,
  type ModelRequest,
  type ModelResponse,
  type ReasoningPart,
  type ResolvedRetryOptions,
  type RetryFailure,
  retryHintsFromHeaders,
  SPECIFICATION_VERSION,
  StreamInterruptedError,
  type StreamPart,
  withRetries,
} from '@org/core';
import type OpenAI from 'openai';
import { APIError } from 'openai';
import { buildChatRequest } from './chat/build-request.js';
import { mapChatResponse } from './chat/map-response.js';
import { ChatStreamAssembler } from './chat/stream-assembler.js';
import { assertContentAccepted } from './content-limits.js';
import { openEventStream } from './event-stream.js';
import { mapOpenAIError } from './map-error.js';
import type { ParsedAnswer } from './parsed-answer.js';
import { prepareResponseFormat } from './response-format.js';
import { buildResponsesRequest } from './responses/build-request.js';
import { mapResponsesResponse } from './responses/map-response.js';
import { ResponsesStreamAssembler } from './responses/stream-assembler.js';
import { planTools, type ToolPlan } from './tool-plan.js';

/** Which OpenAI API a model speaks: the Responses API (`responses`) or Chat Completions (`chat`). */
export type OpenAIApi = 'responses' | 'chat';

/** Everything a model needs, resolved by the provider factory. */
export interface OpenAILanguageModelConfig {
  readonly provider: string;
  readonly modelId: string;
  readonly api: OpenAIApi;
  readonly capabilities: ModelCapabilities;
  /** The SDK client, created on first use so a missing key fails the call, not the import. */
  readonly client: () => OpenAI;
  readonly retry: ResolvedRetryOptions;
  readonly timeoutMs: number | undefined;
  readonly maxTokensParameter: 'max_completion_tokens' | 'max_tokens';
  readonly streamUsage: boolean;
  /** The media limits checked before sending (`OPENAI_CONTENT_LIMITS` unless the model's settings say otherwise). */
  readonly contentLimits: ContentLimits;
}

interface Prepared {
  readonly plan: ToolPlan;
  readonly body: Record<string, unknown>;
}

type ChatParams = OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;
type ChatStreamParams = OpenAI.Chat.ChatCompletionCreateParamsStreaming;
type ResponsesParams = OpenAI.Responses.ResponseCreateParamsNonStreaming;
type ResponsesStreamParams = OpenAI.Responses.ResponseCreateParamsStreaming;

function checkSettings(request: ModelRequest, provider: string): void {
  const fail = (message: string): never => {
    throw new InvalidRequestError({ provider, providerCode: 'invalid_setting', message });
  };
  const { maxOutputTokens, temperature, stopSequences } = request;
  if (maxOutputTokens !== undefined && !(Number.isInteger(maxOutputTokens) && maxOutputTokens > 0)) {
    fail(`maxOutputTokens must be a positive integer, got ${JSON.stringify(maxOutputTokens)}.`);
  }
  if (
    temperature !== undefined &&
    !(typeof temperature === 'number' && Number.isFinite(temperature) && temperature >= 0)
  ) {
    fail(`temperature must be a finite number >= 0, got ${JSON.stringify(temperature)}.`);
  }
  if (
    stopSequences !== undefined &&
    !stopSequences.every((stop) => typeof stop === 'string' && stop !== '')
  ) {
    fail(`stopSequences must be non-empty strings, got ${JSON.stringify(stopSequences)}.`);
  }
}

/**
 * A `LanguageModel` over the OpenAI SDK, speaking the Responses API or Chat Completions. Create it through
 * `createOpenAI` / `openai`, which resolve its configuration.
 *
 * @example
 * const model = openai('gpt-4.1-mini', { api: 'chat' });
 * const { toolCalls } = await model.generate({ messages, tools, toolChoice: ToolChoice.required() });
 */
export class OpenAILanguageModel implements LanguageModel {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly provider: string;
  readonly modelId: string;
  readonly capabilities: ModelCapabilities;
  /** The API this model speaks. */
  readonly api: OpenAIApi;
  private readonly config: OpenAILanguageModelConfig;

  constructor(config: OpenAILanguageModelConfig) {
    this.config = config;
    this.provider = config.provider;
    this.modelId = config.modelId;
    this.capabilities = config.capabilities;
    this.api = config.api;
  }

  private get operation(): string {
    return this.api === 'chat' ? 'chat completion' : 'response';
  }

  /**
   * Everything checked before a byte is sent (abort, history pairing, settings, content, response format, tool
   * choice), then the body, with every adjustment made on the way.
   */
  private prepare(request: ModelRequest, stream: boolean): Prepared {
    if (request.signal?.aborted) {
      throw new AbortedError({
        operation: `${this.provider} ${this.operation}`,
        cause: request.signal.reason,
      });
    }
    assertToolCallPairing(request.messages);
    checkSettings(request, this.provider);
    assertContentAccepted(request.messages, this.config.contentLimits, this.provider);
    const identity = { provider: this.provider, modelId: this.modelId };
    const responseFormat = prepareResponseFormat(request, this.capabilities, identity);
    const plan = planTools(request, this.capabilities, identity);
    const wire =
      this.api === 'chat'
        ? buildChatRequest(
            request,
            plan,
            responseFormat,
            {
              ...identity,
              maxTokensParameter: this.config.maxTokensParameter,
              streamUsage: this.config.streamUsage,
            },
            stream,
          )
        : buildResponsesRequest(request, plan, responseFormat, identity, stream);
    const adjustments: readonly Adjustment[] = [...plan.adjustments, ...wire.adjustments];
    return { plan: { ...plan, adjustments }, body: wire.body };
  }

  private requestOptions(signal: AbortSignal | undefined): OpenAI.RequestOptions {
    // The adapter retries itself (withRetries of @org/core), so the SDK must not.
    return {
      maxRetries: 0,
      ...(signal === undefined ? {} : { signal }),
      ...(this.config.timeoutMs === undefined ? {} : { timeout: this.config.timeoutMs }),
    };
  }

  private mapError(error: unknown, signal: AbortSignal | undefined, partialText?: string): Error {
    return mapOpenAIError(error, {
      provider: this.provider,
      operation: this.operation,
      signal,
      ...(partialText === undefined ? {} : { partialText }),
    });
  }

  /** A failed attempt for the retry loop: the mapped error, and `x-should-retry` / the requested wait. */
  private classifyFailure(error: unknown, signal: AbortSignal | undefined): RetryFailure {
    const headers = error instanceof APIError ? error.headers : undefined;
    return { error: this.mapError(error, signal), ...retryHintsFromHeaders(headers) };
  }

  /** The answer with the calls the tool plan's policy lets through, and every adjustment: the request's, then the answer's. */
  private finishAnswer(plan: ToolPlan, answer: ParsedAnswer): ModelResponse {
    const checked = applyToolCallPolicy(plan.policy, answer.toolCalls, { provider: this.provider });
    return {
      ...answer,
      toolCalls: checked.toolCalls,
      adjustments: [...plan.adjustments, ...checked.adjustments],
    };
  }

  /** One model call, answered whole (`LanguageModel.generate`). */
  async generate(request: ModelRequest): Promise<ModelResponse> {
    const { plan, body } = this.prepare(request, false);
    const { signal } = request;
    const client = this.config.client();
    const options = this.requestOptions(signal);
    const raw = await withRetries<unknown>(
      () =>
        this.api === 'chat'
          ? client.chat.completions.create(body as unknown as ChatParams, options)
          : client.responses.create(body as unknown as ResponsesParams, options),
      {
        retry: this.config.retry,
        signal,
        classify: (error) => this.classifyFailure(error, signal),
        operation: `${this.provider} ${this.operation}`,
      },
    );
    const answer =
      this.api === 'chat' ? mapChatResponse(raw, this.provider) : mapResponsesResponse(raw, this.provider);
    const response = this.finishAnswer(plan, answer);
    return request.includeRawResponse ? { ...response, rawResponse: raw } : response;
  }

  /** One model call, streamed as it is written (`LanguageModel.stream`). */
  async *stream(request: ModelRequest): AsyncIterable<StreamPart> {
    let prepared: Prepared;
    let client: OpenAI;
    try {
      prepared = this.prepare(request, true);
      client = this.config.client();
    } catch (error) {
      yield { type: 'error', error: this.mapError(error, request.signal) };
      return;
    }
    const { plan, body } = prepared;
    // One controller per call: aborted by the caller's signal, and by us when the consumer stops early.
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(request.signal?.reason);
    request.signal?.addEventListener('abort', onAbort, { once: true });
    const assembler =
      this.api === 'chat'
        ? new ChatStreamAssembler(this.provider)
        : new ResponsesStreamAssembler(this.provider);
    let started = false;
    // A call the policy rejects never shows in the stream: not as it starts, nor its deltas, nor as a complete call.
    const rejectedCallIds = new Set<string>();
    const shown = (part: StreamPart): boolean => {
      if (part.type === 'tool-call-start' && !isToolCallAccepted(plan.policy, part.toolName)) {
        rejectedCallIds.add(part.toolCallId);
        return false;
      }
      if (part.type === 'tool-call-delta') return !rejectedCallIds.has(part.toolCallId);
      if (part.type === 'tool-call') return isToolCallAccepted(plan.policy, part.toolCall.toolName);
      return true;
    };
    try {
      const options = this.requestOptions(controller.signal);
      const response = await withRetries(
        () =>
          this.api === 'chat'
            ? client.chat.completions.create(body as unknown as ChatStreamParams, options).asResponse()
            : client.responses.create(body as unknown as ResponsesStreamParams, options).asResponse(),
        {
          retry: this.config.retry,
          signal: controller.signal,
          classify: (error) => this.classifyFailure(error, request.signal),
          operation: `${this.provider} ${this.operation}`,
        },
      );
      started = true;
      const stream = openEventStream(response, controller, client);
      for await (const event of stream.events) {
        // A call's `tool-call` part comes as soon as the wire shows it complete, while the answer goes on.
        for (const part of assembler.push(event)) if (shown(part)) yield part;
      }
      // The SDK's iterator ends quietly on abort; the caller must still learn the answer was cut short.
      if (request.signal?.aborted) {
        yield { type: 'error', error: this.mapError(request.signal.reason, request.signal) };
        return;
      }
      const complete = assembler instanceof ChatStreamAssembler ? stream.sawDone() : assembler.ended;
      if (!complete) {
        yield {
          type: 'error',
          error: new StreamInterruptedError({
            provider: this.provider,
            providerCode:
              assembler instanceof ChatStreamAssembler ? 'missing_done' : 'missing_terminal_event',
            message: `${this.provider} ${this.operation}: the stream ended without ${assembler instanceof ChatStreamAssembler ? 'data: [DONE]' : 'a response.completed event'}; the answer is incomplete.`,
            partialText: assembler.partialText,
          }),
        };
        return;
      }
      const answer = this.finishAnswer(plan, assembler.finish());
      // Reasoning still open at the end (or only in the final response) completes before the remaining calls.
      const late: readonly ReasoningPart[] = assembler.unemittedReasoning();
      for (const reasoning of late) yield { type: 'reasoning', reasoning };
      for (const toolCall of assembler.unemittedToolCalls()) {
        const part: StreamPart = { type: 'tool-call', toolCall };
        if (shown(part)) yield part;
      }
      yield {
        type: 'finish',
        finishReason: answer.finishReason,
        usage: answer.usage,
        adjustments: answer.adjustments,
        ...(answer.rawFinishReason === undefined ? {} : { rawFinishReason: answer.rawFinishReason }),
        ...(answer.responseId === undefined ? {} : { responseId: answer.responseId }),
      };
    } catch (error) {
      // Only the caller's signal means "aborted": the SDK also aborts `controller` itself when a stream breaks.
      yield {
        type: 'error',
        error: this.mapError(error, request.signal, started ? assembler.partialText : undefined),
      };
    } finally {
      request.signal?.removeEventListener('abort', onAbort);
      // Releases the connection when the consumer stopped early; a no-op after a complete stream.
      controller.abort();
    }
  }
}
