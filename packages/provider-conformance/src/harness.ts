import type { FinishReason, JsonSchema, LanguageModel, MessageRole, ToolCall } from '@org/core';

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
