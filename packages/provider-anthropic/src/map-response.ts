import type { Message } from '@anthropic-ai/sdk/resources/messages';
import {
  type Adjustment,
  IncompleteToolCallError,
  isToolCallAccepted,
  type ModelResponse,
  type ReasoningPart,
  reportToolCallPolicy,
  type ToolCall,
  type ToolCallPolicy,
} from '@org/core';
import { isClientToolUse } from './client-tool-use.js';
import { mapFinishReason } from './map-finish-reason.js';
import { mapUsage } from './map-usage.js';
import type { PropertyNames } from './property-names.js';
import { redactedThinkingPart, thinkingPart } from './reasoning-parts.js';

/**
 * Maps a complete Messages API answer onto a `ModelResponse`.
 *
 * Text blocks are concatenated; client `tool_use` blocks become `ToolCall`s with their `input` as JSON text (property
 * names that were sent renamed mapped back, key by key). `thinking` blocks become `reasoning` parts with their text
 * and signature, `redacted_thinking` blocks parts with `redactedData` (and no text), in order, to be sent back on
 * the next turn (`AssistantMessage.reasoning`). Blocks the server handled itself (server tools, MCP, code execution
 * and the tool calls it makes, tool search) have no core counterpart and are left out by design;
 * `includeRawResponse` keeps them.
 *
 * A `max_tokens` stop whose last block is a tool call means that call's input was cut off: this throws
 * `IncompleteToolCallError` rather than return a call that must never run.
 */
export function mapMessage(
  message: Message,
  context: {
    adjustments: readonly Adjustment[];
    policy: ToolCallPolicy;
    includeRawResponse: boolean;
    /** Property names sent renamed: the arguments are mapped back to the tool's own names. */
    propertyNames?: PropertyNames;
  },
): ModelResponse {
  // The SDK has already parsed the body, so `input` is re-serialised here; the key rewrite that follows works on
  // that text and never parses it again.
  const argumentsOf = (block: { name: string; input: unknown }): string =>
    context.propertyNames?.argumentsFromWire(block.name, JSON.stringify(block.input ?? {})) ??
    JSON.stringify(block.input ?? {});
  const content = Array.isArray(message.content) ? message.content : [];
  const last = content[content.length - 1];
  if (
    message.stop_reason === 'max_tokens' &&
    last !== undefined &&
    last.type === 'tool_use' &&
    isClientToolUse(last) &&
    isToolCallAccepted(context.policy, last.name)
  ) {
    throw new IncompleteToolCallError({
      toolCallId: last.id,
      toolName: last.name,
      partialArguments: argumentsOf(last),
      finishReason: 'max_tokens',
    });
  }

  let text = '';
  const toolCalls: ToolCall[] = [];
  const rejected: ToolCall[] = [];
  const reasoning: ReasoningPart[] = [];
  for (const block of content) {
    if (block.type === 'text') {
      text += block.text;
    } else if (block.type === 'thinking') {
      reasoning.push(thinkingPart(block.thinking, block.signature));
    } else if (block.type === 'redacted_thinking') {
      reasoning.push(redactedThinkingPart(block.data));
    } else if (block.type === 'tool_use' && isClientToolUse(block)) {
      const call: ToolCall = {
        id: block.id,
        toolName: block.name,
        arguments: argumentsOf(block),
      };
      if (isToolCallAccepted(context.policy, call.toolName)) toolCalls.push(call);
      else rejected.push(call);
    }
  }

  const checked = reportToolCallPolicy(context.policy, toolCalls, rejected, { provider: 'anthropic' });
  const stopReason = message.stop_reason ?? undefined;
  return {
    text,
    toolCalls,
    ...(reasoning.length === 0 ? {} : { reasoning }),
    finishReason: mapFinishReason(stopReason, toolCalls.length > 0),
    ...(stopReason === undefined ? {} : { rawFinishReason: stopReason }),
    usage: mapUsage(message.usage),
    adjustments: [...context.adjustments, ...checked],
    ...(typeof message.id === 'string' ? { responseId: message.id } : {}),
    ...(context.includeRawResponse ? { rawResponse: message } : {}),
  };
}
