import {
  type Adjustment,
  IncompleteToolCallError,
  isToolCallAccepted,
  ProviderError,
  type ReasoningPart,
  reportToolCallPolicy,
  StreamInterruptedError,
  type StreamPart,
  type ToolCall,
  type ToolCallPolicy,
} from '@org/core';
import { JsonObjectEnd } from './json-object-end.js';
import { mapFinishReason } from './map-finish-reason.js';
import { reasoningPart, thinkingText } from './map-reasoning.js';
import { argumentsText, isJsonObject } from './map-response.js';
import { mapUsage } from './map-usage.js';
import { PROVIDER } from './provider-name.js';
import {
  arrayField,
  asRecord,
  field,
  invalidResponse,
  optionalStringField,
  stringField,
} from './wire-values.js';

interface PendingCall {
  readonly index: number | undefined;
  readonly id: string;
  readonly toolName: string;
  readonly accepted: boolean;
  arguments: string;
  /** Where the arguments' top-level object closes, watched as the text streams. */
  readonly end: JsonObjectEnd;
  /** Set once the call is complete: emitted (accepted) or kept for the policy's report (rejected). */
  settled: boolean;
}

/** Anything but JSON whitespace: text that would change a call already complete. */
const SIGNIFICANT = /[^ \t\n\r]/;

/** Whether a delta carries any of the answer: text, thinking or a call (an empty string is none). */
function hasAnswer(delta: Readonly<Record<string, unknown>>): boolean {
  const content = field(delta, 'content');
  const calls = field(delta, 'toolCalls');
  const someContent =
    typeof content === 'string' ? content !== '' : Array.isArray(content) && content.length > 0;
  return someContent || (Array.isArray(calls) && calls.length > 0);
}

/** The SDK writes a missing tool-call id as the string "null". */
const usableId = (id: string | undefined): string | undefined =>
  id === undefined || id === '' || id === 'null' ? undefined : id;

/**
 * Turns the events of a streamed Mistral chat completion (the SDK's `CompletionEvent`s) into `StreamPart`s.
 *
 * - `thinking` chunks stream as `reasoning-delta` parts; a block ends (one `reasoning` part) when the answer's text or
 *   a call begins, when another block follows a signed one, or at the end.
 * - Text chunks (a string or `text` chunks) are `text-delta` parts.
 * - Each tool call goes out as one `tool-call` part the moment its arguments are a whole JSON object (Mistral sends
 *   every call of an answer whole, together in one delta: each goes out there, in order): eager tools start while the model is still writing.
 *   Argument fragments split over deltas are matched by id, else by index, and read once each; more argument text
 *   after a call went out is a malformed stream (`ProviderError` `invalid_stream_event`), never a changed call. A call
 *   the request's tool-call policy rejects produces no part at all and is reported at the end.
 * - Anything of the answer after the chunk that carried the finish reason is a malformed stream (`ProviderError`
 *   `invalid_stream_event`).
 * - `finish()`, once the SDK's stream ended, gives the closing parts; a call whose arguments never became a whole
 *   object goes out there as received (as `generate()` returns it), for the planner's parser to judge. The stream must have said its finish reason: a
 *   body that ended before it, with a call still open, is an `IncompleteToolCallError`; without one, a
 *   `StreamInterruptedError` carrying the text so far. A `length` stop that cut the last call off is an
 *   `IncompleteToolCallError` too.
 *
 * @example
 * const assembler = new StreamAssembler({ policy, adjustments });
 * for await (const event of events) yield* assembler.push(event);
 * yield* assembler.finish();
 */
export class StreamAssembler {
  readonly #policy: ToolCallPolicy;
  readonly #adjustments: readonly Adjustment[];
  readonly #calls: PendingCall[] = [];
  readonly #accepted: ToolCall[] = [];
  readonly #rejected: ToolCall[] = [];
  #openReasoning: { text: string; signature: string | undefined } | undefined;
  #text = '';
  #rawFinishReason: string | undefined;
  #usage: unknown;
  #responseId: string | undefined;

  constructor(context: { readonly policy: ToolCallPolicy; readonly adjustments: readonly Adjustment[] }) {
    this.#policy = context.policy;
    this.#adjustments = context.adjustments;
  }

  /** The text streamed so far, for `StreamInterruptedError.partialText`. */
  get text(): string {
    return this.#text;
  }

  /** The parts for one event. */
  push(value: unknown): StreamPart[] {
    const chunk = asRecord(field(asRecord(value, 'a stream event'), 'data'), 'a stream event.data');
    this.#responseId ??= optionalStringField(chunk, 'id', 'a chunk');
    const usage = field(chunk, 'usage');
    if (usage !== undefined && usage !== null) this.#usage = usage;
    const parts: StreamPart[] = [];
    for (const item of arrayField(chunk, 'choices', 'a chunk')) {
      const choice = asRecord(item, 'a chunk choice');
      // Only the first choice is read; `n > 1` is not part of the LanguageModel contract.
      const index = field(choice, 'index');
      if (index !== undefined && index !== 0) continue;
      const delta = asRecord(field(choice, 'delta') ?? {}, 'a chunk delta');
      if (this.#rawFinishReason !== undefined && hasAnswer(delta)) {
        throw new ProviderError({
          provider: PROVIDER,
          providerCode: 'invalid_stream_event',
          message: `${PROVIDER} stream went on after its finish reason '${this.#rawFinishReason}'; the stream cannot be trusted.`,
        });
      }
      this.#pushContent(field(delta, 'content'), parts);
      const toolCalls = arrayField(delta, 'toolCalls', 'a chunk delta');
      if (toolCalls.length > 0) this.#closeReasoning(parts);
      toolCalls.forEach((call, position) => {
        this.#pushToolCall(call, `delta.tool_calls[${position}]`, parts);
      });
      const finishReason = optionalStringField(choice, 'finishReason', 'a chunk choice');
      if (finishReason !== undefined) this.#rawFinishReason = finishReason;
    }
    return parts;
  }

  #pushContent(content: unknown, parts: StreamPart[]): void {
    if (content === undefined || content === null) return;
    if (typeof content === 'string') {
      this.#pushText(content, parts);
      return;
    }
    if (!Array.isArray(content))
      throw invalidResponse('a chunk delta.content is neither a string nor chunks.');
    content.forEach((item, index) => {
      const what = `delta.content[${index}]`;
      const piece = asRecord(item, what);
      const type = stringField(piece, 'type', what);
      if (type === 'text') this.#pushText(stringField(piece, 'text', what), parts);
      else if (type === 'thinking') this.#pushThinking(piece, what, parts);
      else
        throw invalidResponse(`${what} is a '${type}' chunk, which an answer of this adapter never carries.`);
    });
  }

  #pushText(delta: string, parts: StreamPart[]): void {
    if (delta === '') return;
    this.#closeReasoning(parts);
    this.#text += delta;
    parts.push({ type: 'text-delta', delta });
  }

  #pushThinking(chunk: Readonly<Record<string, unknown>>, what: string, parts: StreamPart[]): void {
    const text = thinkingText(field(chunk, 'thinking'), what);
    const signature = optionalStringField(chunk, 'signature', what);
    if (text === '' && signature === undefined) return;
    // A block that already has its signature is complete: what follows is the next block.
    if (this.#openReasoning?.signature !== undefined) this.#closeReasoning(parts);
    this.#openReasoning ??= { text: '', signature: undefined };
    if (text !== '') {
      this.#openReasoning.text += text;
      parts.push({ type: 'reasoning-delta', delta: text });
    }
    if (signature !== undefined) this.#openReasoning.signature = signature;
  }

  #closeReasoning(parts: StreamPart[]): void {
    const open = this.#openReasoning;
    if (open === undefined) return;
    this.#openReasoning = undefined;
    const reasoning: ReasoningPart = reasoningPart(open.text, open.signature);
    parts.push({ type: 'reasoning', reasoning });
  }

  #pushToolCall(value: unknown, what: string, parts: StreamPart[]): void {
    const delta = asRecord(value, what);
    const id = usableId(optionalStringField(delta, 'id', what));
    const rawIndex = field(delta, 'index');
    const index = typeof rawIndex === 'number' ? rawIndex : undefined;
    const fn = asRecord(field(delta, 'function') ?? {}, `${what}.function`);
    const fragment = field(fn, 'arguments') === undefined ? '' : argumentsText(field(fn, 'arguments'), what);
    let call = id === undefined ? undefined : this.#calls.find((candidate) => candidate.id === id);
    if (call === undefined && id === undefined) {
      call =
        index === undefined
          ? this.#calls.at(-1)
          : this.#calls.findLast((candidate) => candidate.index === index);
    }
    if (call === undefined) {
      if (id === undefined) throw invalidResponse(`${what} starts a tool call without an id.`);
      const toolName = stringField(fn, 'name', `${what}.function`);
      const accepted = isToolCallAccepted(this.#policy, toolName);
      call = { index, id, toolName, accepted, arguments: '', end: new JsonObjectEnd(), settled: false };
      this.#calls.push(call);
      if (accepted) parts.push({ type: 'tool-call-start', toolCallId: id, toolName });
    }
    if (call.settled) {
      if (SIGNIFICANT.test(fragment)) throw this.#changedAfterComplete(call);
      return;
    }
    call.arguments += fragment;
    call.end.push(fragment);
    if (call.accepted && fragment !== '') {
      parts.push({ type: 'tool-call-delta', toolCallId: call.id, argumentsDelta: fragment });
    }
    if (call.end.closed && isJsonObject(call.arguments)) parts.push(...this.#settle(call));
  }

  /** A complete call: emitted as a `tool-call` part, or, when the policy rejects it, kept for the report. */
  #settle(call: PendingCall): StreamPart[] {
    call.settled = true;
    const toolCall: ToolCall = { id: call.id, toolName: call.toolName, arguments: call.arguments };
    if (!call.accepted) {
      this.#rejected.push(toolCall);
      return [];
    }
    this.#accepted.push(toolCall);
    return [{ type: 'tool-call', toolCall }];
  }

  #changedAfterComplete(call: PendingCall): ProviderError {
    return new ProviderError({
      provider: PROVIDER,
      providerCode: 'invalid_stream_event',
      message:
        `${PROVIDER} stream sent more argument text for tool call '${call.id}' (${call.toolName}) after its ` +
        'arguments were a complete JSON object and the call went out; the stream cannot be trusted.',
    });
  }

  /** The closing parts, once the SDK's stream ended; throws when the stream was cut (see the class). */
  finish(): StreamPart[] {
    const rawFinishReason = this.#rawFinishReason;
    const open = this.#calls.find((call) => !call.settled);
    if (rawFinishReason === undefined) {
      if (open !== undefined) throw this.#incomplete(open, undefined);
      throw new StreamInterruptedError({
        provider: PROVIDER,
        providerCode: 'stream_ended_early',
        message: `${PROVIDER}: the stream ended before its finish reason; the answer is incomplete.`,
        partialText: this.#text,
      });
    }
    const finishReason = mapFinishReason(rawFinishReason);
    const parts: StreamPart[] = [];
    this.#closeReasoning(parts);
    for (const call of this.#calls) {
      if (call.settled) continue;
      if (finishReason === 'length' && call === this.#calls.at(-1) && !isJsonObject(call.arguments)) {
        if (call.accepted) throw this.#incomplete(call, rawFinishReason);
        this.#rejected.push({ id: call.id, toolName: call.toolName, arguments: call.arguments });
        continue;
      }
      parts.push(...this.#settle(call));
    }
    parts.push({
      type: 'finish',
      finishReason,
      rawFinishReason,
      usage: mapUsage(this.#usage),
      adjustments: [
        ...this.#adjustments,
        ...reportToolCallPolicy(this.#policy, this.#accepted, this.#rejected, { provider: PROVIDER }),
      ],
      ...(this.#responseId === undefined ? {} : { responseId: this.#responseId }),
    });
    return parts;
  }

  #incomplete(call: PendingCall, finishReason: string | undefined): IncompleteToolCallError {
    return new IncompleteToolCallError({
      toolCallId: call.id,
      toolName: call.toolName,
      partialArguments: call.arguments,
      ...(finishReason === undefined ? {} : { finishReason }),
    });
  }
}
