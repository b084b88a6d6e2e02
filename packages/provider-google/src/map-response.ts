import type { ModelResponse, ReasoningPart, StreamPart, ToolCall } from '@org/core';
import { type AssemblerContext, StreamAssembler } from './stream-assembler.js';
import { invalidResponse } from './wire-values.js';

/**
 * A whole `generateContent` answer as a `ModelResponse`, read by the same `StreamAssembler` as a stream, so both paths
 * agree on thoughts and signatures, call ids, property names, the tool-call policy, finish reasons and failures.
 *
 * @example
 * return mapResponse(response, { policy, propertyNames, adjustments }, { includeRawResponse: false });
 */
export function mapResponse(
  value: unknown,
  context: AssemblerContext,
  options: { readonly includeRawResponse: boolean },
): ModelResponse {
  const assembler = new StreamAssembler(context);
  const parts: StreamPart[] = [...assembler.push(value), ...assembler.finish()];
  let text = '';
  const toolCalls: ToolCall[] = [];
  const reasoning: ReasoningPart[] = [];
  for (const part of parts) {
    if (part.type === 'text-delta') text += part.delta;
    else if (part.type === 'tool-call') toolCalls.push(part.toolCall);
    else if (part.type === 'reasoning') reasoning.push(part.reasoning);
    else if (part.type === 'finish') {
      return {
        text,
        toolCalls,
        ...(reasoning.length > 0 ? { reasoning } : {}),
        finishReason: part.finishReason,
        ...(part.rawFinishReason === undefined ? {} : { rawFinishReason: part.rawFinishReason }),
        usage: part.usage,
        adjustments: part.adjustments,
        ...(part.responseId === undefined ? {} : { responseId: part.responseId }),
        ...(options.includeRawResponse ? { rawResponse: value } : {}),
      };
    }
  }
  throw invalidResponse('the answer did not finish.');
}
