import type Anthropic from '@anthropic-ai/sdk';
import type { Message } from '@anthropic-ai/sdk/resources/messages';
import {
  AbortedError,
  type ContentLimits,
  errorMessageOf,
  InvalidProviderOptionsError,
  type LanguageModel,
  type ModelCapabilities,
  type ModelRequest,
  type ModelResponse,
  type OrgError,
  type ResolvedRetryOptions,
  type RetryFailure,
  retryHintsFromHeaders,
  SPECIFICATION_VERSION,
  type StreamPart,
  withRetries,
} from '@org/core';
import { type BuiltRequest, buildRequest } from './build-request.js';
import { type ErrorContext, headersOf, mapAnthropicError } from './map-error.js';
import { mapMessage } from './map-response.js';
import { StreamAssembler, type StreamEvent } from './stream-assembler.js';

/**
 * What a model needs from its provider: the SDK client (created on first use) and the shared settings. Built by
 * `createAnthropic`; exported only so that declarations of `AnthropicLanguageModel` are complete.
 *
 * @example
 * type Config = AnthropicModelConfig; // rarely needed: use createAnthropic
 */
export interface AnthropicModelConfig {
  /** The SDK client, created on first use (so a missing key fails the first call, not the import). */
  readonly getClient: () => Anthropic;
  readonly retry: ResolvedRetryOptions;
  readonly capabilities: ModelCapabilities;
  readonly defaultMaxOutputTokens: number | undefined;
  /** Size limits of inline images and files, checked before sending. */
  readonly contentLimits: ContentLimits;
}

/**
 * A `LanguageModel` over the Anthropic Messages API. Create it with `anthropic(modelId)` or
 * `createAnthropic(options)(modelId)`; see the package README for the wire mapping.
 *
 * `generate` sends one non-streaming request; `stream` reads the SSE stream and yields core parts, ending with
 * exactly one `finish` or `error` part (it never throws). Requests that fail before the answer starts are retried
 * by the adapter (the SDK's own retries are turned off per request so that the retry budget is honoured).
 *
 * @example
 * const model: AnthropicLanguageModel = anthropic('claude-sonnet-5-5');
 * const response = await model.generate({ messages: [{ role: 'user', content: 'Hello' }] });
 */
export class AnthropicLanguageModel implements LanguageModel {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly provider = 'anthropic';
  readonly modelId: string;
  readonly capabilities: ModelCapabilities;
  readonly #config: AnthropicModelConfig;

  constructor(modelId: string, config: AnthropicModelConfig) {
    this.modelId = modelId;
    this.capabilities = config.capabilities;
    this.#config = config;
  }

  /** One model call, answered whole (`LanguageModel.generate`). */
  async generate(request: ModelRequest): Promise<ModelResponse> {
    const built = this.#build(request);
    const client = this.#client(request.signal);
    const message = await withRetries<Message>(
      async () =>
        client.messages.create(
          { ...built.body, stream: false },
          { maxRetries: 0, signal: request.signal ?? null },
        ),
      {
        retry: this.#config.retry,
        signal: request.signal,
        classify: (error) => this.#classifyFailure(error, built, request.signal),
        operation: this.#operation(),
      },
    );
    return mapMessage(message, {
      adjustments: built.adjustments,
      policy: built.policy,
      includeRawResponse: request.includeRawResponse === true,
      propertyNames: built.propertyNames,
    });
  }

  /** One model call, streamed as it is written (`LanguageModel.stream`). */
  async *stream(request: ModelRequest): AsyncGenerator<StreamPart, void, undefined> {
    let built: BuiltRequest;
    let events: AsyncIterable<unknown>;
    try {
      built = this.#build(request);
      const client = this.#client(request.signal);
      events = await withRetries<AsyncIterable<unknown>>(
        async () =>
          client.messages.create(
            { ...built.body, stream: true },
            { maxRetries: 0, signal: request.signal ?? null },
          ),
        {
          retry: this.#config.retry,
          signal: request.signal,
          classify: (error) => this.#classifyFailure(error, built, request.signal),
          operation: this.#operation(),
        },
      );
    } catch (error) {
      yield { type: 'error', error: this.#mapError(error, { phase: 'request', signal: request.signal }) };
      return;
    }

    const assembler = new StreamAssembler({
      policy: built.policy,
      adjustments: built.adjustments,
      propertyNames: built.propertyNames,
    });
    try {
      for await (const event of events) {
        const parts = assembler.push(
          (typeof event === 'object' && event !== null ? event : {}) as StreamEvent,
        );
        for (const part of parts) yield part;
        // Leaving the loop aborts the SDK's request: nothing after message_stop (or an error) is read.
        if (assembler.isDone()) return;
      }
      // The SDK ends its iterator quietly when the request is aborted.
      yield {
        type: 'error',
        error:
          request.signal?.aborted === true
            ? new AbortedError({ operation: this.#operation(), cause: request.signal.reason })
            : assembler.endedEarly(),
      };
    } catch (error) {
      yield {
        type: 'error',
        error: this.#mapError(error, {
          phase: 'stream',
          built,
          signal: request.signal,
          partialText: assembler.partialText,
        }),
      };
    }
  }

  #build(request: ModelRequest): BuiltRequest {
    return buildRequest({
      request,
      modelId: this.modelId,
      capabilities: this.capabilities,
      defaultMaxOutputTokens: this.#config.defaultMaxOutputTokens,
      contentLimits: this.#config.contentLimits,
    });
  }

  #client(signal: AbortSignal | undefined): Anthropic {
    if (signal?.aborted === true)
      throw new AbortedError({ operation: this.#operation(), cause: signal.reason });
    try {
      return this.#config.getClient();
    } catch (error) {
      throw new InvalidProviderOptionsError({
        provider: 'anthropic',
        option: 'clientOptions',
        message: `The Anthropic SDK client could not be created: ${errorMessageOf(error)}`,
      });
    }
  }

  #operation(): string {
    return `The Anthropic request to '${this.modelId}'`;
  }

  /**
   * A request that failed before its answer, for the retry loop: the mapped error, and the server's
   * `x-should-retry` and requested wait, read off the SDK's `APIError` headers (by shape, like the mapping).
   */
  #classifyFailure(error: unknown, built: BuiltRequest, signal: AbortSignal | undefined): RetryFailure {
    return {
      error: this.#mapError(error, { phase: 'request', built, signal }),
      ...retryHintsFromHeaders(headersOf(error)),
    };
  }

  #mapError(
    error: unknown,
    options: {
      phase: ErrorContext['phase'];
      built?: BuiltRequest;
      signal: AbortSignal | undefined;
      partialText?: string;
    },
  ): OrgError {
    let timeoutMs = 600_000;
    try {
      timeoutMs = this.#config.getClient().timeout;
    } catch {
      // The client could not be created; its error is the one being mapped.
    }
    return mapAnthropicError(error, {
      phase: options.phase,
      maxOutputTokens: options.built?.maxOutputTokens ?? 0,
      timeoutMs,
      modelId: this.modelId,
      signal: options.signal,
      ...(options.partialText === undefined ? {} : { partialText: options.partialText }),
    });
  }
}
