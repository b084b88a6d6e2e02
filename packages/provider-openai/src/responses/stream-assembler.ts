import { ProviderError, type ReasoningPart, type StreamPart, type ToolCall } from '@org/core';
import { APIError } from 'openai';
import type { ParsedAnswer } from '../parsed-answer.js';
import { argumentsText, asRecord, stringField } from '../wire-fields.js';
import { failedResponseError } from './failed-response-error.js';
import { mapResponsesFinishReason } from './map-finish-reason.js';
import { mapResponsesResponse } from './map-response.js';
import { mapResponsesUsage } from './map-usage.js';
import { reasoningFromItem, SUMMARY_SEPARATOR } from './reasoning-item.js';

interface PendingCall {
  readonly itemId: string | undefined;
  readonly outputIndex: number | undefined;
  readonly callId: string;
  readonly name: string;
  arguments: string;
  /** Its item is done (`response.output_item.done`); its arguments are final. */
  done: boolean;
  /** The item was done with `status: 'incomplete'` (cut off): it never goes out before the end of the stream. */
  cutOff: boolean;
  /** Set once its `tool-call` part went out, before the end of the stream. */
  emitted: boolean;
}

interface PendingReasoning {
  readonly itemId: string | undefined;
  readonly outputIndex: number | undefined;
  /** Summary text by `summary_index`, as the deltas arrive. */
  readonly summaries: Map<number, string>;
  /** Set once `response.output_item.done` delivered the complete item (and its `reasoning` part went out). */
  part: ReasoningPart | undefined;
}

type Event = Record<string, unknown> | undefined;

const outputIndexOf = (event: Event): number | undefined =>
  typeof event?.output_index === 'number' ? event.output_index : undefined;

/**
 * Assembles Responses API stream events into stream parts and, once `response.completed` (or
 * `response.incomplete`) arrived, the complete answer. Argument deltas are matched to their call by output item id
 * (or output index), whatever the interleaving; unknown event types are ignored; `response.failed` and `error`
 * events throw.
 *
 * A call's `tool-call` part goes out at its item's `response.output_item.done` (its arguments as that item holds
 * them), in the order the calls began: a call done before an earlier one waits for it. A call whose item is done
 * `incomplete`, or never done, comes from `finish()`, once the stream really ended, so a cut-off call never
 * surfaces early. The final response is authoritative: it must hold the calls already emitted, unchanged and first;
 * a final response, a `done` event or a delta that would change an emitted call is a malformed stream
 * (`ProviderError` `invalid_stream_event`), never a silently changed call.
 *
 * Reasoning: summary text deltas become `reasoning-delta` parts (summary parts separated by a blank line, as in the
 * final text), and each completed `reasoning` item one `reasoning` part with its id and encrypted content.
 */
export class ResponsesStreamAssembler {
  private text = '';
  private refused = false;
  private readonly calls: PendingCall[] = [];
  /** How many calls, from the first, went out as `tool-call` parts before the end. */
  private released = 0;
  private unemittedCalls: readonly ToolCall[] = [];
  private readonly reasonings: PendingReasoning[] = [];
  private unemitted: readonly ReasoningPart[] = [];
  private finalResponse: Record<string, unknown> | undefined;
  private responseId: string | undefined;

  constructor(private readonly provider: string) {}

  /** The text received so far. */
  get partialText(): string {
    return this.text;
  }

  /** Whether a terminal event (`response.completed` / `response.incomplete`) arrived. */
  get ended(): boolean {
    return this.finalResponse !== undefined;
  }

  /** Takes one decoded event and returns the parts it produces. */
  push(rawEvent: unknown): StreamPart[] {
    const event = asRecord(rawEvent);
    switch (stringField(event, 'type')) {
      case 'response.created':
      case 'response.in_progress':
        this.responseId ??= stringField(asRecord(event?.response), 'id');
        return [];
      case 'response.output_text.delta':
      case 'response.refusal.delta': {
        const delta = stringField(event, 'delta') ?? '';
        if (event?.type === 'response.refusal.delta') this.refused = true;
        if (delta === '') return [];
        this.text += delta;
        return [{ type: 'text-delta', delta }];
      }
      case 'response.reasoning_summary_text.delta':
        return this.pushReasoningDelta(event);
      case 'response.output_item.added': {
        const item = asRecord(event?.item);
        if (stringField(item, 'type') === 'reasoning') {
          this.findOrStartReasoning(event, item);
          return [];
        }
        return this.startCall(event, item);
      }
      case 'response.function_call_arguments.delta': {
        const call = this.findCall(event);
        const delta = stringField(event, 'delta') ?? '';
        if (call === undefined || delta === '') return [];
        if (call.done) throw this.malformedCall(call, 'an argument delta after its item was done');
        call.arguments += delta;
        return [{ type: 'tool-call-delta', toolCallId: call.callId, argumentsDelta: delta }];
      }
      case 'response.function_call_arguments.done': {
        const call = this.findCall(event);
        const final = stringField(event, 'arguments');
        if (call === undefined || final === undefined) return [];
        if (call.done && final !== call.arguments) {
          throw this.malformedCall(call, 'other final arguments after its item was done');
        }
        call.arguments = final;
        return [];
      }
      case 'response.output_item.done':
        return this.completeItem(event, asRecord(event?.item));
      case 'response.completed':
      case 'response.incomplete':
        this.finalResponse = asRecord(event?.response) ?? {};
        this.responseId ??= stringField(this.finalResponse, 'id');
        return [];
      case 'response.failed':
        throw failedResponseError(asRecord(event?.response), this.provider);
      case 'error':
        // The same shape as an HTTP error body; the SDK's error class carries it to the shared mapping.
        throw new APIError(undefined, event, stringField(event, 'message'), undefined);
      default:
        return [];
    }
  }

  private completeItem(event: Event, item: Record<string, unknown> | undefined): StreamPart[] {
    const type = stringField(item, 'type');
    if (type === 'reasoning') {
      const pending = this.findOrStartReasoning(event, item);
      if (pending.part !== undefined) return [];
      pending.part = reasoningFromItem(item, this.provider);
      return [{ type: 'reasoning', reasoning: pending.part }];
    }
    if (type !== 'function_call') return [];
    const parts = this.findCall(event, item) === undefined ? this.startCall(event, item) : [];
    const call = this.findCall(event, item);
    if (call === undefined) return parts;
    const final = argumentsText(item?.arguments ?? call.arguments);
    if (call.emitted) {
      if (final !== call.arguments)
        throw this.malformedCall(call, 'its item done again, with other arguments');
      return parts;
    }
    call.arguments = final;
    call.done = true;
    call.cutOff = stringField(item, 'status') === 'incomplete';
    return [...parts, ...this.releaseDoneCalls()];
  }

  /** The `tool-call` parts of the calls, from the first not yet released, whose items are done (not cut off). */
  private releaseDoneCalls(): StreamPart[] {
    const parts: StreamPart[] = [];
    let call = this.calls[this.released];
    while (call?.done && !call.cutOff) {
      call.emitted = true;
      this.released++;
      parts.push({ type: 'tool-call', toolCall: toolCallOf(call) });
      call = this.calls[this.released];
    }
    return parts;
  }

  private malformedCall(call: PendingCall, what: string): ProviderError {
    return new ProviderError({
      provider: this.provider,
      providerCode: 'invalid_stream_event',
      message: `${this.provider} response stream sent ${what} for tool call '${call.callId}' (${call.name}); the stream cannot be trusted.`,
    });
  }

  private pushReasoningDelta(event: Event): StreamPart[] {
    const delta = stringField(event, 'delta') ?? '';
    const pending = this.findOrStartReasoning(event, undefined);
    if (delta === '' || pending.part !== undefined) return [];
    const index = typeof event?.summary_index === 'number' ? event.summary_index : 0;
    const sofar = pending.summaries.get(index) ?? '';
    const separated =
      sofar === '' &&
      [...pending.summaries.entries()].some(([other, text]) => other !== index && text !== '');
    pending.summaries.set(index, sofar + delta);
    return [{ type: 'reasoning-delta', delta: separated ? SUMMARY_SEPARATOR + delta : delta }];
  }

  private findOrStartReasoning(event: Event, item: Record<string, unknown> | undefined): PendingReasoning {
    const itemId = stringField(event, 'item_id') ?? stringField(item, 'id');
    const outputIndex = outputIndexOf(event);
    const found = this.reasonings.find((reasoning) =>
      itemId !== undefined && reasoning.itemId !== undefined
        ? reasoning.itemId === itemId
        : outputIndex !== undefined && reasoning.outputIndex === outputIndex,
    );
    if (found !== undefined) return found;
    const started: PendingReasoning = { itemId, outputIndex, summaries: new Map(), part: undefined };
    this.reasonings.push(started);
    return started;
  }

  private findCall(event: Event, item?: Record<string, unknown>): PendingCall | undefined {
    const itemId = stringField(event, 'item_id') ?? stringField(item, 'id');
    if (itemId !== undefined) {
      const byId = this.calls.find((call) => call.itemId === itemId);
      if (byId !== undefined) return byId;
    }
    const callId = stringField(item, 'call_id');
    if (callId !== undefined) {
      const byCallId = this.calls.find((call) => call.callId === callId);
      if (byCallId !== undefined) return byCallId;
    }
    const outputIndex = outputIndexOf(event);
    return outputIndex === undefined
      ? undefined
      : this.calls.find((call) => call.outputIndex === outputIndex);
  }

  private startCall(event: Event, item: Record<string, unknown> | undefined): StreamPart[] {
    if (stringField(item, 'type') !== 'function_call') return [];
    const name = stringField(item, 'name');
    const callId = stringField(item, 'call_id') ?? stringField(item, 'id');
    if (name === undefined || callId === undefined || this.findCall(event, item) !== undefined) return [];
    const call: PendingCall = {
      itemId: stringField(item, 'id'),
      outputIndex: outputIndexOf(event),
      callId,
      name,
      arguments: argumentsText(item?.arguments),
      done: false,
      cutOff: false,
      emitted: false,
    };
    this.calls.push(call);
    const parts: StreamPart[] = [{ type: 'tool-call-start', toolCallId: callId, toolName: name }];
    if (call.arguments !== '')
      parts.push({ type: 'tool-call-delta', toolCallId: callId, argumentsDelta: call.arguments });
    return parts;
  }

  /** After `finish()`: reasoning the final response holds that no `reasoning` part delivered yet. */
  unemittedReasoning(): readonly ReasoningPart[] {
    return this.unemitted;
  }

  /** After `finish()`: the calls not yet emitted as `tool-call` parts. */
  unemittedToolCalls(): readonly ToolCall[] {
    return this.unemittedCalls;
  }

  /**
   * The complete answer; call only once `ended` is true. The final response's calls and reasoning are
   * authoritative; without them, the completed items of the stream are used.
   */
  finish(): ParsedAnswer {
    const final = this.finalResponse ?? {};
    const fromFinal = Array.isArray(final.output)
      ? mapResponsesResponse({ ...final, status: final.status ?? 'completed' }, this.provider)
      : undefined;
    const toolCalls: readonly ToolCall[] =
      fromFinal !== undefined && fromFinal.toolCalls.length > 0
        ? fromFinal.toolCalls
        : this.calls.filter((call) => call.done).map(toolCallOf);
    this.unemittedCalls = this.afterEmitted(toolCalls);
    const reasoning = this.finalReasoning(fromFinal?.reasoning);
    const status = stringField(final, 'status') ?? 'completed';
    const incompleteReason = stringField(asRecord(final.incomplete_details), 'reason');
    const rawFinishReason = incompleteReason ?? status;
    return {
      text: this.text,
      toolCalls,
      ...(reasoning.length === 0 ? {} : { reasoning }),
      finishReason: mapResponsesFinishReason(status, incompleteReason, toolCalls.length > 0, this.refused),
      rawFinishReason,
      usage: mapResponsesUsage(final.usage),
      ...(this.responseId === undefined ? {} : { responseId: this.responseId }),
    };
  }

  /** The answer's calls after those already emitted, which must open it unchanged. */
  private afterEmitted(toolCalls: readonly ToolCall[]): readonly ToolCall[] {
    for (const [position, call] of this.calls.slice(0, this.released).entries()) {
      const answered = toolCalls[position];
      if (
        answered === undefined ||
        answered.id !== call.callId ||
        answered.toolName !== call.name ||
        answered.arguments !== call.arguments
      ) {
        throw this.malformedCall(
          call,
          'a final response that leaves out or changes the call it already completed',
        );
      }
    }
    return toolCalls.slice(this.released);
  }

  private finalReasoning(fromFinal: readonly ReasoningPart[] | undefined): readonly ReasoningPart[] {
    const emitted = this.reasonings.flatMap((pending) => (pending.part === undefined ? [] : [pending.part]));
    if (fromFinal !== undefined && fromFinal.length > 0) {
      const emittedIds = new Set(emitted.map((part) => part.id));
      // Items without an id (never seen from OpenAI) are matched by their order.
      const emittedWithoutId = emitted.filter((part) => part.id === undefined).length;
      let withoutId = 0;
      this.unemitted = fromFinal.filter((part) =>
        part.id === undefined ? withoutId++ >= emittedWithoutId : !emittedIds.has(part.id),
      );
      return fromFinal;
    }
    // No final output to trust: items whose `output_item.done` never came are assembled from their deltas.
    const assembled = this.reasonings.flatMap((pending): ReasoningPart[] =>
      pending.part !== undefined
        ? [pending.part]
        : [
            {
              type: 'reasoning',
              provider: this.provider,
              text: [...pending.summaries.entries()]
                .sort(([a], [b]) => a - b)
                .map(([, text]) => text)
                .filter((text) => text !== '')
                .join(SUMMARY_SEPARATOR),
              ...(pending.itemId === undefined ? {} : { id: pending.itemId }),
            },
          ],
    );
    this.unemitted = assembled.filter((part) => !emitted.includes(part));
    return assembled;
  }
}

const toolCallOf = (call: PendingCall): ToolCall => ({
  id: call.callId,
  toolName: call.name,
  arguments: call.arguments,
});
