import {
  type Adjustment,
  IncompleteToolCallError,
  isToolCallAccepted,
  type JsonKeyRewriter,
  reportToolCallPolicy,
  type StreamPart,
  type ToolCall,
  type ToolCallPolicy,
} from '@org/core';
import { isClientToolUse } from './client-tool-use.js';
import { MalformedStreamError } from './malformed-stream-error.js';
import { mapFinishReason } from './map-finish-reason.js';
import { type AnthropicUsageFields, mapUsage, mergeUsageFields } from './map-usage.js';
import type { PropertyNames } from './property-names.js';
import { redactedThinkingPart, thinkingPart } from './reasoning-parts.js';

type BlockState =
  | { readonly kind: 'text'; closed: boolean }
  | {
      readonly kind: 'tool';
      readonly id: string;
      readonly toolName: string;
      /** The `input` of `content_block_start`, used when no `input_json_delta` follows. */
      readonly startInput: unknown;
      /** The arguments so far, with renamed property names already mapped back. */
      argumentsText: string;
      /** Maps renamed property names back as the text streams; `undefined` when the tool has none. */
      readonly rewriter: JsonKeyRewriter | undefined;
      sawDelta: boolean;
      readonly accepted: boolean;
      closed: boolean;
    }
  /** A `thinking` block: its text and signature, complete at its `content_block_stop`. */
  | { readonly kind: 'thinking'; text: string; signature: string; closed: boolean }
  /** A `redacted_thinking` block: its `data` arrives whole in `content_block_start`. */
  | { readonly kind: 'redacted-thinking'; readonly data: string; closed: boolean }
  /** A block with no core counterpart (server tools, MCP, results, unknown types): read and left out. */
  | { readonly kind: 'ignored'; closed: boolean };

type ToolBlock = Extract<BlockState, { kind: 'tool' }>;

/** A loosely typed stream event: the adapter reads only what it knows and ignores the rest. */
export interface StreamEvent {
  readonly type?: unknown;
  readonly [field: string]: unknown;
}

/**
 * Turns Messages API stream events into core stream parts, one event at a time.
 *
 * - Blocks are tracked per `index`: `content_block_start` / `content_block_delta` / `content_block_stop`.
 * - A client `tool_use` block gets a `tool-call-start`, a `tool-call-delta` per non-empty `input_json_delta` (or one
 *   carrying the whole `input` of `content_block_start` when no delta came), and a `tool-call` as soon as it is known
 *   to be complete, while the rest of the answer streams: once its `content_block_stop` came and a later block
 *   started (its call goes out before that block's first part), or the message stopped for any reason but
 *   `max_tokens`. Its stop alone does not say so: the last block of a `max_tokens` stop was cut off and is stopped
 *   too, so a tool call there ends the stream with `IncompleteToolCallError` instead. Calls go out in the order their
 *   blocks started, each once; a tool block the server never stopped ends with the message.
 * - A call the tool-call policy rejects never shows (no start, delta or call part); it is reported at the end.
 * - A `thinking` block gets a `reasoning-delta` per non-empty `thinking_delta`, collects its `signature_delta`, and
 *   ends with one `reasoning` part (text and signature) at its `content_block_stop`; a `redacted_thinking` block
 *   gives one `reasoning` part with its `data` as `redactedData` there. These are what goes back on the next turn.
 * - `ping` and unknown events are ignored; blocks the server handled (server tools, MCP) are left out.
 * - Usage comes from `message_start`, updated by the cumulative counts of `message_delta`.
 * - A repeated `message_start` for the same message is ignored; one for a different message while the first is
 *   open is a `MalformedStreamError` (`spliced-message`), as is a delta for a block that never started.
 *
 * - For a tool whose property names were sent renamed, `tool-call-delta` parts carry the text with the tool's own
 *   names already restored (a key is held back until its closing quote), so the deltas of a call always add up to
 *   the `arguments` of its `tool-call` part.
 *
 * After `isDone()` turns true (a `finish` or `error` part was produced) no further event is read.
 */
export class StreamAssembler {
  readonly #policy: ToolCallPolicy;
  readonly #adjustments: readonly Adjustment[];
  readonly #propertyNames: PropertyNames | undefined;
  readonly #blocks = new Map<number, BlockState>();
  #messageId: string | undefined;
  #usage: AnthropicUsageFields | undefined;
  #stopReason: string | undefined;
  /**
   * Tool blocks whose calls are not emitted (or rejected) yet, in the order they started. A closed block goes out
   * once it is known not to be the one a `max_tokens` stop cut off: not the last started, or stopped otherwise.
   */
  readonly #unreleased: ToolBlock[] = [];
  /** The most recently started block. */
  #lastBlock: BlockState | undefined;
  #text = '';
  readonly #accepted: ToolCall[] = [];
  readonly #rejected: ToolCall[] = [];
  #done = false;
  #syntheticIndex = -1;

  constructor(options: {
    policy: ToolCallPolicy;
    adjustments: readonly Adjustment[];
    propertyNames?: PropertyNames;
  }) {
    this.#policy = options.policy;
    this.#adjustments = options.adjustments;
    this.#propertyNames = options.propertyNames;
  }

  /** Whether the stream reached its last part (`finish` or `error`). */
  isDone(): boolean {
    return this.#done;
  }

  /** The text received so far, for `StreamInterruptedError.partialText`. */
  get partialText(): string {
    return this.#text;
  }

  /** Consumes one event. Throws `MalformedStreamError` on a protocol violation. */
  push(event: StreamEvent): StreamPart[] {
    if (this.#done) return [];
    switch (event.type) {
      case 'message_start':
        return this.#messageStart(event);
      case 'content_block_start':
        return this.#blockStart(numberField(event.index), objectField(event.content_block));
      case 'content_block_delta':
        return this.#blockDelta(event);
      case 'content_block_stop':
        return this.#blockStop(numberField(event.index), event.index);
      case 'message_delta':
        return this.#messageDelta(event);
      case 'message_stop':
        return this.#messageStop();
      default:
        // `ping`, and event types newer than this adapter.
        return [];
    }
  }

  /** The error for a stream that ended before `message_stop`. */
  endedEarly(): MalformedStreamError {
    this.#done = true;
    return new MalformedStreamError({
      reason: 'missing-message-stop',
      message:
        `The Anthropic stream ended without 'message_stop'` +
        (this.#messageId === undefined ? ' (no message_start either)' : ` (message ${this.#messageId})`) +
        `; ${this.#text.length} character(s) of text arrived, and no incomplete tool call was returned.`,
      partialText: this.#text,
    });
  }

  #malformed(reason: 'spliced-message' | 'unexpected-event', message: string): MalformedStreamError {
    this.#done = true;
    return new MalformedStreamError({ reason, message, partialText: this.#text });
  }

  #messageStart(event: StreamEvent): StreamPart[] {
    const message = objectField(event.message);
    const id = typeof message.id === 'string' ? message.id : undefined;
    if (this.#messageId !== undefined || this.#lastBlock !== undefined) {
      if (id !== undefined && id === this.#messageId) return [];
      throw this.#malformed(
        'spliced-message',
        `The Anthropic stream started message '${id ?? '(no id)'}' while message '${this.#messageId ?? '(no id)'}' ` +
          `was still open; the parts of the first cannot be trusted, so the stream was stopped.`,
      );
    }
    this.#messageId = id;
    this.#usage = objectField(message.usage) as AnthropicUsageFields;
    // The API sends `content: []` here; should it ever carry blocks, they are read like streamed ones.
    const parts: StreamPart[] = [];
    const content = Array.isArray(message.content) ? message.content : [];
    for (const block of content) {
      const index = this.#syntheticIndex--;
      parts.push(...this.#blockStart(index, objectField(block)), ...this.#blockStop(index, index));
    }
    return parts;
  }

  #blockStart(index: number | undefined, block: Record<string, unknown>): StreamPart[] {
    if (index === undefined)
      throw this.#malformed('unexpected-event', `content_block_start without an index.`);
    const existing = this.#blocks.get(index);
    if (existing !== undefined) {
      throw this.#malformed(
        'unexpected-event',
        `content_block_start for block ${index}, which already started.`,
      );
    }
    // A later block starts: every closed tool block before it is complete.
    const parts = this.#release(true);
    let state: BlockState;
    if (block.type === 'text') {
      state = { kind: 'text', closed: false };
      if (typeof block.text === 'string' && block.text !== '') parts.push(this.#textDelta(block.text));
    } else if (isClientToolUse(block) && typeof block.id === 'string' && typeof block.name === 'string') {
      const accepted = isToolCallAccepted(this.#policy, block.name);
      state = {
        kind: 'tool',
        id: block.id,
        toolName: block.name,
        startInput: block.input,
        argumentsText: '',
        rewriter: this.#propertyNames?.fromWire(block.name),
        sawDelta: false,
        accepted,
        closed: false,
      };
      this.#unreleased.push(state);
      if (accepted) parts.push({ type: 'tool-call-start', toolCallId: block.id, toolName: block.name });
    } else if (block.type === 'thinking') {
      const text = typeof block.thinking === 'string' ? block.thinking : '';
      state = {
        kind: 'thinking',
        text,
        signature: typeof block.signature === 'string' ? block.signature : '',
        closed: false,
      };
      if (text !== '') parts.push({ type: 'reasoning-delta', delta: text });
    } else if (block.type === 'redacted_thinking' && typeof block.data === 'string') {
      state = { kind: 'redacted-thinking', data: block.data, closed: false };
    } else {
      state = { kind: 'ignored', closed: false };
    }
    this.#blocks.set(index, state);
    this.#lastBlock = state;
    return parts;
  }

  #blockDelta(event: StreamEvent): StreamPart[] {
    const index = numberField(event.index);
    const block = index === undefined ? undefined : this.#blocks.get(index);
    if (block === undefined || block.closed) {
      throw this.#malformed(
        'unexpected-event',
        `content_block_delta for block ${String(event.index)}, which ${block === undefined ? 'never started' : 'already stopped'}.`,
      );
    }
    const delta = objectField(event.delta);
    if (block.kind === 'text' && delta.type === 'text_delta' && typeof delta.text === 'string') {
      return delta.text === '' ? [] : [this.#textDelta(delta.text)];
    }
    if (
      block.kind === 'tool' &&
      delta.type === 'input_json_delta' &&
      typeof delta.partial_json === 'string'
    ) {
      block.sawDelta = true;
      const text =
        block.rewriter === undefined ? delta.partial_json : block.rewriter.push(delta.partial_json);
      if (text === '') return [];
      block.argumentsText += text;
      return block.accepted ? [{ type: 'tool-call-delta', toolCallId: block.id, argumentsDelta: text }] : [];
    }
    if (block.kind === 'thinking' && delta.type === 'thinking_delta' && typeof delta.thinking === 'string') {
      block.text += delta.thinking;
      return delta.thinking === '' ? [] : [{ type: 'reasoning-delta', delta: delta.thinking }];
    }
    if (
      block.kind === 'thinking' &&
      delta.type === 'signature_delta' &&
      typeof delta.signature === 'string'
    ) {
      block.signature += delta.signature;
      return [];
    }
    // Citation deltas, and deltas of ignored blocks.
    return [];
  }

  #blockStop(index: number | undefined, rawIndex: unknown): StreamPart[] {
    const block = index === undefined ? undefined : this.#blocks.get(index);
    if (block === undefined || block.closed) {
      throw this.#malformed(
        'unexpected-event',
        `content_block_stop for block ${String(rawIndex)}, which ${block === undefined ? 'never started' : 'already stopped'}.`,
      );
    }
    block.closed = true;
    if (block.kind === 'thinking') {
      return [{ type: 'reasoning', reasoning: thinkingPart(block.text, block.signature) }];
    }
    if (block.kind === 'redacted-thinking') {
      return [{ type: 'reasoning', reasoning: redactedThinkingPart(block.data) }];
    }
    if (block.kind !== 'tool') return [];
    // Complete now if a later block already started (blocks interleaved); the last one waits for what follows.
    return [...this.#closeTool(block), ...this.#release(false)];
  }

  /** Ends a tool block's arguments: a key still held back by the rewriter, or the whole `input` of its start. */
  #closeTool(block: ToolBlock): StreamPart[] {
    block.closed = true;
    const parts: StreamPart[] = [];
    const held = block.rewriter?.end() ?? '';
    if (held !== '') {
      block.argumentsText += held;
      if (block.accepted) parts.push({ type: 'tool-call-delta', toolCallId: block.id, argumentsDelta: held });
    }
    if (block.argumentsText === '') {
      // The whole input arrived in content_block_start (or the tool takes no arguments).
      const input = JSON.stringify(block.startInput ?? {});
      block.argumentsText = this.#propertyNames?.argumentsFromWire(block.toolName, input) ?? input;
      if (block.accepted) {
        parts.push({ type: 'tool-call-delta', toolCallId: block.id, argumentsDelta: block.argumentsText });
      }
    }
    return parts;
  }

  #messageDelta(event: StreamEvent): StreamPart[] {
    const delta = objectField(event.delta);
    if (typeof delta.stop_reason === 'string') this.#stopReason = delta.stop_reason;
    this.#usage = mergeUsageFields(this.#usage, objectField(event.usage) as AnthropicUsageFields);
    return this.#stopReason === undefined ? [] : this.#settle();
  }

  #messageStop(): StreamPart[] {
    // Normally message_delta settled the blocks already; a stream without message_delta settles here.
    const parts = this.#settle();
    if (this.#done) return parts;
    this.#done = true;
    const checked = reportToolCallPolicy(this.#policy, this.#accepted, this.#rejected, {
      provider: 'anthropic',
    });
    parts.push({
      type: 'finish',
      finishReason: mapFinishReason(this.#stopReason, this.#accepted.length > 0),
      ...(this.#stopReason === undefined ? {} : { rawFinishReason: this.#stopReason }),
      usage: mapUsage(this.#usage),
      adjustments: [...this.#adjustments, ...checked],
      ...(this.#messageId === undefined ? {} : { responseId: this.#messageId }),
    });
    return parts;
  }

  /**
   * Once the stop reason is known, every tool call is settled: complete (emitted, in order), or, for the last block of
   * a `max_tokens` stop, cut off (an error). A tool block that never got its `content_block_stop` ends with the
   * message: its input is complete unless it is the cut-off one.
   */
  #settle(): StreamPart[] {
    const last = this.#lastBlock;
    const cut = this.#stopReason === 'max_tokens' && last?.kind === 'tool' ? last : undefined;
    const parts: StreamPart[] = [];
    for (const block of this.#unreleased)
      if (!block.closed && block !== cut) parts.push(...this.#closeTool(block));
    parts.push(...this.#release(cut === undefined));
    if (cut === undefined) return parts;
    this.#unreleased.splice(this.#unreleased.indexOf(cut), 1);
    this.#lastBlock = undefined;
    // A key cut off mid-name is released as it came.
    cut.argumentsText += cut.rewriter?.end() ?? '';
    if (!cut.accepted) {
      // Rejected either way; it is reported with the others and the stream finishes normally.
      this.#rejected.push({ id: cut.id, toolName: cut.toolName, arguments: cut.argumentsText });
      return parts;
    }
    this.#done = true;
    parts.push({
      type: 'error',
      error: new IncompleteToolCallError({
        toolCallId: cut.id,
        toolName: cut.toolName,
        partialArguments: cut.argumentsText,
        finishReason: 'max_tokens',
      }),
    });
    return parts;
  }

  /**
   * Emits (or rejects) the calls of closed tool blocks from the first unreleased one, in order; the last started block
   * only when `lastComplete` (a later block started, or the message stopped without cutting it off).
   */
  #release(lastComplete: boolean): StreamPart[] {
    const parts: StreamPart[] = [];
    for (let block = this.#unreleased[0]; block?.closed; block = this.#unreleased[0]) {
      if (!lastComplete && block === this.#lastBlock) break;
      this.#unreleased.shift();
      const toolCall: ToolCall = { id: block.id, toolName: block.toolName, arguments: block.argumentsText };
      if (block.accepted) {
        this.#accepted.push(toolCall);
        parts.push({ type: 'tool-call', toolCall });
      } else {
        this.#rejected.push(toolCall);
      }
    }
    return parts;
  }

  #textDelta(delta: string): StreamPart {
    this.#text += delta;
    return { type: 'text-delta', delta };
  }
}

function numberField(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
}

function objectField(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
