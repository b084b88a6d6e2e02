import type { GenerateContentParameters, GenerateContentResponse, GoogleGenAI } from '@google/genai';
import {
  AbortedError,
  type ContentLimits,
  type LanguageModel,
  type ModelCapabilities,
  type ModelRequest,
  type ModelResponse,
  OrgError,
  type ResolvedRetryOptions,
  SPECIFICATION_VERSION,
  StreamInterruptedError,
  type StreamPart,
  withRetries,
} from '@org/core';
import { type BuiltRequest, buildRequest } from './build-request.js';
import type { GoogleFamilyTraits, GoogleModelFamily } from './capabilities.js';
import { mapThrownError } from './map-error.js';
import { mapResponse } from './map-response.js';
import { PROVIDER } from './provider-name.js';
import { StreamAssembler } from './stream-assembler.js';

/** What a model needs from its provider. */
export interface GoogleLanguageModelConfig {
  /** The SDK client, created on first use. */
  readonly getClient: () => GoogleGenAI;
  readonly capabilities: ModelCapabilities;
  readonly family: GoogleModelFamily;
  readonly traits: GoogleFamilyTraits;
  readonly contentLimits: ContentLimits;
  readonly retry: ResolvedRetryOptions;
  /** The per-attempt timeout the provider gave the SDK, so that its timer firing reads as a `TimeoutError`. */
  readonly timeoutMs?: number | undefined;
}

/**
 * A Gemini model, on the Gemini API or Vertex AI: `generate` calls `:generateContent`, `stream` calls
 * `:streamGenerateContent?alt=sse`, both through the official `@google/genai` SDK with its retries off (the shared
 * `withRetries` of `@org/core` retries instead, honouring the server's `RetryInfo`).
 */
export class GoogleLanguageModel implements LanguageModel {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly provider = PROVIDER;
  readonly capabilities: ModelCapabilities;
  /** The declared model family (`settings.family`), which decides schema dialect and function-response media. */
  readonly family: GoogleModelFamily;

  constructor(
    readonly modelId: string,
    private readonly config: GoogleLanguageModelConfig,
  ) {
    this.capabilities = config.capabilities;
    this.family = config.family;
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    const operation = `The ${PROVIDER} request to '${this.modelId}'`;
    try {
      const built = this.build(request);
      const response = await this.send(built, request.signal, operation, (client, params) =>
        client.models.generateContent(params),
      );
      return mapResponse(response, built, { includeRawResponse: request.includeRawResponse === true });
    } catch (error) {
      throw mapThrownError(error, request.signal, operation, this.config.timeoutMs);
    }
  }

  async *stream(request: ModelRequest): AsyncIterable<StreamPart> {
    const operation = `The ${PROVIDER} stream from '${this.modelId}'`;
    let assembler: StreamAssembler | undefined;
    let chunks: AsyncGenerator<GenerateContentResponse> | undefined;
    // The SDK's stream only releases its reader when left early; aborting the request is what closes the connection.
    const connection = new AbortController();
    const abortSignal =
      request.signal === undefined ? connection.signal : AbortSignal.any([request.signal, connection.signal]);
    try {
      const built = this.build(request);
      chunks = await this.send(
        built,
        request.signal,
        operation,
        (client, params) => client.models.generateContentStream(params),
        abortSignal,
      );
      assembler = new StreamAssembler(built);
      for (;;) {
        const next = await chunks.next();
        if (next.done) break;
        yield* assembler.push(next.value);
      }
      // Gemini has no end-of-stream marker: an answer without a finish reason was cut short.
      if (!assembler.finished && assembler.incompleteCallError() === undefined) {
        throw this.interrupted(assembler, 'the stream ended before Gemini finished the answer.', undefined);
      }
      yield* assembler.finish();
    } catch (error) {
      yield { type: 'error', error: this.streamError(error, request.signal, operation, assembler) };
    } finally {
      // A consumer that stops reading early closes the connection here.
      connection.abort();
      await chunks?.return(undefined).catch(() => undefined);
    }
  }

  /** Everything checked before anything is sent. */
  private build(request: ModelRequest): BuiltRequest {
    if (request.signal?.aborted) {
      throw new AbortedError({
        operation: `The ${PROVIDER} request to '${this.modelId}'`,
        cause: request.signal.reason,
      });
    }
    return buildRequest(request, {
      modelId: this.modelId,
      capabilities: this.capabilities,
      traits: this.config.traits,
      contentLimits: this.config.contentLimits,
      isVertexAI: () => this.config.getClient().vertexai,
    });
  }

  /** Sends through the SDK, retrying what failed before the answer started (the shared `withRetries`). */
  private async send<T>(
    built: BuiltRequest,
    signal: AbortSignal | undefined,
    operation: string,
    call: (client: GoogleGenAI, params: GenerateContentParameters) => Promise<T>,
    abortSignal: AbortSignal | undefined = signal,
  ): Promise<T> {
    const client = this.config.getClient();
    const params: GenerateContentParameters = {
      ...built.params,
      config: {
        ...built.params.config,
        // The SDK's retries off for this request, a ready client's included: `withRetries` retries, once.
        httpOptions: { retryOptions: { attempts: 1 } },
        ...(abortSignal === undefined ? {} : { abortSignal }),
      },
    };
    return withRetries(() => call(client, params), {
      retry: this.config.retry,
      signal,
      operation,
      classify: (thrown) => ({ error: mapThrownError(thrown, signal, operation, this.config.timeoutMs) }),
    });
  }

  private interrupted(assembler: StreamAssembler, reason: string, cause: unknown): StreamInterruptedError {
    return new StreamInterruptedError({
      provider: PROVIDER,
      providerCode: 'connection_lost',
      message: `${PROVIDER}: ${reason}`,
      partialText: assembler.text,
      ...(cause === undefined ? {} : { cause }),
    });
  }

  /**
   * A failure of a stream as its final part: an abort, an error of the family (an API error inside the stream
   * included), a call whose arguments were still arriving (`IncompleteToolCallError`), or a lost connection.
   */
  private streamError(
    error: unknown,
    signal: AbortSignal | undefined,
    operation: string,
    assembler: StreamAssembler | undefined,
  ): Error {
    if (signal?.aborted) return new AbortedError({ operation, cause: signal.reason });
    if (OrgError.isInstance(error) || assembler === undefined)
      return mapThrownError(error, signal, operation, this.config.timeoutMs);
    const mapped = mapThrownError(error, signal, operation, this.config.timeoutMs);
    if (
      mapped.code !== 'provider_unavailable' ||
      (mapped as { providerCode?: string }).providerCode !== 'connection_error'
    ) {
      return mapped;
    }
    const incomplete = assembler.incompleteCallError();
    if (incomplete !== undefined) return incomplete;
    return this.interrupted(assembler, 'the connection was lost mid-stream.', error);
  }
}
