import {
  type BedrockRuntimeClient,
  ConverseCommand,
  type ConverseResponse,
  ConverseStreamCommand,
  type ConverseStreamOutput,
} from '@aws-sdk/client-bedrock-runtime';
import {
  AbortedError,
  errorMessageOf,
  type LanguageModel,
  type ModelCapabilities,
  type ModelRequest,
  type ModelResponse,
  mergeCapabilities,
  OrgError,
  ProviderError,
  type ResolvedRetryOptions,
  SPECIFICATION_VERSION,
  type StreamPart,
  ToolChoice,
  UnsupportedToolChoiceError,
  withRetries,
} from '@org/core';
import {
  type BedrockModelSettings,
  NONE_TOOL_CHOICE_POLICIES,
  type NoneToolChoicePolicy,
} from './bedrock-model-settings.js';
import { type BuiltRequest, buildRequest } from './build-request.js';
import { DEFAULT_BEDROCK_CAPABILITIES } from './capabilities.js';
import { InvalidBedrockOptionsError } from './invalid-bedrock-options-error.js';
import { BEDROCK_PROVIDER, mapBedrockError, unsupportedToolChoiceMode } from './map-error.js';
import { mapResponse } from './map-response.js';
import { type RetryOptions, resolveBedrockRetryOptions } from './retry-options.js';
import { StreamAssembler } from './stream-assembler.js';

/**
 * How a model reaches its client: created lazily, so importing the default instance has no side effect. Built by
 * `createBedrock`; exported for the type of the `BedrockLanguageModel` constructor.
 *
 * @example
 * const model = createBedrock({ client })('us.amazon.nova-lite-v1:0'); // the usual way to get a source
 */
export interface BedrockClientSource {
  /** The SDK client, created on first use (so missing credentials fail the first call, not the import). */
  readonly getClient: () => BedrockRuntimeClient;
  /** Called before every request, so secrets resolved by the credential chain get registered for redaction. */
  readonly beforeRequest: (client: BedrockRuntimeClient) => Promise<void>;
  readonly clientSupplied: boolean;
  readonly retry: RetryOptions | undefined;
}

/**
 * A Bedrock model behind the `LanguageModel` contract, over Converse (`generate`) and ConverseStream (`stream`).
 * Created by a provider: `bedrock('anthropic.claude-3-5-sonnet-20240620-v1:0')`.
 *
 * @example
 * const model = createBedrock({ region: 'us-east-1' })('us.amazon.nova-pro-v1:0');
 * const response = await model.generate({ messages: [{ role: 'user', content: 'Hi' }] });
 */
export class BedrockLanguageModel implements LanguageModel {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly provider = BEDROCK_PROVIDER;
  readonly modelId: string;
  readonly capabilities: ModelCapabilities;
  private readonly settings: BedrockModelSettings;
  private readonly source: BedrockClientSource;
  private readonly retry: ResolvedRetryOptions;
  private readonly nonePolicy: NoneToolChoicePolicy;

  constructor(modelId: string, settings: BedrockModelSettings, source: BedrockClientSource) {
    if (typeof modelId !== 'string' || modelId.trim() === '') {
      throw new InvalidBedrockOptionsError({
        option: 'modelId',
        value: modelId,
        expected: 'a model id, an inference profile id or an ARN',
      });
    }
    const policy = settings.noneToolChoicePolicy ?? 'instruct-and-reject';
    if (!NONE_TOOL_CHOICE_POLICIES.includes(policy)) {
      throw new InvalidBedrockOptionsError({
        option: 'noneToolChoicePolicy',
        value: policy,
        expected: NONE_TOOL_CHOICE_POLICIES.map((value) => `'${value}'`).join(', '),
        accepted: NONE_TOOL_CHOICE_POLICIES,
      });
    }
    this.modelId = modelId;
    this.settings = settings;
    this.source = source;
    this.nonePolicy = policy;
    this.capabilities = mergeCapabilities(DEFAULT_BEDROCK_CAPABILITIES, settings.capabilities);
    // A model's retry fields override the provider's one by one.
    this.retry = resolveBedrockRetryOptions(source.retry, settings.retry, {
      clientSupplied: source.clientSupplied,
    });
  }

  /** One model call, answered whole (`LanguageModel.generate`). */
  async generate(request: ModelRequest): Promise<ModelResponse> {
    let prepared = this.prepare(request, false);
    let output: ConverseResponse;
    try {
      output = await this.send(
        (client, options) => client.send(new ConverseCommand(prepared.input), options),
        request,
      );
    } catch (error) {
      prepared = this.fallbackOrThrow(error, request);
      const retried = prepared;
      output = await this.send(
        (client, options) => client.send(new ConverseCommand(retried.input), options),
        request,
      );
    }
    return mapResponse(output, {
      names: prepared.tools.names,
      propertyNames: prepared.tools.propertyNames,
      callPolicy: prepared.tools.callPolicy,
      adjustments: prepared.adjustments,
      includeRawResponse: request.includeRawResponse === true,
    });
  }

  /** One model call, streamed as it is written (`LanguageModel.stream`). */
  async *stream(request: ModelRequest): AsyncGenerator<StreamPart, void, undefined> {
    if (!this.capabilities.streaming) {
      yield* this.streamFromGenerate(request);
      return;
    }
    yield* this.streamConverse(request);
  }

  /**
   * For a model declared with `streaming: false` (some Bedrock models refuse tool use in ConverseStream): one
   * Converse call, replayed as stream parts.
   */
  private async *streamFromGenerate(request: ModelRequest): AsyncGenerator<StreamPart, void, undefined> {
    let response: ModelResponse;
    try {
      response = await this.generate(request);
    } catch (error) {
      yield { type: 'error', error: toError(error, this.modelId) };
      return;
    }
    for (const reasoning of response.reasoning ?? []) {
      if (reasoning.text !== '') yield { type: 'reasoning-delta', delta: reasoning.text };
      yield { type: 'reasoning', reasoning };
    }
    if (response.text !== '') yield { type: 'text-delta', delta: response.text };
    for (const toolCall of response.toolCalls) {
      yield { type: 'tool-call-start', toolCallId: toolCall.id, toolName: toolCall.toolName };
      yield { type: 'tool-call-delta', toolCallId: toolCall.id, argumentsDelta: toolCall.arguments };
      yield { type: 'tool-call', toolCall };
    }
    yield {
      type: 'finish',
      finishReason: response.finishReason,
      ...(response.rawFinishReason === undefined ? {} : { rawFinishReason: response.rawFinishReason }),
      usage: response.usage,
      adjustments: response.adjustments,
    };
  }

  private async *streamConverse(request: ModelRequest): AsyncGenerator<StreamPart, void, undefined> {
    // Follows the caller's signal, and closes the HTTP/2 stream whenever this generator ends: the consumer stopped
    // early, or the answer failed while the server was still sending.
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(request.signal?.reason);
    if (request.signal?.aborted) onAbort();
    request.signal?.addEventListener('abort', onAbort, { once: true });
    const linked: ModelRequest = { ...request, signal: controller.signal };
    try {
      let prepared: BuiltRequest;
      let events: AsyncIterable<ConverseStreamOutput>;
      try {
        prepared = this.prepare(request, false);
        try {
          events = await this.openStream(prepared, linked);
        } catch (error) {
          prepared = this.fallbackOrThrow(error, request);
          events = await this.openStream(prepared, linked);
        }
      } catch (error) {
        yield { type: 'error', error: toError(error, this.modelId) };
        return;
      }
      const assembler = new StreamAssembler({
        modelId: this.modelId,
        names: prepared.tools.names,
        propertyNames: prepared.tools.propertyNames,
        callPolicy: prepared.tools.callPolicy,
        adjustments: prepared.adjustments,
      });
      try {
        for await (const event of events) {
          for (const part of assembler.push(event)) yield part;
          if (assembler.failed) return;
        }
      } catch (error) {
        yield request.signal?.aborted ? abortedPart(this.modelId, request.signal) : assembler.fail(error);
        return;
      }
      // An abort can end the SDK's event stream quietly, as if the answer were complete.
      yield request.signal?.aborted ? abortedPart(this.modelId, request.signal) : assembler.end();
    } finally {
      request.signal?.removeEventListener('abort', onAbort);
      controller.abort();
    }
  }

  private async openStream(
    prepared: BuiltRequest,
    request: ModelRequest,
  ): Promise<AsyncIterable<ConverseStreamOutput>> {
    const response = await this.send(
      (client, options) => client.send(new ConverseStreamCommand(prepared.input), options),
      request,
    );
    if (response.stream === undefined) {
      throw new ProviderError({
        provider: BEDROCK_PROVIDER,
        message: `Bedrock (${this.modelId}): ConverseStream answered without an event stream.`,
      });
    }
    return response.stream;
  }

  private async send<T>(
    call: (client: BedrockRuntimeClient, options: { abortSignal?: AbortSignal }) => Promise<T>,
    request: ModelRequest,
  ): Promise<T> {
    const client = this.source.getClient();
    return withRetries(
      async () => {
        await this.source.beforeRequest(client);
        return call(client, request.signal === undefined ? {} : { abortSignal: request.signal });
      },
      {
        retry: this.retry,
        signal: request.signal,
        operation: `Bedrock call to '${this.modelId}'`,
        classify: (thrown) => mapBedrockError(thrown, { modelId: this.modelId }),
      },
    );
  }

  /**
   * After a failed first attempt: when Bedrock said the model does not support the requested `any` / `tool`
   * choice, either the request prepared with the mode emulated (opt-in) or an `UnsupportedToolChoiceError`.
   * Any other error is rethrown.
   */
  private fallbackOrThrow(error: unknown, request: ModelRequest): BuiltRequest {
    const cause = OrgError.isInstance(error) ? error.cause : error;
    const mode = unsupportedToolChoiceMode(cause);
    const requested = (request.toolChoice ?? ToolChoice.auto()).type;
    if (mode === undefined || mode !== requested) throw error;
    if (this.settings.emulateUnsupportedToolChoice !== true) {
      throw new UnsupportedToolChoiceError({
        provider: BEDROCK_PROVIDER,
        modelId: this.modelId,
        mode,
        message:
          `Model '${this.modelId}' on bedrock rejected tool choice '${mode}' (${errorMessageOf(cause)}). ` +
          `Declare capabilities: { toolChoice: { ${mode}: 'emulated' } } or set emulateUnsupportedToolChoice: true.`,
        cause: error,
      });
    }
    return this.prepare(request, true);
  }

  private prepare(request: ModelRequest, forceEmulation: boolean): BuiltRequest {
    return buildRequest(request, {
      modelId: this.modelId,
      capabilities: this.capabilities,
      noneToolChoicePolicy: this.nonePolicy,
      forceEmulation,
    });
  }
}

function abortedPart(modelId: string, signal: AbortSignal): StreamPart {
  return {
    type: 'error',
    error: new AbortedError({ operation: `Bedrock stream from '${modelId}'`, cause: signal.reason }),
  };
}

/** Anything thrown while preparing or opening a call, as a member of the core error family. */
function toError(thrown: unknown, modelId: string): Error {
  if (OrgError.isInstance(thrown)) return thrown as Error;
  return mapBedrockError(thrown, { modelId }).error;
}
