import {
  type Adjustment,
  IncompleteToolCallError,
  isToolCallAccepted,
  type ReasoningPart,
  reportToolCallPolicy,
  type StreamPart,
  type ToolCall,
  type ToolCallPolicy,
} from '@org/core';
import { generateCallId } from './call-ids.js';
import { FunctionCallFailedError } from './function-call-failed-error.js';
import { FAILED_FUNCTION_CALL_REASONS, mapFinishReason } from './map-finish-reason.js';
import { mapUsage } from './map-usage.js';
import { anchorId } from './part-anchors.js';
import { PartialArguments } from './partial-arguments.js';
import type { PropertyNames } from './property-names.js';
import { PROVIDER } from './provider-name.js';
import {
  arrayField,
  asRecord,
  field,
  invalidResponse,
  optionalStringField,
  stringField,
} from './wire-values.js';

/** A call whose arguments arrive in fragments (`streamFunctionCallArguments`). */
interface ContinuingCall {
  readonly id: string;
  readonly toolName: string;
  readonly accepted: boolean;
  readonly args: PartialArguments;
  signature: string | undefined;
}

/** What the assembler needs from the request. */
export interface AssemblerContext {
  readonly policy: ToolCallPolicy;
  readonly propertyNames: PropertyNames;
  readonly adjustments: readonly Adjustment[];
}

// Part kinds a text-and-tools answer never has (code execution, generated media): read as a broken answer rather than
// dropped, so nothing the model said disappears silently.
const FOREIGN_PART_KINDS = [
  'inlineData',
  'fileData',
  'executableCode',
  'codeExecutionResult',
  'functionResponse',
  'toolCall',
  'toolResponse',
] as const;

/**
 * Reads Gemini answers, whole (`generateContent`) or chunk by chunk (`streamGenerateContent`), into `StreamPart`s:
 * - `thought: true` parts are reasoning: `reasoning-delta` as they come, one `reasoning` part per thought (consecutive
 *   thought chunks are one thought, closed by its signature or by the next non-thought part); a signature-only
 *   thought is a `reasoning` part with `redactedData`.
 * - text parts are `text-delta`; a `thoughtSignature` on one is a `reasoning` part anchored to that text.
 * - each `functionCall` part arrives whole, so its `tool-call-start`, `tool-call-delta` (the whole arguments) and
 *   `tool-call` go out at once, and an eager tool can start while the answer goes on; the call keeps the model's
 *   `id` or gets a generated one, its property names mapped back, and its signature anchored to it.
 * - `finish`: the finish reason, the last usage seen, the request's adjustments and the tool-call policy's report;
 *   `MALFORMED_FUNCTION_CALL`, `UNEXPECTED_TOOL_CALL` and `TOO_MANY_TOOL_CALLS` are a `FunctionCallFailedError`.
 *
 * @example
 * const assembler = new StreamAssembler({ policy, propertyNames, adjustments });
 * for await (const chunk of chunks) yield* assembler.push(chunk);
 * yield* assembler.finish();
 */
export class StreamAssembler {
  readonly #context: AssemblerContext;
  readonly #accepted: ToolCall[] = [];
  readonly #rejected: ToolCall[] = [];
  #text = '';
  #thought: { text: string } | undefined;
  #continuing: ContinuingCall | undefined;
  #finishReason: string | undefined;
  #finishMessage: string | undefined;
  #blockReason: string | undefined;
  #usage: unknown;
  #responseId: string | undefined;

  constructor(context: AssemblerContext) {
    this.#context = context;
  }

  /** The text streamed so far, for `StreamInterruptedError.partialText`. */
  get text(): string {
    return this.#text;
  }

  /** Whether a finish reason (or a blocked prompt) arrived: the answer is complete. */
  get finished(): boolean {
    return this.#finishReason !== undefined || this.#blockReason !== undefined;
  }

  /**
   * The error for a call whose argument fragments were still arriving when the answer ended or was cut, with the
   * arguments received so far; `undefined` when no accepted call was incomplete.
   */
  incompleteCallError(finishReason?: string): IncompleteToolCallError | undefined {
    const call = this.#continuing;
    if (call === undefined || !call.accepted) return undefined;
    return new IncompleteToolCallError({
      toolCallId: call.id,
      toolName: call.toolName,
      partialArguments: this.#context.propertyNames.argumentsFromWire(call.toolName, call.args.text()),
      ...(finishReason === undefined ? {} : { finishReason }),
    });
  }

  /** The parts for one response or chunk. */
  push(value: unknown): StreamPart[] {
    const chunk = asRecord(value, 'the response');
    this.#responseId ??= optionalStringField(chunk, 'responseId', 'the response');
    if (field(chunk, 'usageMetadata') !== undefined) this.#usage = field(chunk, 'usageMetadata');
    const feedback = field(chunk, 'promptFeedback');
    if (feedback !== undefined) {
      this.#blockReason = optionalStringField(
        asRecord(feedback, 'promptFeedback'),
        'blockReason',
        'promptFeedback',
      );
    }
    const candidates = arrayField(chunk, 'candidates', 'the response');
    if (candidates.length > 1)
      throw invalidResponse(`${candidates.length} candidates came back; one was asked for.`);
    if (candidates.length === 0) return [];
    const candidate = asRecord(candidates[0], 'candidates[0]');
    const parts: StreamPart[] = [];
    const content = field(candidate, 'content');
    if (content !== undefined) {
      for (const [index, part] of arrayField(
        asRecord(content, 'candidates[0].content'),
        'parts',
        'content',
      ).entries()) {
        parts.push(...this.#part(asRecord(part, `content.parts[${index}]`), `content.parts[${index}]`));
      }
    }
    const finishReason = optionalStringField(candidate, 'finishReason', 'candidates[0]');
    if (finishReason !== undefined) {
      this.#finishReason = finishReason;
      this.#finishMessage = optionalStringField(candidate, 'finishMessage', 'candidates[0]');
    }
    return parts;
  }

  /** The closing parts once the answer is complete; throws the typed error of an answer that failed. */
  finish(): StreamPart[] {
    const parts = this.#closeThought(undefined);
    const incomplete = this.incompleteCallError(this.#finishReason);
    if (incomplete !== undefined) throw incomplete;
    const rejectedCut = this.#continuing;
    if (rejectedCut !== undefined) {
      // A call the tool-call policy rejects is reported with the others, complete or not.
      this.#continuing = undefined;
      this.#rejected.push({
        id: rejectedCut.id,
        toolName: rejectedCut.toolName,
        arguments: rejectedCut.args.text(),
      });
    }
    const raw = this.#finishReason ?? this.#blockReason;
    if (raw === undefined)
      throw invalidResponse('the answer has neither a finish reason nor a blocked prompt.');
    if (FAILED_FUNCTION_CALL_REASONS.has(raw)) {
      throw new FunctionCallFailedError({ finishReason: raw, finishMessage: this.#finishMessage });
    }
    const { policy, adjustments } = this.#context;
    parts.push({
      type: 'finish',
      finishReason:
        this.#finishReason === undefined ? 'content-filter' : mapFinishReason(raw, this.#accepted.length > 0),
      rawFinishReason: raw,
      usage: mapUsage(this.#usage),
      adjustments: [
        ...adjustments,
        ...reportToolCallPolicy(policy, this.#accepted, this.#rejected, { provider: PROVIDER }),
      ],
      ...(this.#responseId === undefined ? {} : { responseId: this.#responseId }),
    });
    return parts;
  }

  #part(part: Readonly<Record<string, unknown>>, what: string): StreamPart[] {
    const signature = optionalStringField(part, 'thoughtSignature', what);
    const call = field(part, 'functionCall');
    if (call !== undefined && field(part, 'text') !== undefined) {
      throw invalidResponse(`${what} has both a functionCall and text; a part carries one of them.`);
    }
    if (call !== undefined) {
      return [
        ...this.#closeThought(undefined),
        ...this.#functionCall(asRecord(call, `${what}.functionCall`), signature, what),
      ];
    }
    const text = optionalStringField(part, 'text', what);
    if (field(part, 'thought') === true) {
      const parts: StreamPart[] = [];
      this.#thought ??= { text: '' };
      if (text !== undefined && text !== '') {
        this.#thought.text += text;
        parts.push({ type: 'reasoning-delta', delta: text });
      }
      if (signature !== undefined) parts.push(...this.#closeThought(signature));
      return parts;
    }
    const kind = FOREIGN_PART_KINDS.find((name) => field(part, name) !== undefined);
    if (kind !== undefined)
      throw invalidResponse(`${what} is a ${kind} part, which a tool-calling answer never has.`);
    if (text === undefined && signature === undefined) return [];
    const parts = this.#closeThought(undefined);
    const start = this.#text.length;
    if (text !== undefined && text !== '') {
      this.#text += text;
      parts.push({ type: 'text-delta', delta: text });
    }
    if (signature !== undefined) {
      parts.push(this.#anchored(signature, anchorId({ kind: 'text', start, end: this.#text.length })));
    }
    return parts;
  }

  #functionCall(
    call: Readonly<Record<string, unknown>>,
    signature: string | undefined,
    what: string,
  ): StreamPart[] {
    const continues = field(call, 'willContinue') === true;
    if (this.#continuing !== undefined || continues || field(call, 'partialArgs') !== undefined) {
      return this.#fragment(call, signature, continues, what);
    }
    const toolName = stringField(call, 'name', `${what}.functionCall`);
    const args = field(call, 'args');
    if (args !== undefined) asRecord(args, `${what}.functionCall.args`);
    const id = optionalStringField(call, 'id', `${what}.functionCall`) ?? generateCallId();
    const accepted = isToolCallAccepted(this.#context.policy, toolName);
    // The SDK has already parsed the body, so the arguments are serialised again here (keys in the order received);
    // the property-name mapping works on that text.
    return [
      ...(accepted ? [{ type: 'tool-call-start', toolCallId: id, toolName } as const] : []),
      ...this.#complete(id, toolName, JSON.stringify(args ?? {}), accepted, signature),
    ];
  }

  /** One part of a call streamed in argument fragments: started, continued, or completed. */
  #fragment(
    call: Readonly<Record<string, unknown>>,
    signature: string | undefined,
    continues: boolean,
    what: string,
  ): StreamPart[] {
    const parts: StreamPart[] = [];
    let pending = this.#continuing;
    if (pending === undefined) {
      const toolName = stringField(call, 'name', `${what}.functionCall`);
      pending = {
        id: optionalStringField(call, 'id', `${what}.functionCall`) ?? generateCallId(),
        toolName,
        accepted: isToolCallAccepted(this.#context.policy, toolName),
        args: new PartialArguments(),
        signature: undefined,
      };
      this.#continuing = pending;
      if (pending.accepted) parts.push({ type: 'tool-call-start', toolCallId: pending.id, toolName });
    } else {
      const name = optionalStringField(call, 'name', `${what}.functionCall`);
      if (name !== undefined && name !== '' && name !== pending.toolName) {
        throw invalidResponse(
          `${what}.functionCall '${name}' began before '${pending.toolName}' was complete.`,
        );
      }
    }
    if (signature !== undefined) pending.signature = signature;
    for (const [index, entry] of arrayField(call, 'partialArgs', `${what}.functionCall`).entries()) {
      pending.args.apply(
        asRecord(entry, `${what}.functionCall.partialArgs[${index}]`),
        `${what}.functionCall.partialArgs[${index}]`,
      );
    }
    if (continues) return parts;
    this.#continuing = undefined;
    return [
      ...parts,
      ...this.#complete(
        pending.id,
        pending.toolName,
        pending.args.text(),
        pending.accepted,
        pending.signature,
      ),
    ];
  }

  /** A complete call: its arguments (names mapped back), its `tool-call` part (or its rejection), its signature. */
  #complete(
    id: string,
    toolName: string,
    wireArguments: string,
    accepted: boolean,
    signature: string | undefined,
  ): StreamPart[] {
    const toolCall: ToolCall = {
      id,
      toolName,
      arguments: this.#context.propertyNames.argumentsFromWire(toolName, wireArguments),
    };
    const parts: StreamPart[] = [];
    if (accepted) {
      this.#accepted.push(toolCall);
      parts.push(
        { type: 'tool-call-delta', toolCallId: id, argumentsDelta: toolCall.arguments },
        { type: 'tool-call', toolCall },
      );
    } else {
      this.#rejected.push(toolCall);
    }
    if (signature !== undefined) {
      parts.push(this.#anchored(signature, anchorId({ kind: 'function-call', toolCallId: id })));
    }
    return parts;
  }

  #anchored(signature: string, id: string): StreamPart {
    const reasoning: ReasoningPart = { type: 'reasoning', provider: PROVIDER, text: '', signature, id };
    return { type: 'reasoning', reasoning };
  }

  #closeThought(signature: string | undefined): StreamPart[] {
    const thought = this.#thought;
    if (thought === undefined) return [];
    this.#thought = undefined;
    if (thought.text === '' && signature === undefined) return [];
    const reasoning: ReasoningPart =
      thought.text === '' && signature !== undefined
        ? { type: 'reasoning', provider: PROVIDER, text: '', redactedData: signature }
        : {
            type: 'reasoning',
            provider: PROVIDER,
            text: thought.text,
            ...(signature === undefined ? {} : { signature }),
          };
    return [{ type: 'reasoning', reasoning }];
  }
}
