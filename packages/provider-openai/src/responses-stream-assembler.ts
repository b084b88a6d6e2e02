import type { StreamPart, ToolCall } from '@org/core';
import { APIError } from 'openai';
import { responsesFinishReason } from './finish-reason.js';
import { argumentsText, asRecord, type ParsedAnswer, stringField } from './parsed-answer.js';
import { failedResponseError, parseResponse } from './responses-response.js';
import { responsesUsage } from './usage.js';

interface PendingCall {
  readonly itemId: string | undefined;
  readonly outputIndex: number | undefined;
  readonly callId: string;
  readonly name: string;
  arguments: string;
  done: boolean;
}

/**
 * Assembles Responses API stream events into stream parts and, once `response.completed` (or
 * `response.incomplete`) arrived, the complete answer. Argument deltas are matched to their call by output item id
 * (or output index), whatever the interleaving; unknown event types are ignored; `response.failed` and `error`
 * events throw. Complete calls come only from `finish()`, so a cut-off call never surfaces.
 */
export class ResponsesStreamAssembler {
  private text = '';
  private refused = false;
  private readonly calls: PendingCall[] = [];
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
      case 'response.output_item.added':
        return this.startCall(event, asRecord(event?.item));
      case 'response.function_call_arguments.delta': {
        const call = this.findCall(event);
        const delta = stringField(event, 'delta') ?? '';
        if (call === undefined || call.done || delta === '') return [];
        call.arguments += delta;
        return [{ type: 'tool-call-delta', toolCallId: call.callId, argumentsDelta: delta }];
      }
      case 'response.function_call_arguments.done': {
        const call = this.findCall(event);
        const final = stringField(event, 'arguments');
        if (call !== undefined && final !== undefined) call.arguments = final;
        return [];
      }
      case 'response.output_item.done': {
        const item = asRecord(event?.item);
        if (stringField(item, 'type') !== 'function_call') return [];
        const parts = this.findCall(event, item) === undefined ? this.startCall(event, item) : [];
        const call = this.findCall(event, item);
        if (call !== undefined) {
          call.arguments = argumentsText(item?.arguments ?? call.arguments);
          call.done = true;
        }
        return parts;
      }
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

  private findCall(
    event: Record<string, unknown> | undefined,
    item?: Record<string, unknown>,
  ): PendingCall | undefined {
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
    const outputIndex = typeof event?.output_index === 'number' ? event.output_index : undefined;
    return outputIndex === undefined
      ? undefined
      : this.calls.find((call) => call.outputIndex === outputIndex);
  }

  private startCall(
    event: Record<string, unknown> | undefined,
    item: Record<string, unknown> | undefined,
  ): StreamPart[] {
    if (stringField(item, 'type') !== 'function_call') return [];
    const name = stringField(item, 'name');
    const callId = stringField(item, 'call_id') ?? stringField(item, 'id');
    if (name === undefined || callId === undefined || this.findCall(event, item) !== undefined) return [];
    const call: PendingCall = {
      itemId: stringField(item, 'id'),
      outputIndex: typeof event?.output_index === 'number' ? event.output_index : undefined,
      callId,
      name,
      arguments: argumentsText(item?.arguments),
      done: false,
    };
    this.calls.push(call);
    const parts: StreamPart[] = [{ type: 'tool-call-start', toolCallId: callId, toolName: name }];
    if (call.arguments !== '')
      parts.push({ type: 'tool-call-delta', toolCallId: callId, argumentsDelta: call.arguments });
    return parts;
  }

  /** The complete answer; call only once `ended` is true. The final response's calls are authoritative. */
  finish(): ParsedAnswer {
    const final = this.finalResponse ?? {};
    const fromFinal = Array.isArray(final.output)
      ? parseResponse({ ...final, status: final.status ?? 'completed' }, this.provider)
      : undefined;
    const toolCalls: ToolCall[] =
      fromFinal !== undefined && fromFinal.toolCalls.length > 0
        ? [...fromFinal.toolCalls]
        : this.calls
            .filter((call) => call.done)
            .map((call) => ({ id: call.callId, toolName: call.name, arguments: call.arguments }));
    const status = stringField(final, 'status') ?? 'completed';
    const incompleteReason = stringField(asRecord(final.incomplete_details), 'reason');
    const rawFinishReason = incompleteReason ?? status;
    return {
      text: this.text,
      toolCalls,
      finishReason: responsesFinishReason(status, incompleteReason, toolCalls.length > 0, this.refused),
      rawFinishReason,
      usage: responsesUsage(final.usage),
      ...(this.responseId === undefined ? {} : { responseId: this.responseId }),
    };
  }
}
