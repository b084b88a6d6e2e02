import type { ConverseResponse } from '@aws-sdk/client-bedrock-runtime';
import {
  type Adjustment,
  type FinishReason,
  IncompleteToolCallError,
  isToolCallAccepted,
  type ModelResponse,
  type ReasoningPart,
  reportToolCallPolicy,
  type ToolCall,
  type ToolCallPolicy,
  type ToolPropertyNames,
} from '@org/core';
import { BEDROCK_PROVIDER } from './map-error.js';
import { mapFinishReason } from './map-finish-reason.js';
import { mapUsage } from './map-usage.js';
import { reasoningPartOf } from './reasoning-blocks.js';
import type { ToolNameMap } from './tool-names.js';

/**
 * Maps a Converse response onto a `ModelResponse`: text blocks joined, `reasoningContent` blocks as `reasoning` (in
 * order, never mixed into the text), `toolUse` blocks as `ToolCall`s with the input as JSON text and the caller's
 * tool names, usage and the finish reason. Calls rejected by the policy are reported, never returned. A `max_tokens` stop that cut a
 * tool call off throws `IncompleteToolCallError`.
 *
 * @example
 * const response = mapResponse(output, { names, callPolicy, adjustments });
 */
export function mapResponse(
  output: ConverseResponse,
  context: {
    names: ToolNameMap;
    /** Property names sent renamed: mapped back in the arguments, key by key. */
    propertyNames?: ToolPropertyNames;
    callPolicy: ToolCallPolicy;
    adjustments: readonly Adjustment[];
    includeRawResponse: boolean;
  },
): ModelResponse {
  // The SDK has already parsed the document; the key rewrite works on its JSON text and never parses it again.
  const argumentsOf = (toolName: string, input: unknown): string => {
    const text = JSON.stringify(input ?? {});
    return context.propertyNames?.argumentsFromWire(toolName, text) ?? text;
  };
  const content = output.output?.message?.content ?? [];
  let text = '';
  const reasoning: ReasoningPart[] = [];
  const accepted: ToolCall[] = [];
  const rejected: ToolCall[] = [];
  for (const block of content) {
    if (typeof block.text === 'string') {
      text += block.text;
    } else if (block.reasoningContent !== undefined) {
      const part = reasoningPartOf(block.reasoningContent);
      if (part !== undefined) reasoning.push(part);
    } else if (block.toolUse !== undefined) {
      const toolName = context.names.fromWire(block.toolUse.name ?? '');
      const call: ToolCall = {
        id: block.toolUse.toolUseId ?? '',
        toolName,
        arguments: argumentsOf(toolName, block.toolUse.input),
      };
      (isToolCallAccepted(context.callPolicy, call.toolName) ? accepted : rejected).push(call);
    }
  }
  const rawFinishReason = output.stopReason;
  if (rawFinishReason === 'max_tokens' && content.at(-1)?.toolUse !== undefined) {
    const last = content.at(-1)?.toolUse;
    throw new IncompleteToolCallError({
      ...(last?.toolUseId === undefined ? {} : { toolCallId: last.toolUseId }),
      ...(last?.name === undefined ? {} : { toolName: context.names.fromWire(last.name) }),
      partialArguments: argumentsOf(context.names.fromWire(last?.name ?? ''), last?.input),
      finishReason: 'length',
    });
  }
  let finishReason: FinishReason = mapFinishReason(rawFinishReason);
  if (finishReason === 'tool-calls' && accepted.length === 0) finishReason = 'stop';
  return {
    text,
    toolCalls: accepted,
    ...(reasoning.length === 0 ? {} : { reasoning }),
    finishReason,
    ...(rawFinishReason === undefined ? {} : { rawFinishReason }),
    usage: mapUsage(output.usage),
    adjustments: [
      ...context.adjustments,
      ...reportToolCallPolicy(context.callPolicy, accepted, rejected, { provider: BEDROCK_PROVIDER }),
    ],
    ...(context.includeRawResponse ? { rawResponse: output } : {}),
  };
}
