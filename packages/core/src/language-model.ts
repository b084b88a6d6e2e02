import type { Adjustment } from './adjustment.js';
import { UnsupportedSpecificationVersionError } from './errors.js';
import type { JsonSchema } from './json.js';
import type { Message, ReasoningPart } from './message.js';
import type { ModelCapabilities } from './model-capabilities.js';
import type { ToolCall, ToolSpec } from './tool-call.js';
import type { ToolChoice } from './tool-choice.js';
import type { Usage } from './usage.js';

/** The version of the `LanguageModel` contract this core defines. Bumped on any breaking change to it. */
export const SPECIFICATION_VERSION = 'v1';

/** The version of the `LanguageModel` contract, as a type. */
export type SpecificationVersion = typeof SPECIFICATION_VERSION;

/** Why a model stopped. */
export type FinishReason =
  /** A natural end of the answer, or a stop sequence. */
  | 'stop'
  /** The output token limit was hit; tool-call arguments may be cut off. */
  | 'length'
  /** The model stopped to have its tool calls executed. */
  | 'tool-calls'
  /** A safety system withheld or stopped the answer (including refusals). */
  | 'content-filter'
  /** The provider reported an error in place of an answer. */
  | 'error'
  /** Anything else; the provider's own value is in `rawFinishReason`. */
  | 'other';

/** Provider-specific options, keyed by provider name, passed through untouched: `{ openai: { store: true } }`. */
export type ProviderOptions = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/** One request to a model. */
export interface ModelRequest {
  readonly messages: readonly Message[];
  readonly tools?: readonly ToolSpec[];
  /** Defaults to `auto`. */
  readonly toolChoice?: ToolChoice;
  /** Allow several tool calls in one turn. Unset leaves the provider's default. */
  readonly parallelToolCalls?: boolean;
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  readonly stopSequences?: readonly string[];
  readonly signal?: AbortSignal;
  readonly providerOptions?: ProviderOptions;
  /** Attach the provider's raw response to the result (`rawResponse`). */
  readonly includeRawResponse?: boolean;
  /**
   * Ask for a final answer that is JSON matching `schema`. Sent natively where the model declares
   * `capabilities.structuredOutput`; a request with it to a model without that capability fails with
   * `InvalidRequestError` (the agent loop uses a final tool call there instead).
   */
  readonly responseFormat?: ResponseFormat;
}

/** A JSON final answer matching a schema (`ModelRequest.responseFormat`). */
export interface ResponseFormat {
  readonly type: 'json';
  /** A name for the schema, as providers require one (`[A-Za-z0-9_-]{1,64}`). */
  readonly name: string;
  readonly description?: string;
  /** The JSON Schema of the answer; adapters convert it to their dialect (`openai-strict`). */
  readonly schema: JsonSchema;
}

/** A model's complete answer. */
export interface ModelResponse {
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
  /** The answer's reasoning, in order, when the model reasoned and the provider returned it (even if only encrypted). */
  readonly reasoning?: readonly ReasoningPart[];
  readonly finishReason: FinishReason;
  /** The provider's own finish reason, e.g. `end_turn`, `tool_use`, `max_tokens`. */
  readonly rawFinishReason?: string;
  readonly usage: Usage;
  /** Every change the adapter made to honour the request; empty when none. */
  readonly adjustments: readonly Adjustment[];
  /** The provider's response id, when it has one. */
  readonly responseId?: string;
  /** The provider's raw response, when `includeRawResponse` was set. */
  readonly rawResponse?: unknown;
}

/** A piece of text. */
export interface TextDeltaPart {
  readonly type: 'text-delta';
  readonly delta: string;
}

/** A piece of reasoning text, as the model thinks. */
export interface ReasoningDeltaPart {
  readonly type: 'reasoning-delta';
  readonly delta: string;
}

/**
 * One complete reasoning part (its text, and its signature or encrypted data), emitted once it has ended, after its
 * `reasoning-delta` parts. This is what is sent back to the provider on the next turn.
 */
export interface ReasoningStreamPart {
  readonly type: 'reasoning';
  readonly reasoning: ReasoningPart;
}

/** A tool call begins; its arguments follow in `tool-call-delta` parts. */
export interface ToolCallStartPart {
  readonly type: 'tool-call-start';
  readonly toolCallId: string;
  readonly toolName: string;
}

/** A fragment of a tool call's raw argument text. */
export interface ToolCallDeltaPart {
  readonly type: 'tool-call-delta';
  readonly toolCallId: string;
  readonly argumentsDelta: string;
}

/**
 * A complete tool call. Emitted once per call, only when its arguments are complete: as soon as the provider's stream
 * shows the call complete, possibly before later parts of the answer (the agent loop may start it then), and in the
 * order of `ModelResponse.toolCalls`. A stream that fails afterwards still ends with its `error` part: calls already
 * emitted belong to a lost answer, and a consumer that started them aborts them.
 */
export interface ToolCallPart {
  readonly type: 'tool-call';
  readonly toolCall: ToolCall;
}

/** The end of a successful stream. */
export interface FinishPart {
  readonly type: 'finish';
  readonly finishReason: FinishReason;
  readonly rawFinishReason?: string;
  readonly usage: Usage;
  readonly adjustments: readonly Adjustment[];
  readonly responseId?: string;
}

/** A failure during the stream; it is the last part. The error is one of the core error family. */
export interface ErrorPart {
  readonly type: 'error';
  readonly error: Error;
}

/** The parts of a model stream, discriminated by `type`. */
export type StreamPart =
  | TextDeltaPart
  | ReasoningDeltaPart
  | ReasoningStreamPart
  | ToolCallStartPart
  | ToolCallDeltaPart
  | ToolCallPart
  | FinishPart
  | ErrorPart;

/**
 * The contract every provider adapter implements. `generate` answers once; `stream` yields parts as they arrive,
 * ending with exactly one `finish` or `error` part. Errors are members of the core error family.
 */
export interface LanguageModel {
  readonly specificationVersion: SpecificationVersion;
  /** The provider's name, e.g. `openai`, `anthropic`, `bedrock`, `scripted`. */
  readonly provider: string;
  readonly modelId: string;
  readonly capabilities: ModelCapabilities;
  /** One model call, answered whole; rejects with a core error (a `ProviderError`, `AbortedError`, ...). */
  generate(request: ModelRequest): Promise<ModelResponse>;
  /** One model call, answered as it is written: deltas, then exactly one `finish` or `error` part. */
  stream(request: ModelRequest): AsyncIterable<StreamPart>;
}

/**
 * Checks that a value implements the `LanguageModel` contract version this core understands, and returns it typed.
 * Throws `UnsupportedSpecificationVersionError` otherwise, naming both versions.
 *
 * @example
 * const model = assertLanguageModel(userSuppliedModel);
 */
export function assertLanguageModel(model: unknown): LanguageModel {
  const candidate = (typeof model === 'object' && model !== null ? model : {}) as Partial<LanguageModel>;
  const provider = typeof candidate.provider === 'string' ? candidate.provider : undefined;
  if (
    candidate.specificationVersion !== SPECIFICATION_VERSION ||
    typeof candidate.generate !== 'function' ||
    typeof candidate.stream !== 'function'
  ) {
    throw new UnsupportedSpecificationVersionError({
      expected: SPECIFICATION_VERSION,
      actual: candidate.specificationVersion,
      ...(provider === undefined ? {} : { provider }),
    });
  }
  return candidate as LanguageModel;
}
