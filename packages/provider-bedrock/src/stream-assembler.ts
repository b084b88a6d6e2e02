import type {
  ConverseStreamOutput,
  ReasoningContentBlockDelta,
  TokenUsage,
} from '@aws-sdk/client-bedrock-runtime';
import {
  AbortedError,
  type Adjustment,
  errorMessageOf,
  type FinishReason,
  IncompleteToolCallError,
  isToolCallAccepted,
  type JsonKeyRewriter,
  OrgError,
  ProviderError,
  ProviderUnavailableError,
  reportToolCallPolicy,
  StreamInterruptedError,
  type StreamPart,
  type ToolCall,
  type ToolCallPolicy,
  type ToolPropertyNames,
} from '@org/core';
import { BEDROCK_PROVIDER, mapBedrockError } from './map-error.js';
import { mapFinishReason } from './map-finish-reason.js';
import { mapUsage } from './map-usage.js';
import { reasoningPart } from './reasoning-blocks.js';
import type { ToolNameMap } from './tool-names.js';

interface ToolBlock {
  readonly index: number;
  readonly id: string;
  readonly toolName: string;
  readonly rejected: boolean;
  /** The input so far, property names sent renamed already mapped back. */
  arguments: string;
  /** Maps renamed property names back as the input streams; `undefined` when the tool has none. */
  readonly rewriter: JsonKeyRewriter | undefined;
  stopped: boolean;
}

interface ReasoningBlock {
  readonly index: number;
  text: string;
  signature: string | undefined;
  /** `redactedContent` deltas, in order. */
  readonly redacted: Uint8Array[];
  /** The `reasoning` part was emitted (at `contentBlockStop`, or at `messageStop` for a block never stopped). */
  emitted: boolean;
}

/** What the assembler needs to know about the request. */
export interface StreamAssemblerContext {
  readonly modelId: string;
  readonly names: ToolNameMap;
  /** Property names sent renamed; `tool-call-delta` parts carry the text with the tool's own names restored. */
  readonly propertyNames?: ToolPropertyNames;
  readonly callPolicy: ToolCallPolicy;
  /** Adjustments made while preparing the request; repeated on the `finish` part. */
  readonly adjustments: readonly Adjustment[];
}

/**
 * Turns decoded ConverseStream events into core stream parts.
 *
 * - Text deltas are passed on as they come, with or without a `contentBlockStart` for their block.
 * - Reasoning (`reasoningContent` deltas: text, signature, redacted bytes) is passed on as `reasoning-delta` parts,
 *   and each block as one `reasoning` part when it stops (its text, signature, and redacted bytes as base64), or
 *   at `messageStop` for a block that never got its `contentBlockStop`.
 * - A `toolUse` block is announced by `contentBlockStart`, its input arrives as string fragments in
 *   `contentBlockDelta`s of the same `contentBlockIndex` (blocks may interleave), and it ends at `contentBlockStop`.
 *   Its `tool-call` part goes out as soon as the call is known complete, while the answer goes on: once its block
 *   stopped and a later block began (before that block's first part), or at `messageStop`. Its stop alone does not
 *   say so: a `max_tokens` stop cuts the last block, which Bedrock stops too, and that call becomes an
 *   `IncompleteToolCallError`. Calls go out in the order of their block indexes, each once (a call waits while a
 *   lower index has not shown up yet); a stream that breaks surfaces only the calls known complete before.
 * - A call the tool-call policy rejects never shows (no start, delta or call part); it is reported at the end.
 * - `messageStop` and `metadata` may come in either order; the `finish` part is emitted at the end of the stream.
 * - Unknown events are ignored (the SDK already drops event types it does not model).
 *
 * @example
 * const assembler = new StreamAssembler({ modelId, names, callPolicy, adjustments: [] });
 * for await (const event of response.stream) yield* assembler.push(event);
 * yield assembler.end();
 */
export class StreamAssembler {
  private readonly context: StreamAssemblerContext;
  private readonly toolBlocks = new Map<number, ToolBlock>();
  /** Tool blocks whose calls are not emitted (or rejected) yet, by index. */
  private readonly unreleased: ToolBlock[] = [];
  /** Content block indexes seen (any event), and how many from 0 were all seen. */
  private readonly seenIndexes = new Set<number>();
  private seenFromZero = 0;
  private readonly reasoningBlocks = new Map<number, ReasoningBlock>();
  private readonly accepted: ToolCall[] = [];
  private readonly rejected: ToolCall[] = [];
  private text = '';
  private stopReason: string | undefined;
  private messageStopped = false;
  private usage: TokenUsage | undefined;
  private failure: StreamPart | undefined;
  /** The highest content block index seen, text blocks included. */
  private lastBlockIndex = -1;

  constructor(context: StreamAssemblerContext) {
    this.context = context;
  }

  /** The text received so far. */
  get partialText(): string {
    return this.text;
  }

  /** Whether the stream already failed; no further part will be produced but the error part. */
  get failed(): boolean {
    return this.failure !== undefined;
  }

  /** The parts one event produces. After a failure, returns nothing (the caller yields `end()`). */
  push(event: ConverseStreamOutput): StreamPart[] {
    if (this.failure !== undefined) return [];
    const index = event.contentBlockStart?.contentBlockIndex ?? event.contentBlockDelta?.contentBlockIndex;
    this.see(index ?? event.contentBlockStop?.contentBlockIndex);
    if (index === undefined || index <= this.lastBlockIndex) return this.pushEvent(event);
    // A later block begins: the calls complete before it go out before its first part.
    this.lastBlockIndex = index;
    const released = this.releaseCompleteCalls();
    return [...released, ...this.pushEvent(event)];
  }

  private see(index: number | undefined): void {
    if (index === undefined) return;
    this.seenIndexes.add(index);
    while (this.seenIndexes.has(this.seenFromZero)) this.seenFromZero++;
  }

  private pushEvent(event: ConverseStreamOutput): StreamPart[] {
    if (event.contentBlockStart !== undefined) {
      const { contentBlockIndex: index = 0, start } = event.contentBlockStart;
      const toolUse = start?.toolUse;
      if (toolUse === undefined) return [];
      if (this.toolBlocks.has(index) || this.reasoningBlocks.has(index)) {
        return this.malformed(`contentBlockStart for content block ${index}, which had already started`);
      }
      const toolName = this.context.names.fromWire(toolUse.name ?? '');
      const block: ToolBlock = {
        index,
        id: toolUse.toolUseId ?? '',
        toolName,
        rejected: !isToolCallAccepted(this.context.callPolicy, toolName),
        arguments: '',
        rewriter: this.context.propertyNames?.fromWire(toolName),
        stopped: false,
      };
      this.toolBlocks.set(index, block);
      const at = this.unreleased.findLastIndex((other) => other.index < index) + 1;
      this.unreleased.splice(at, 0, block);
      return block.rejected ? [] : [{ type: 'tool-call-start', toolCallId: block.id, toolName }];
    }
    if (event.contentBlockDelta !== undefined) {
      const { contentBlockIndex: index = 0, delta } = event.contentBlockDelta;
      if (delta?.toolUse !== undefined) {
        const block = this.toolBlocks.get(index);
        if (block === undefined || block.stopped) {
          return this.malformed(
            `a toolUse input fragment for content block ${index}, which is not an open tool call`,
          );
        }
        const raw = delta.toolUse.input ?? '';
        const fragment = block.rewriter === undefined ? raw : block.rewriter.push(raw);
        block.arguments += fragment;
        if (block.rejected || fragment === '') return [];
        return [{ type: 'tool-call-delta', toolCallId: block.id, argumentsDelta: fragment }];
      }
      if (delta?.reasoningContent !== undefined) return this.pushReasoning(index, delta.reasoningContent);
      if (typeof delta?.text === 'string' && delta.text !== '') {
        this.text += delta.text;
        return [{ type: 'text-delta', delta: delta.text }];
      }
      return [];
    }
    if (event.contentBlockStop !== undefined) {
      const reasoning = this.reasoningBlocks.get(event.contentBlockStop.contentBlockIndex ?? 0);
      if (reasoning !== undefined) return reasoning.emitted ? [] : [this.emitReasoning(reasoning)];
      const block = this.toolBlocks.get(event.contentBlockStop.contentBlockIndex ?? 0);
      if (block === undefined) return [];
      block.stopped = true;
      // A key still held back (the input ended inside it) is released as it came.
      const held = block.rewriter?.end() ?? '';
      block.arguments += held;
      const parts: StreamPart[] =
        block.rejected || held === ''
          ? []
          : [{ type: 'tool-call-delta', toolCallId: block.id, argumentsDelta: held }];
      // Complete now if a later block already began (blocks interleaved); the last one waits for what follows.
      return [...parts, ...this.releaseCompleteCalls()];
    }
    if (event.messageStop !== undefined) {
      this.messageStopped = true;
      this.stopReason = event.messageStop.stopReason;
      const open = [...this.reasoningBlocks.values()].filter((block) => !block.emitted);
      return [
        ...open.sort((left, right) => left.index - right.index).map((block) => this.emitReasoning(block)),
        ...this.releaseToolCalls(),
      ];
    }
    if (event.metadata !== undefined) {
      this.usage = event.metadata.usage ?? this.usage;
      return [];
    }
    const inStreamError =
      event.throttlingException ??
      event.modelStreamErrorException ??
      event.serviceUnavailableException ??
      event.internalServerException ??
      event.validationException;
    if (inStreamError !== undefined) {
      const name = Object.keys(event).find(
        (key) => (event as unknown as Record<string, unknown>)[key] === inStreamError,
      );
      const named = Object.assign(new Error(inStreamError.message ?? 'in-stream exception'), {
        name: name === undefined ? 'Error' : name.charAt(0).toUpperCase() + name.slice(1),
      });
      return [this.fail(named)];
    }
    return [];
  }

  /** The last part of a stream that ended without an exception: `finish`, or an error if it ended too early. */
  end(): StreamPart {
    if (this.failure !== undefined) return this.failure;
    if (!this.messageStopped) {
      const open = this.unreleased.filter((block) => !block.rejected);
      return this.setFailure(
        new StreamInterruptedError({
          provider: BEDROCK_PROVIDER,
          message:
            `Bedrock (${this.context.modelId}): the stream ended before messageStop` +
            (open.length > 0
              ? `; ${open.length} tool call(s) in it were not surfaced (${open.map((block) => `'${block.toolName}'`).join(', ')}).`
              : '.'),
          partialText: this.text,
        }),
      );
    }
    const rawFinishReason = this.stopReason;
    let finishReason: FinishReason = mapFinishReason(rawFinishReason);
    if (finishReason === 'tool-calls' && this.accepted.length === 0) finishReason = 'stop';
    return {
      type: 'finish',
      finishReason,
      ...(rawFinishReason === undefined ? {} : { rawFinishReason }),
      usage: mapUsage(this.usage),
      adjustments: [
        ...this.context.adjustments,
        ...reportToolCallPolicy(this.context.callPolicy, this.accepted, this.rejected, {
          provider: BEDROCK_PROVIDER,
        }),
      ],
    };
  }

  /**
   * The error part for an exception thrown while reading the stream (an in-stream exception, a broken frame, a
   * reset connection). Modeled exceptions map onto their core errors; transport and decoding failures become a
   * `StreamInterruptedError` carrying the text received so far.
   */
  fail(thrown: unknown): StreamPart {
    if (this.failure !== undefined) return this.failure;
    const { error } = mapBedrockError(thrown, { modelId: this.context.modelId });
    const name = (thrown as { name?: unknown } | null)?.name;
    const interrupted =
      name === 'ModelStreamErrorException' ||
      (ProviderUnavailableError.isInstance(error) && error.providerCode === 'connection_error') ||
      (ProviderError.isInstance(error) && error.code === 'provider_error') ||
      !OrgError.isInstance(error);
    if (interrupted && !AbortedError.isInstance(error)) {
      return this.setFailure(
        new StreamInterruptedError({
          provider: BEDROCK_PROVIDER,
          message:
            `Bedrock (${this.context.modelId}): the stream broke after ${this.text.length} character(s) of text: ` +
            errorMessageOf(thrown),
          partialText: this.text,
          cause: thrown,
          ...(typeof name === 'string' && name !== '' ? { providerCode: name } : {}),
        }),
      );
    }
    return this.setFailure(error);
  }

  private pushReasoning(index: number, delta: ReasoningContentBlockDelta): StreamPart[] {
    if (this.toolBlocks.has(index)) {
      return this.malformed(`a reasoning delta for content block ${index}, which is a tool call`);
    }
    let block = this.reasoningBlocks.get(index);
    if (block === undefined) {
      block = { index, text: '', signature: undefined, redacted: [], emitted: false };
      this.reasoningBlocks.set(index, block);
    } else if (block.emitted) {
      return this.malformed(`a reasoning delta for content block ${index}, which had already stopped`);
    }
    // Deltas are fragments: a signature or redacted bytes that come in several pieces are joined in order.
    if (delta.signature !== undefined) block.signature = (block.signature ?? '') + delta.signature;
    if (delta.redactedContent !== undefined) block.redacted.push(delta.redactedContent);
    if (typeof delta.text === 'string' && delta.text !== '') {
      block.text += delta.text;
      return [{ type: 'reasoning-delta', delta: delta.text }];
    }
    return [];
  }

  private emitReasoning(block: ReasoningBlock): StreamPart {
    block.emitted = true;
    return {
      type: 'reasoning',
      reasoning: reasoningPart(block.text, block.signature, joinBytes(block.redacted)),
    };
  }

  /**
   * Before `messageStop`: emits (or rejects) the calls of stopped tool blocks, lowest index first, that a later block
   * follows, while every lower index has shown up (so no earlier call can still come).
   */
  private releaseCompleteCalls(): StreamPart[] {
    const parts: StreamPart[] = [];
    for (let block = this.unreleased[0]; block?.stopped; block = this.unreleased[0]) {
      if (block.index >= this.lastBlockIndex || block.index >= this.seenFromZero) break;
      this.unreleased.shift();
      parts.push(...this.complete(block));
    }
    return parts;
  }

  /** At `messageStop`: every call not emitted yet, by index; the one a `max_tokens` stop cut off is an error. */
  private releaseToolCalls(): StreamPart[] {
    const parts: StreamPart[] = [];
    for (const block of this.unreleased.splice(0)) {
      // A max_tokens stop cuts the last block; a tool block followed by text was complete.
      const cut = !block.stopped || (this.stopReason === 'max_tokens' && block.index === this.lastBlockIndex);
      if (cut) {
        if (block.rejected) continue;
        block.arguments += block.rewriter?.end() ?? '';
        return [
          ...parts,
          this.setFailure(
            new IncompleteToolCallError({
              toolCallId: block.id,
              toolName: block.toolName,
              partialArguments: block.arguments,
              finishReason: mapFinishReason(this.stopReason),
            }),
          ),
        ];
      }
      parts.push(...this.complete(block));
    }
    return parts;
  }

  /** A complete call: emitted as a `tool-call` part, or, when the policy rejects it, kept for the report. */
  private complete(block: ToolBlock): StreamPart[] {
    // Bedrock sends an empty input for a tool without parameters.
    const call: ToolCall = { id: block.id, toolName: block.toolName, arguments: block.arguments || '{}' };
    if (block.rejected) {
      this.rejected.push(call);
      return [];
    }
    this.accepted.push(call);
    return [{ type: 'tool-call', toolCall: call }];
  }

  private malformed(what: string): StreamPart[] {
    return [
      this.setFailure(
        new StreamInterruptedError({
          provider: BEDROCK_PROVIDER,
          providerCode: 'malformed_event_stream',
          retryable: false,
          message: `Bedrock (${this.context.modelId}): malformed event stream: ${what}.`,
          partialText: this.text,
        }),
      ),
    ];
  }

  private setFailure(error: Error): StreamPart {
    const part: StreamPart = { type: 'error', error };
    this.failure = part;
    return part;
  }
}

/** The redacted bytes of a block, joined; `undefined` when it had none. */
function joinBytes(chunks: readonly Uint8Array[]): Uint8Array | undefined {
  if (chunks.length === 0) return undefined;
  if (chunks.length === 1) return chunks[0];
  const joined = new Uint8Array(chunks.reduce((total, chunk) => total + chunk.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) {
    joined.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return joined;
}
