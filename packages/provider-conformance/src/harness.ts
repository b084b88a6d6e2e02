import type {
  ContentLimits,
  FinishReason,
  JsonSchema,
  LanguageModel,
  MessageRole,
  ToolCall,
} from '@org/core';

/**
 * The next answer the fake server (or offline model) gives, in provider-neutral terms. The harness renders it in
 * the provider's wire format: a JSON body for `generate`, server-sent events (or an event stream) for `stream`.
 */
export type ScriptedReply = ResponseReply | ErrorReply | DisconnectReply | StallReply;

/** A successful answer. */
export interface ResponseReply {
  readonly type: 'response';
  /** Assistant text; for a stream, the harness splits it into several deltas. */
  readonly text?: string;
  /** Tool calls, arguments as raw JSON text; for a stream, the harness splits each call's arguments into deltas. */
  readonly toolCalls?: readonly ToolCall[];
  /** Defaults to `tool-calls` when there are tool calls, `stop` otherwise. Rendered as the provider's own value. */
  readonly finishReason?: FinishReason;
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number };
  /**
   * Reasoning blocks the answer starts with, in order (only scripted for harnesses declaring
   * `capabilities.reasoning: 'round-trip'`). For a stream, the harness splits each block's text into several deltas.
   */
  readonly reasoning?: readonly ScriptedReasoning[];
}

/**
 * One reasoning block of a scripted answer. It carries every opaque field any provider uses; the harness renders
 * the ones its wire has: a signed block (`text` and `signature`) as Anthropic `thinking` or Bedrock
 * `reasoningText`, a withheld block (`text: ''` and `redactedData`) as Anthropic `redacted_thinking` or Bedrock
 * `redactedContent`, and either as an OpenAI Responses `reasoning` item (`id`, `text` as its summary,
 * `encryptedContent` as `encrypted_content`).
 */
export interface ScriptedReasoning {
  /** The reasoning text the provider shows; `''` for a withheld block. */
  readonly text: string;
  /** Set on a signed block. */
  readonly signature?: string;
  /** Set on a withheld block (base64, as providers send it). */
  readonly redactedData?: string;
  /** The reasoning item's id, for providers that give one. */
  readonly id: string;
  /** The encrypted form, for providers that encrypt reasoning. */
  readonly encryptedContent: string;
}

/**
 * An error answer. The harness renders it as the provider does: the status, the headers, and a body carrying
 * `message` (for `reason: 'context-length-exceeded'`, the provider's own context-length error, whatever its status).
 */
export interface ErrorReply {
  readonly type: 'error';
  readonly status: number;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly reason?: 'context-length-exceeded';
}

/**
 * A stream that starts normally and then loses its connection: the harness sends `text` (as deltas) and the
 * beginning of `partialToolCall` (its id, name and `partialArguments`), then destroys the socket without ending
 * the stream. Only used with `stream()`.
 */
export interface DisconnectReply {
  readonly type: 'disconnect';
  readonly text: string;
  readonly partialToolCall?: {
    readonly id: string;
    readonly toolName: string;
    readonly partialArguments: string;
  };
}

/**
 * An answer that never completes: for `stream()` the harness sends the headers and `text` (when given), then waits;
 * for `generate()` it sends nothing. It ends only when the client goes away (the suite aborts the request).
 */
export interface StallReply {
  readonly type: 'stall';
  readonly text?: string;
}

/**
 * How the wire request expressed the tool choice, projected back to the neutral modes. `undefined` means the
 * request did not express one (the provider's default, `auto`).
 */
export type WireToolChoice =
  | { readonly type: 'auto' }
  | { readonly type: 'required' }
  | { readonly type: 'none' }
  | { readonly type: 'tool'; readonly toolName: string }
  | undefined;

/**
 * One reasoning block the wire request carried back in an assistant message, with the fields the wire expressed:
 * Anthropic `thinking` (`text`, `signature`) and `redacted_thinking` (`redactedData`), Bedrock `reasoningContent`
 * (`reasoningText.text` and `.signature`, `redactedContent` as base64), OpenAI Responses `reasoning` items (`id`,
 * the summary texts joined as `text`, `encrypted_content`). Leave out a field the wire did not carry.
 */
export interface WireReasoning {
  /** The reasoning text on the wire; `''` when it carried none. */
  readonly text: string;
  readonly signature?: string;
  readonly redactedData?: string;
  readonly id?: string;
  readonly encryptedContent?: string;
}

/**
 * One content part of a user message or a tool result as the wire carried it: inline data as base64 (a data URL
 * split into its media type and data, Bedrock `bytes` as the base64 of the JSON body), and the media type as a MIME
 * type (Bedrock `format: 'png'` is `image/png`, `format: 'pdf'` is `application/pdf`). Leave out a field the wire
 * did not carry.
 */
export type WireContentPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly mediaType?: string; readonly data?: string; readonly url?: string }
  | {
      readonly type: 'file';
      readonly mediaType?: string;
      readonly data?: string;
      readonly url?: string;
      readonly filename?: string;
    };

/**
 * The structured-output format the wire request asked for (OpenAI Responses `text.format` and Chat Completions
 * `response_format` of type `json_schema`, Anthropic `output_format`, ...), with the schema as sent.
 */
export interface WireResponseFormat {
  /** The schema's name, where the wire carries one. */
  readonly name?: string;
  readonly schema: JsonSchema;
}

/** One message (or message-like item) of the wire request, projected to what the suite checks. */
export interface WireMessage {
  /**
   * The neutral role. Provider shapes that carry tool results inside a user message (Anthropic `tool_result`
   * blocks, Bedrock `toolResult`) are projected as one `tool` message per result; Responses API items as
   * `assistant` / `tool` messages, consecutive `function_call` items making one `assistant` message with all their
   * ids. A system prompt carried outside the list (Anthropic and Bedrock `system`) is a leading `system` message.
   */
  readonly role: MessageRole;
  /** For `assistant`: the ids of the tool calls it carries, in order. */
  readonly toolCallIds?: readonly string[];
  /** For `tool`: the id of the call it answers. */
  readonly toolCallId?: string;
  /**
   * For `assistant`: the reasoning blocks it carried back, in order; `undefined` or `[]` when none. Projected by
   * harnesses declaring `capabilities.reasoning`.
   */
  readonly reasoning?: readonly WireReasoning[];
  /**
   * For `user` and `tool`: the content parts as the wire carried them, in order (plain text is one text part).
   * Projected by harnesses declaring `capabilities.contentParts`.
   */
  readonly content?: readonly WireContentPart[];
}

/** One request as it went on the wire, projected to provider-neutral facts. */
export interface WireRequest {
  /** The tool choice as the wire expressed it. */
  readonly toolChoice: WireToolChoice;
  /**
   * `false` when the wire request disabled parallel tool calls (OpenAI `parallel_tool_calls: false`, Anthropic
   * `disable_parallel_tool_use: true`), `true` when it enabled them explicitly, `undefined` when it said nothing.
   */
  readonly parallelToolCalls: boolean | undefined;
  /** The tools sent, by name, with the JSON Schema of their arguments as sent. */
  readonly tools: readonly { readonly name: string; readonly inputSchema: JsonSchema }[];
  readonly messages: readonly WireMessage[];
  /** Whether the request asked for a streamed answer. */
  readonly stream: boolean;
  /**
   * The structured-output format the wire asked for; `undefined` when none. Projected by harnesses declaring
   * `capabilities.structuredOutput`.
   */
  readonly responseFormat?: WireResponseFormat | undefined;
  /**
   * The request body exactly as the server received it, as text, so the suite can check that something (reasoning
   * of another provider) is nowhere on the wire. Projected by harnesses declaring `capabilities.reasoning`.
   */
  readonly rawBody?: string;
}

/**
 * What the harness can do beyond scripting responses. A model without a network (a scripted model) leaves the
 * network cases off; each case group not offered is reported as absent, never silently passed.
 */
export interface HarnessCapabilities {
  /** The fixture can answer with `ErrorReply` (HTTP status, headers, provider error body). */
  readonly errorReplies?: boolean;
  /** The fixture can drop the connection mid-stream (`DisconnectReply`). */
  readonly disconnects?: boolean;
  /** The fixture can hold an answer open until the client aborts (`StallReply`). */
  readonly stalls?: boolean;
  /**
   * How the fixture handles reasoning. `'round-trip'`: the fake server renders `ResponseReply.reasoning` in the
   * provider's wire form, and the projection fills `WireMessage.reasoning` and `WireRequest.rawBody`.
   * `'not-on-wire'`: the provider's wire API carries no reasoning at all (OpenAI Chat Completions); only
   * `WireRequest.rawBody` is projected, and the cases check that reasoning in the history stays off the wire and is
   * reported. Left out, the reasoning cases fail, naming this capability.
   */
  readonly reasoning?: 'round-trip' | 'not-on-wire';
  /**
   * The projection fills `WireMessage.content`, and `limits` are the adapter's media limits (its
   * `content-limits.ts`), which the suite exceeds by one byte. Left out, the content-part cases fail, naming this
   * capability.
   */
  readonly contentParts?: { readonly limits: ContentLimits };
  /**
   * The projection fills `WireRequest.responseFormat`. Needed when the model declares
   * `capabilities.structuredOutput`; left out then, the structured-output cases fail, naming this capability.
   */
  readonly structuredOutput?: boolean;
  /**
   * The fake server streams a reply's tool calls one after the other, as OpenAI, Anthropic and Bedrock do: each
   * call's start, argument deltas and end before the next call begins. The early-completion case (the first call's
   * `tool-call` part before the second call's `tool-call-start`) needs a stream that shows that order; where the order
   * fails and this is not declared, the case fails naming it. A model without a network renders calls in order and
   * needs nothing.
   */
  readonly sequentialToolCalls?: boolean;
}

/** One model connected to its own fake server, for one test. */
export interface ConformanceFixture {
  /** The adapter under test, connected to this fixture's fake server, with the adapter's own retries off. */
  readonly model: LanguageModel;
  /** Queues the answer to the next request; replies are consumed in order, one per request. */
  enqueue(reply: ScriptedReply): void;
  /** Every request received so far, oldest first, projected to neutral facts. */
  requests(): readonly WireRequest[];
  /** Releases everything the fixture holds (closes the server and its sockets). */
  close(): Promise<void>;
}

/** What an adapter author hands to `runConformanceSuite`. */
export interface ConformanceHarness {
  /** Shown in the test names, e.g. `openai (responses)`. */
  readonly name: string;
  readonly capabilities?: HarnessCapabilities;
  /** Creates a fresh fixture; the suite calls it once per test and closes it after the test. */
  createFixture(): Promise<ConformanceFixture>;
}
