import type {
  ContentBlockParam,
  MessageParam,
  TextBlockParam,
  ToolResultBlockParam,
  ToolUseBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import {
  type Adjustment,
  assertToolCallPairing,
  InvalidMessageHistoryError,
  type Message,
  type MessageContent,
  readStrictJson,
} from '@org/core';
import { type ContentPartBlock, convertContentParts } from './convert-content-parts.js';
import { convertReasoning, type ForeignReasoning, foreignReasoningAdjustment } from './convert-reasoning.js';
import type { PropertyNames } from './property-names.js';

/** The Anthropic form of a conversation: the system prompt apart, then alternating user and assistant turns. */
export interface ConvertedMessages {
  /** One text block per system message, in order; absent when there is none. */
  readonly system: TextBlockParam[] | undefined;
  readonly messages: MessageParam[];
  /** Every rewrite made to fit the API (merged turns, system messages moved, replaced arguments, foreign reasoning). */
  readonly adjustments: Adjustment[];
}

interface PendingTurn {
  role: 'user' | 'assistant';
  content: ContentBlockParam[];
  /** Indexes of the core messages that make up this turn. */
  sources: number[];
  /** Whether the turn so far holds only tool results (the normal shape of an answer to one assistant turn). */
  onlyToolResults: boolean;
}

/**
 * Converts core messages to the Messages API shape. Checks tool-call pairing first (`assertToolCallPairing`), so a
 * history the API would reject fails here with `InvalidMessageHistoryError` naming the message.
 *
 * - System messages become the top-level `system` blocks. One that appears after the conversation started is moved
 *   there too, which changes where the model sees it: reported as `history-rewritten`.
 * - User content and tool results are text or content parts; parts become `text`, `image` and `document` blocks
 *   (`convertContentParts`), in a `tool_result` too, which takes images and documents natively.
 * - Tool messages become `tool_result` blocks (with `is_error` for failed tools) in a user turn.
 * - An assistant message's `reasoning` goes first in its turn, as `thinking` / `redacted_thinking` blocks, then its
 *   text, then its tool calls (`convertReasoning`): the API wants the thinking of a tool-use turn back, signed and
 *   unmodified. Reasoning of another provider is left out and reported, never sent as text.
 * - Consecutive messages that land in the same role are merged into one turn, as the API requires alternating
 *   turns; merging anything beyond the tool results of one assistant turn is reported as `history-rewritten`.
 * - Tool-call arguments that are not a JSON object (a model's broken output, answered by an error result) are sent
 *   as `{}` and reported, because the API only accepts an object as `tool_use.input`.
 * - An assistant message with no text and no tool calls (a refusal, an empty answer) is left out, with any reasoning
 *   it had, and reported; an empty user message is an error, because the API rejects empty text.
 * - Arguments of calls to a tool whose property names are sent renamed (`options.propertyNames`) use the names
 *   sent, so the history matches the schema the model sees.
 */
export function convertMessages(
  messages: readonly Message[],
  options: { propertyNames?: PropertyNames } = {},
): ConvertedMessages {
  assertToolCallPairing(messages);

  const systemBlocks: TextBlockParam[] = [];
  const turns: PendingTurn[] = [];
  const movedSystemMessages: number[] = [];
  const droppedEmptyAssistant: number[] = [];
  const replacedArguments: { messageIndex: number; toolCallId: string; toolName: string }[] = [];
  const foreignReasoning: ForeignReasoning[] = [];
  let conversationStarted = false;

  const append = (
    role: 'user' | 'assistant',
    blocks: ContentBlockParam[],
    index: number,
    isToolResult: boolean,
  ): void => {
    const last = turns[turns.length - 1];
    if (last !== undefined && last.role === role) {
      last.content.push(...blocks);
      last.sources.push(index);
      last.onlyToolResults = last.onlyToolResults && isToolResult;
      return;
    }
    turns.push({ role, content: [...blocks], sources: [index], onlyToolResults: isToolResult });
  };

  messages.forEach((message, index) => {
    switch (message.role) {
      case 'system': {
        if (conversationStarted) movedSystemMessages.push(index);
        if (message.content !== '') systemBlocks.push({ type: 'text', text: message.content });
        return;
      }
      case 'user': {
        conversationStarted = true;
        const blocks = contentBlocks(message.content, { messageIndex: index, role: 'user' });
        if (blocks.length === 0) {
          throw new InvalidMessageHistoryError({
            message: `User message ${index} is empty; the Anthropic API rejects empty text. Remove it or give it content.`,
            messageIndex: index,
          });
        }
        append('user', blocks, index, false);
        return;
      }
      case 'assistant': {
        conversationStarted = true;
        const blocks: ContentBlockParam[] = [];
        if (message.content !== '') blocks.push({ type: 'text', text: message.content });
        for (const call of message.toolCalls ?? []) {
          const input = parseArgumentsObject(
            options.propertyNames?.argumentsToWire(call.toolName, call.arguments) ?? call.arguments,
          );
          if (input === undefined) {
            replacedArguments.push({ messageIndex: index, toolCallId: call.id, toolName: call.toolName });
          }
          const block: ToolUseBlockParam = {
            type: 'tool_use',
            id: call.id,
            name: call.toolName,
            input: input ?? {},
          };
          blocks.push(block);
        }
        if (blocks.length === 0) {
          droppedEmptyAssistant.push(index);
          return;
        }
        const reasoning = convertReasoning(message.reasoning, index);
        if (reasoning.foreign !== undefined) foreignReasoning.push(reasoning.foreign);
        // The SDK's ThinkingBlockParam requires a signature; an unsigned part is sent as it is (see convertReasoning).
        append('assistant', [...(reasoning.blocks as ContentBlockParam[]), ...blocks], index, false);
        return;
      }
      case 'tool': {
        conversationStarted = true;
        const content = contentBlocks(message.content, { messageIndex: index, role: 'tool' });
        const block: ToolResultBlockParam = {
          type: 'tool_result',
          tool_use_id: message.toolCallId,
          ...(content.length === 0 ? {} : { content: simplifyToolResult(content) }),
          ...(message.isError === true ? { is_error: true } : {}),
        };
        append('user', [block], index, true);
        return;
      }
    }
  });

  const adjustments: Adjustment[] = [];
  const merged = turns
    .filter((turn) => turn.sources.length > 1 && !turn.onlyToolResults)
    .map((turn) => turn.sources);
  if (merged.length > 0) {
    adjustments.push({
      kind: 'history-rewritten',
      message:
        `Merged consecutive messages of the same role into one turn (${merged
          .map((group) => `messages ${group.join(', ')}`)
          .join('; ')}), because the Anthropic API expects alternating user and assistant turns ` +
        `and tool results travel in the user turn.`,
      details: { reason: 'merged-consecutive-turns', mergedMessageIndexes: merged },
    });
  }
  if (movedSystemMessages.length > 0) {
    adjustments.push({
      kind: 'history-rewritten',
      message:
        `Moved system message(s) ${movedSystemMessages.join(', ')} from the middle of the conversation into the ` +
        `top-level system prompt, the only place the Anthropic Messages API takes instructions.`,
      details: { reason: 'system-message-moved', messageIndexes: movedSystemMessages },
    });
  }
  if (droppedEmptyAssistant.length > 0) {
    adjustments.push({
      kind: 'history-rewritten',
      message:
        `Left out assistant message(s) ${droppedEmptyAssistant.join(', ')}, which had no text and no tool calls ` +
        `(the Anthropic API rejects empty turns), with any reasoning they held.`,
      details: { reason: 'empty-assistant-message-dropped', messageIndexes: droppedEmptyAssistant },
    });
  }
  if (replacedArguments.length > 0) {
    adjustments.push({
      kind: 'history-rewritten',
      message:
        `Sent {} as the input of tool call(s) ${replacedArguments
          .map((call) => `'${call.toolCallId}' (${call.toolName})`)
          .join(', ')}, whose arguments were not a JSON object; the Anthropic API only accepts an object, ` +
        `and the tool result already tells the model what was wrong.`,
      details: { reason: 'tool-arguments-replaced', toolCalls: replacedArguments },
    });
  }

  const foreign = foreignReasoningAdjustment(foreignReasoning);
  if (foreign !== undefined) adjustments.push(foreign);

  return {
    system: systemBlocks.length > 0 ? systemBlocks : undefined,
    messages: turns.map((turn) => ({ role: turn.role, content: simplify(turn.content) })),
    adjustments,
  };
}

/** The blocks of a user message or a tool result: one text block for a string, converted parts otherwise. */
function contentBlocks(
  content: MessageContent,
  location: { messageIndex: number; role: 'user' | 'tool' },
): ContentPartBlock[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) {
    throw new InvalidMessageHistoryError({
      message: `The content of message ${location.messageIndex} is neither a string nor an array of content parts.`,
      messageIndex: location.messageIndex,
    });
  }
  return convertContentParts(content, location);
}

/** A single text block is sent as a plain string, the API's own shorthand, which keeps requests readable. */
function simplify(content: ContentBlockParam[]): string | ContentBlockParam[] {
  const [only] = content;
  if (content.length === 1 && only !== undefined && only.type === 'text') return only.text;
  return content;
}

/** The same shorthand inside a `tool_result`. */
function simplifyToolResult(content: ContentPartBlock[]): string | ContentPartBlock[] {
  const [only] = content;
  if (content.length === 1 && only !== undefined && only.type === 'text') return only.text;
  return content;
}

/** Deepest nesting read from a call's arguments: the tools' default limit. */
const STRICT_JSON_MAX_DEPTH = 64;

function parseArgumentsObject(text: string): Record<string, unknown> | undefined {
  if (text.trim() === '') return {};
  // Model text: the one strict reader of `@org/core`, as the tools read it. A key repeated with another value or an
  // integer a double cannot hold is never sent back rounded or "last wins"; the call's arguments are replaced (and
  // reported), and its tool result already told the model what was wrong.
  const read = readStrictJson(text, { maxDepth: STRICT_JSON_MAX_DEPTH });
  if (read.ok && typeof read.value === 'object' && read.value !== null && !Array.isArray(read.value)) {
    return read.value as Record<string, unknown>;
  }
  return undefined;
}
