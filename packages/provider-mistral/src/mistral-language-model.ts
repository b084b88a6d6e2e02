import type { Mistral } from '@mistralai/mistralai';
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
import { type ErrorContext, headersOf, mapMistralError } from './map-error.js';
import { mapResponse } from './map-response.js';
import { PROVIDER } from './provider-name.js';
import { StreamAssembler } from './stream-assembler.js';

/**
 * What a model needs from its provider: the SDK client (created on first use) and the shared settings. Built by
 * `createMistral`; exported only so that declarations of `MistralLanguageModel` are complete.
 *
 * @example
 * type Config = MistralLanguageModelConfig; // rarely needed: use createMistral
 */
export interface MistralLanguageModelConfig {
  /**
   * The SDK client to send requests with. Called at each request rather than given once, so that the client (and
   * the `MISTRAL_API_KEY` lookup behind it) is created on first use, not when the model is made.
   */
  readonly getClient: () => Mistral;
  /** What the model supports (tools, parallel calls, images, reasoning), as `capabilities` reports it. */
  readonly capabilities: ModelCapabilities;
  /** How failed requests are retried before the answer starts: attempts, back-off, and the longest server wait. */
  readonly retry: ResolvedRetryOptions;
  /** Size limits of inline images and files, checked before sending. */
  readonly contentLimits: ContentLimits;
}

/** The per-request options of the SDK's `chat` methods. */
type SdkRequestOptions = NonNullable<Parameters<Mistral['chat']['complete']>[1]>;

/**
 * A `LanguageModel` over Mistral's chat completions, through `@mistralai/mistralai`. Create it with
 * `mistral(modelId)` or `createMistral(options)(modelId)`; see the package README for the wire mapping.
 *
 * `generate` sends `chat.complete`; `stream` reads `chat.stream` and yields core parts, ending with exactly one
 * `finish` or `error` part (it never throws). Requests that fail before the answer starts are retried by the adapter.
 *
 * @example
 * const model: MistralLanguageModel = mistral('mistral-large-latest');
 * const response = await model.generate({ messages: [{ role: 'user', content: 'Hello' }] });
 */
export class MistralLanguageModel implements LanguageModel {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly provider = PROVIDER;
  readonly modelId: string;
  readonly capabilities: ModelCapabilities;
  readonly #config: MistralLanguageModelConfig;

  constructor(modelId: string, config: MistralLanguageModelConfig) {
    this.modelId = modelId;
    this.capabilities = config.capabilities;
    this.#config = config;
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    const context: ErrorContext = { operation: this.#operation(), signal: request.signal };
    try {
      const built = this.#build(request);
      const client = this.#client();
      const response = await withRetries(
        () => client.chat.complete(built.body, this.#requestOptions(request.signal)),
        {
          retry: this.#config.retry,
          signal: request.signal,
          operation: context.operation,
          classify: (error) => this.#classify(error, context),
        },
      );
      return mapResponse(response, {
        policy: built.policy,
        adjustments: built.adjustments,
        includeRawResponse: request.includeRawResponse === true,
      });
    } catch (error) {
      throw mapMistralError(error, context);
    }
  }

  async *stream(request: ModelRequest): AsyncGenerator<StreamPart, void, undefined> {
    const context: ErrorContext = { operation: this.#operation(), signal: request.signal };
    let built: BuiltRequest;
    let events: AsyncIterable<unknown>;
    try {
      built = this.#build(request);
      const client = this.#client();
      events = await withRetries(() => client.chat.stream(built.body, this.#requestOptions(request.signal)), {
        retry: this.#config.retry,
        signal: request.signal,
        operation: context.operation,
        classify: (error) => this.#classify(error, context),
      });
    } catch (error) {
      yield { type: 'error', error: mapMistralError(error, context) };
      return;
    }
    const assembler = new StreamAssembler({ policy: built.policy, adjustments: built.adjustments });
    try {
      // Leaving the loop early (a consumer that stops reading) cancels the SDK's stream and its request.
      for await (const event of events) yield* assembler.push(event);
      // The SDK ends its stream quietly when the request is aborted.
      if (request.signal?.aborted === true) {
        yield {
          type: 'error',
          error: new AbortedError({ operation: context.operation, cause: request.signal.reason }),
        };
        return;
      }
      yield* assembler.finish();
    } catch (error) {
      yield { type: 'error', error: mapMistralError(error, { ...context, partialText: assembler.text }) };
    }
  }

  #build(request: ModelRequest): BuiltRequest {
    if (request.signal?.aborted === true) {
      throw new AbortedError({ operation: this.#operation(), cause: request.signal.reason });
    }
    return buildRequest(request, {
      modelId: this.modelId,
      capabilities: this.capabilities,
      contentLimits: this.#config.contentLimits,
    });
  }

  #client(): Mistral {
    try {
      return this.#config.getClient();
    } catch (error) {
      throw new InvalidProviderOptionsError({
        provider: PROVIDER,
        option: 'client',
        message: `The Mistral SDK client could not be created: ${errorMessageOf(error)}`,
      });
    }
  }

  /** The SDK's own retries are off: the adapter retries with `@org/core`'s `withRetries`, honouring its budget. */
  #requestOptions(signal: AbortSignal | undefined): SdkRequestOptions {
    return { retries: { strategy: 'none' }, ...(signal === undefined ? {} : { signal }) };
  }

  #operation(): string {
    return `The ${PROVIDER} request to '${this.modelId}'`;
  }

  /** A failure before the answer, for the retry loop: the mapped error, and the server's requested wait. */
  #classify(error: unknown, context: ErrorContext): RetryFailure {
    const mapped: OrgError = mapMistralError(error, context);
    return { error: mapped, ...retryHintsFromHeaders(headersOf(error)) };
  }
}
