import type { ConverseResponse, TokenUsage } from '@aws-sdk/client-bedrock-runtime';
import {
  type Adjustment,
  createUsage,
  EMPTY_USAGE,
  type FinishReason,
  IncompleteToolCallError,
  type ModelResponse,
  type ToolCall,
  type ToolPropertyNames,
  type Usage,
} from '@org/core';
import { mapStopReason } from './map-stop-reason.js';
import type { ToolCallPolicy } from './prepare-tool-config.js';
import { isRejectedToolCall, reportToolCallPolicy } from './tool-call-policy.js';
import type { ToolNameMap } from './tool-names.js';

/**
 * Maps a Converse response onto a `ModelResponse`: text blocks joined (reasoning blocks are not answer text and are
 * left out), `toolUse` blocks as `ToolCall`s with the input as JSON text and the caller's tool names, usage and
 * the finish reason. Calls rejected by the policy are reported, never returned. A `max_tokens` stop that cut a
 * tool call off throws `IncompleteToolCallError`.
 *
 * @example
 * const response = mapConverseResponse(output, { names, callPolicy, adjustments });
 */
export function mapConverseResponse(
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
  const accepted: ToolCall[] = [];
  const rejected: ToolCall[] = [];
  for (const block of content) {
    if (typeof block.text === 'string') {
      text += block.text;
    } else if (block.toolUse !== undefined) {
      const toolName = context.names.fromWire(block.toolUse.name ?? '');
      const call: ToolCall = {
        id: block.toolUse.toolUseId ?? '',
        toolName,
        arguments: argumentsOf(toolName, block.toolUse.input),
      };
      (isRejectedToolCall(context.callPolicy, call.toolName) ? rejected : accepted).push(call);
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
  let finishReason: FinishReason = mapStopReason(rawFinishReason);
  if (finishReason === 'tool-calls' && accepted.length === 0) finishReason = 'stop';
  return {
    text,
    toolCalls: accepted,
    finishReason,
    ...(rawFinishReason === undefined ? {} : { rawFinishReason }),
    usage: mapUsage(output.usage),
    adjustments: [...context.adjustments, ...reportToolCallPolicy(context.callPolicy, accepted, rejected)],
    ...(context.includeRawResponse ? { rawResponse: output } : {}),
  };
}

/** Converse token usage as core `Usage`; cache reads become `cachedInputTokens`. */
export function mapUsage(usage: TokenUsage | undefined): Usage {
  if (usage === undefined) return EMPTY_USAGE;
  const inputTokens = usage.inputTokens ?? 0;
  const outputTokens = usage.outputTokens ?? 0;
  return createUsage({
    inputTokens,
    outputTokens,
    totalTokens: usage.totalTokens ?? inputTokens + outputTokens,
    cachedInputTokens: usage.cacheReadInputTokens,
  });
}
