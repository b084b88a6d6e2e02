import {
  type Adjustment,
  applyToolCallPolicy,
  IncompleteToolCallError,
  type ModelResponse,
  type ReasoningPart,
  readStrictJson,
  type ToolCall,
  type ToolCallPolicy,
} from '@org/core';
import { mapFinishReason } from './map-finish-reason.js';
import { mapThinkChunk } from './map-reasoning.js';
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

/**
 * A call's arguments as text. Mistral sends a JSON string; its schema also allows an object, which is written back as
 * the JSON text it was.
 */
export function argumentsText(value: unknown, what: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return JSON.stringify(value);
  throw invalidResponse(`${what}.function.arguments is neither a JSON string nor an object.`);
}

function mapToolCall(value: unknown, what: string): ToolCall {
  const call = asRecord(value, what);
  const fn = asRecord(field(call, 'function'), `${what}.function`);
  return {
    id: stringField(call, 'id', what),
    toolName: stringField(fn, 'name', `${what}.function`),
    arguments: argumentsText(field(fn, 'arguments'), what),
  };
}

/** The text and the thinking of an assistant message's `content`: a string, or chunks. */
function readContent(value: unknown): { text: string; reasoning: ReasoningPart[] } {
  if (value === undefined || value === null) return { text: '', reasoning: [] };
  if (typeof value === 'string') return { text: value, reasoning: [] };
  if (!Array.isArray(value)) throw invalidResponse('message.content is neither a string nor chunks.');
  let text = '';
  const reasoning: ReasoningPart[] = [];
  value.forEach((item, index) => {
    const what = `message.content[${index}]`;
    const chunk = asRecord(item, what);
    const type = stringField(chunk, 'type', what);
    if (type === 'text') text += stringField(chunk, 'text', what);
    else if (type === 'thinking') reasoning.push(mapThinkChunk(chunk, what));
    else
      throw invalidResponse(`${what} is a '${type}' chunk, which an answer of this adapter never carries.`);
  });
  return { text, reasoning };
}

/** Whether a call's arguments are one whole JSON object, by the strict reader of `@org/core`. */
export function isJsonObject(text: string): boolean {
  const read = readStrictJson(text);
  return read.ok && typeof read.value === 'object' && read.value !== null && !Array.isArray(read.value);
}

/**
 * Mistral's chat completion (as the SDK read it) as a `ModelResponse`: thinking chunks as reasoning, text, tool calls
 * checked with the request's tool-call policy, finish reason, usage, and the request's adjustments. A call cut off by
 * `length` (arguments that are not a whole object) is an `IncompleteToolCallError`, never a call to run.
 *
 * @example
 * return mapResponse(await client.chat.complete(body), { policy, adjustments, includeRawResponse: false });
 */
export function mapResponse(
  value: unknown,
  context: {
    readonly policy: ToolCallPolicy;
    readonly adjustments: readonly Adjustment[];
    readonly includeRawResponse: boolean;
  },
): ModelResponse {
  const body = asRecord(value, 'the response');
  const choice = asRecord(arrayField(body, 'choices', 'the response')[0], 'choices[0]');
  const message = asRecord(field(choice, 'message') ?? {}, 'choices[0].message');
  const { text, reasoning } = readContent(field(message, 'content'));
  const calls = arrayField(message, 'toolCalls', 'message').map((call, index) =>
    mapToolCall(call, `message.tool_calls[${index}]`),
  );
  const rawFinishReason = optionalStringField(choice, 'finishReason', 'choices[0]') ?? 'stop';
  const finishReason = mapFinishReason(rawFinishReason);
  const cut = finishReason === 'length' ? calls.at(-1) : undefined;
  if (cut !== undefined && !isJsonObject(cut.arguments)) {
    throw new IncompleteToolCallError({
      toolCallId: cut.id,
      toolName: cut.toolName,
      partialArguments: cut.arguments,
      finishReason: rawFinishReason,
    });
  }
  const checked = applyToolCallPolicy(context.policy, calls, { provider: PROVIDER });
  const responseId = optionalStringField(body, 'id', 'the response');
  return {
    text,
    toolCalls: checked.toolCalls,
    ...(reasoning.length > 0 ? { reasoning } : {}),
    finishReason,
    rawFinishReason,
    usage: mapUsage(field(body, 'usage')),
    adjustments: [...context.adjustments, ...checked.adjustments],
    ...(responseId === undefined ? {} : { responseId }),
    ...(context.includeRawResponse ? { rawResponse: value } : {}),
  };
}
