import { ProviderError, type ReasoningPart, type StreamPart, type ToolCall } from '@org/core';
import type { ParsedAnswer } from '../parsed-answer.js';
import { argumentsText, asRecord, stringField } from '../wire-fields.js';
import { mapChatFinishReason } from './map-finish-reason.js';
import { mapChatUsage } from './map-usage.js';
import { chatReasoningText } from './reasoning-field.js';

interface PendingCall {
  readonly index: number | undefined;
  id: string | undefined;
  name: string | undefined;
  arguments: string;
  started: boolean;
}

const nonEmpty = (value: string | undefined): string | undefined =>
  value === undefined || value === '' ? undefined : value;

/**
 * Assembles Chat Completions stream chunks into stream parts and, at the end, the complete answer. Tool-call
 * fragments are matched by id when they carry one and by `index` otherwise, so any interleaving of parallel calls
 * assembles the same calls; an empty fragment after a call is complete (some servers send one) adds nothing, and a
 * server reusing an index for a call with a new id gets two calls. Complete calls are only produced by `finish()`,
 * which the adapter calls once the stream has really ended, so a cut-off call never surfaces.
 *
 * Reasoning a compatible server streams (`reasoning_content` / `reasoning` deltas) becomes `reasoning-delta` parts,
 * and one `reasoning` part when the answer itself begins (or, for reasoning still open at the end, from `finish()`).
 */
export class ChatStreamAssembler {
  private text = '';
  private refused = false;
  private readonly calls: PendingCall[] = [];
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
    if (call === undefined) {
      if (id === undefined && name === undefined && fragment === '') return [];
      call = { index, id, name, arguments: '', started: false };
      this.calls.push(call);
    }
    call.id ??= id;
    call.name ??= name;
    call.arguments += fragment;

    if (!call.started && call.name !== undefined) {
      call.started = true;
      call.id ??= `call_${index ?? this.calls.indexOf(call)}`;
      const parts: StreamPart[] = [{ type: 'tool-call-start', toolCallId: call.id, toolName: call.name }];
      if (call.arguments !== '')
        parts.push({ type: 'tool-call-delta', toolCallId: call.id, argumentsDelta: call.arguments });
      return parts;
    }
    if (call.started && fragment !== '' && call.id !== undefined) {
      return [{ type: 'tool-call-delta', toolCallId: call.id, argumentsDelta: fragment }];
    }
    return [];
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
