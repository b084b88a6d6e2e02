import { ProviderError, type ReasoningPart, readStrictJson, type StreamPart, type ToolCall } from '@org/core';
import type { ParsedAnswer } from '../parsed-answer.js';
import { argumentsText, asRecord, stringField } from '../wire-fields.js';
import { JsonObjectEnd } from './json-object-end.js';
import { mapChatFinishReason } from './map-finish-reason.js';
import { mapChatUsage } from './map-usage.js';
import { chatReasoningText } from './reasoning-field.js';

interface PendingCall {
  readonly index: number | undefined;
  id: string | undefined;
  name: string | undefined;
  arguments: string;
  started: boolean;
  /** Where the arguments' top-level object closes, watched as the text streams. */
  readonly end: JsonObjectEnd;
  /** Whether the closed object is valid JSON: read once, when `end` first says it closed. */
  complete: boolean | undefined;
  /** Set once its `tool-call` part went out, before the end of the stream. */
  emitted: boolean;
}

/** Anything but JSON whitespace: text that would change a call already emitted. */
const SIGNIFICANT = /[^ \t\n\r]/;

const nonEmpty = (value: string | undefined): string | undefined =>
  value === undefined || value === '' ? undefined : value;

/**
 * Assembles Chat Completions stream chunks into stream parts and, at the end, the complete answer. Tool-call
 * fragments are matched by id when they carry one and by `index` otherwise, so any interleaving of parallel calls
 * assembles the same calls; an empty fragment after a call is complete (some servers send one) adds nothing, and a
 * server reusing an index for a call with a new id gets two calls.
 *
 * Chat Completions has no event that ends a call. A call is known to be complete once a later call has begun and
 * its argument text is a whole JSON object (read with the strict reader of `@org/core`): its `tool-call` part goes
 * out then, before the later call's `tool-call-start`, and always in the order the calls began. The last call (and
 * any call whose text is not a whole object) comes from `finish()`, which the adapter calls once the stream has
 * really ended, so a cut-off call never surfaces. Argument text other than whitespace for a call already emitted (a
 * server interleaving calls) is a malformed stream: `ProviderError` `invalid_stream_event`, never a changed call.
 *
 * Reasoning a compatible server streams (`reasoning_content` / `reasoning` deltas) becomes `reasoning-delta` parts,
 * and one `reasoning` part when the answer itself begins (or, for reasoning still open at the end, from `finish()`).
 */
export class ChatStreamAssembler {
  private text = '';
  private refused = false;
  private readonly calls: PendingCall[] = [];
  /** How many calls, from the first, went out as `tool-call` parts before the end. */
  private released = 0;
  private unemittedCalls: readonly ToolCall[] = [];
  /** Reasoning text of the part being streamed, or `undefined` when none is open. */
  private openReasoning: string | undefined;
  private readonly reasoning: ReasoningPart[] = [];
  private unemitted: ReasoningPart[] = [];
  private rawFinishReason: string | undefined;
  private usage: unknown;
  private responseId: string | undefined;

  constructor(private readonly provider: string) {}

  /** The text received so far. */
  get partialText(): string {
    return this.text;
  }

  /** Takes one decoded chunk (`data:` payload) and returns the parts it produces. */
  push(chunk: unknown): StreamPart[] {
    const root = asRecord(chunk);
    if (root === undefined) return [];
    this.responseId ??= nonEmpty(stringField(root, 'id'));
    if (asRecord(root.usage) !== undefined) this.usage = root.usage;
    const parts: StreamPart[] = [];
    const choices = Array.isArray(root.choices) ? root.choices : [];
    for (const rawChoice of choices) {
      const choice = asRecord(rawChoice);
      // Only the first choice is read; `n > 1` is not part of the LanguageModel contract.
      if (choice === undefined || (choice.index !== undefined && choice.index !== 0)) continue;
      const delta = asRecord(choice.delta);
      const reasoningDelta = chatReasoningText(delta);
      if (reasoningDelta !== undefined) {
        this.openReasoning = (this.openReasoning ?? '') + reasoningDelta;
        parts.push({ type: 'reasoning-delta', delta: reasoningDelta });
      }
      const content = stringField(delta, 'content');
      const refusal = stringField(delta, 'refusal');
      const toolDeltas = Array.isArray(delta?.tool_calls) ? delta.tool_calls : [];
      if ((content ?? '') !== '' || (refusal ?? '') !== '' || toolDeltas.length > 0) {
        const closed = this.closeReasoning();
        if (closed !== undefined) parts.push({ type: 'reasoning', reasoning: closed });
      }
      if (content !== undefined && content !== '') {
        this.text += content;
        parts.push({ type: 'text-delta', delta: content });
      }
      if (refusal !== undefined && refusal !== '') {
        this.refused = true;
        this.text += refusal;
        parts.push({ type: 'text-delta', delta: refusal });
      }
      for (const toolDelta of toolDeltas) parts.push(...this.pushToolDelta(asRecord(toolDelta)));
      const finishReason = stringField(choice, 'finish_reason');
      if (finishReason !== undefined) this.rawFinishReason = finishReason;
    }
    return parts;
  }

  /** Ends the open reasoning part, if any, and returns it. */
  private closeReasoning(): ReasoningPart | undefined {
    if (this.openReasoning === undefined) return undefined;
    const part: ReasoningPart = { type: 'reasoning', provider: this.provider, text: this.openReasoning };
    this.openReasoning = undefined;
    this.reasoning.push(part);
    return part;
  }

  /** After `finish()`: the calls not yet emitted as `tool-call` parts (the last, and any after one not complete). */
  unemittedToolCalls(): readonly ToolCall[] {
    return this.unemittedCalls;
  }

  /** After `finish()`: the reasoning parts not yet emitted as `reasoning` stream parts (still open at the end). */
  unemittedReasoning(): readonly ReasoningPart[] {
    return this.unemitted;
  }

  private pushToolDelta(toolDelta: Record<string, unknown> | undefined): StreamPart[] {
    if (toolDelta === undefined) return [];
    const index = typeof toolDelta.index === 'number' ? toolDelta.index : undefined;
    const id = nonEmpty(stringField(toolDelta, 'id'));
    const fn = asRecord(toolDelta.function);
    const name = nonEmpty(stringField(fn, 'name'));
    const fragment = argumentsText(fn?.arguments);

    let call = id === undefined ? undefined : this.calls.find((candidate) => candidate.id === id);
    if (call === undefined && index !== undefined) {
      call = this.calls.findLast((candidate) => candidate.index === index);
      // The same index with another id: a server numbering every call 0. It is a new call.
      if (call !== undefined && id !== undefined && call.id !== undefined && call.id !== id) call = undefined;
    }
    if (call === undefined && index === undefined && id === undefined) call = this.calls.at(-1);
    const parts: StreamPart[] = [];
    if (call === undefined) {
      if (id === undefined && name === undefined && fragment === '') return [];
      call = {
        index,
        id,
        name,
        arguments: '',
        started: false,
        end: new JsonObjectEnd(),
        complete: undefined,
        emitted: false,
      };
      this.calls.push(call);
      // A later call began: the calls before it that are complete go out before it starts.
      parts.push(...this.releaseCompleteCalls());
    }
    if (call.emitted) {
      if (SIGNIFICANT.test(fragment)) throw this.changedAfterEmitted(call);
      return parts;
    }
    call.id ??= id;
    call.name ??= name;
    call.arguments += fragment;
    call.end.push(fragment);

    if (!call.started && call.name !== undefined) {
      call.started = true;
      call.id ??= `call_${index ?? this.calls.indexOf(call)}`;
      parts.push({ type: 'tool-call-start', toolCallId: call.id, toolName: call.name });
      if (call.arguments !== '')
        parts.push({ type: 'tool-call-delta', toolCallId: call.id, argumentsDelta: call.arguments });
    } else if (call.started && fragment !== '' && call.id !== undefined) {
      parts.push({ type: 'tool-call-delta', toolCallId: call.id, argumentsDelta: fragment });
    }
    // A server interleaving calls may complete an earlier one after a later one began.
    parts.push(...this.releaseCompleteCalls());
    return parts;
  }

  /**
   * The `tool-call` parts of the calls, from the first not yet released, that are complete with a later call begun.
   * Each call's text is read at most once (when its object closes), so the whole stream stays linear.
   */
  private releaseCompleteCalls(): StreamPart[] {
    const parts: StreamPart[] = [];
    while (this.released < this.calls.length - 1) {
      const call = this.calls[this.released] as PendingCall;
      if (!call.started || call.name === undefined || call.id === undefined || !call.end.closed) break;
      call.complete ??= isJsonObject(call.arguments);
      if (!call.complete) break;
      call.emitted = true;
      this.released++;
      parts.push({
        type: 'tool-call',
        toolCall: { id: call.id, toolName: call.name, arguments: call.arguments },
      });
    }
    return parts;
  }

  private changedAfterEmitted(call: PendingCall): ProviderError {
    return new ProviderError({
      provider: this.provider,
      providerCode: 'invalid_stream_event',
      message:
        `${this.provider} chat completion stream sent more argument text for tool call '${call.id}' (${call.name}) ` +
        'after its arguments were a complete JSON object and the call was emitted; the stream cannot be trusted.',
    });
  }

  /** The complete answer; call only once the stream ended properly (`data: [DONE]`). */
  finish(): ParsedAnswer {
    const late = this.closeReasoning();
    this.unemitted = late === undefined ? [] : [late];
    const toolCalls: ToolCall[] = this.calls.map((call, position) => {
      if (call.name === undefined || call.id === undefined) {
        throw new ProviderError({
          provider: this.provider,
          providerCode: 'invalid_stream_event',
          message: `${this.provider} chat completion stream sent tool call ${position} without a function name.`,
        });
      }
      return { id: call.id, toolName: call.name, arguments: call.arguments };
    });
    this.unemittedCalls = toolCalls.slice(this.released);
    return {
      text: this.text,
      toolCalls,
      ...(this.reasoning.length === 0 ? {} : { reasoning: [...this.reasoning] }),
      finishReason: this.refused
        ? 'content-filter'
        : mapChatFinishReason(this.rawFinishReason, toolCalls.length > 0),
      ...(this.rawFinishReason === undefined ? {} : { rawFinishReason: this.rawFinishReason }),
      usage: mapChatUsage(this.usage),
      ...(this.responseId === undefined ? {} : { responseId: this.responseId }),
    };
  }
}

/** Whether argument text is one whole JSON object, by the strict reader of `@org/core`. */
function isJsonObject(text: string): boolean {
  const read = readStrictJson(text);
  return read.ok && typeof read.value === 'object' && read.value !== null && !Array.isArray(read.value);
}
