import type {
  Message as BedrockMessage,
  ContentBlock,
  SystemContentBlock,
  ToolUseBlock,
} from '@aws-sdk/client-bedrock-runtime';
import { type Adjustment, type Message, readStrictJson, type ToolPropertyNames } from '@org/core';
import type { ToolNameMap } from './tool-names.js';

/**
 * What to do with the tool blocks of the history:
 * - `native`: `toolUse` / `toolResult` blocks (needs a `toolConfig` on the request);
 * - `as-text`: each call and result written as a text block;
 * - `drop`: removed.
 */
export type ToolHistoryMode = 'native' | 'as-text' | 'drop';

/** The Converse form of a conversation. */
export interface ConvertedMessages {
  readonly system: SystemContentBlock[];
  readonly messages: BedrockMessage[];
  /** Every change beyond the one-to-one mapping (merged turns, moved system messages, rewritten tool blocks). */
  readonly adjustments: Adjustment[];
  /** Whether the history holds tool calls or results (Converse then requires a `toolConfig`). */
  readonly hasToolBlocks: boolean;
}

type Role = 'user' | 'assistant';

interface Turn {
  role: Role;
  content: ContentBlock[];
  /** Indexes of the core messages this turn came from. */
  sources: number[];
  /** The core role of the last message merged in (`tool` results share the `user` turn). */
  lastCoreRole: Message['role'];
  /**
   * Two messages of the same core role (user + user, assistant + assistant) were merged. Tool results merged with
   * each other or with the user message after them are the ordinary Converse shape and not reported.
   */
  mergedSameRole: boolean;
}

/**
 * Converts core messages to Converse `system` blocks and alternating `user` / `assistant` messages:
 * system messages become system blocks; a tool message becomes a `toolResult` block in a user turn (`status:
 * 'error'` when `isError`); consecutive turns of one role are merged, as Converse requires. The caller checks tool
 * call pairing first (`assertToolCallPairing`).
 *
 * @example
 * const { system, messages } = convertMessages(request.messages, { names, toolHistory: 'native' });
 */
export function convertMessages(
  input: readonly Message[],
  options: { names: ToolNameMap; toolHistory: ToolHistoryMode; propertyNames?: ToolPropertyNames },
): ConvertedMessages {
  const system: SystemContentBlock[] = [];
  const turns: Turn[] = [];
  const adjustments: Adjustment[] = [];
  const movedSystem: number[] = [];
  const unparsableArguments: { toolCallId: string; toolName: string; arguments: string }[] = [];
  let hasToolBlocks = false;
  let rewrittenToolBlocks = 0;
  let seenConversation = false;

  const push = (role: Role, content: ContentBlock[], index: number, coreRole: Message['role']): void => {
    if (content.length === 0) return;
    const last = turns.at(-1);
    if (last !== undefined && last.role === role) {
      last.content.push(...content);
      last.sources.push(index);
      if (coreRole !== 'tool' && coreRole === last.lastCoreRole) last.mergedSameRole = true;
      last.lastCoreRole = coreRole;
      return;
    }
    turns.push({ role, content, sources: [index], lastCoreRole: coreRole, mergedSameRole: false });
  };

  input.forEach((message, index) => {
    switch (message.role) {
      case 'system':
        system.push({ text: message.content });
        if (seenConversation) movedSystem.push(index);
        return;
      case 'user':
        seenConversation = true;
        push('user', [{ text: message.content }], index, 'user');
        return;
      case 'assistant': {
        seenConversation = true;
        const content: ContentBlock[] = message.content === '' ? [] : [{ text: message.content }];
        for (const call of message.toolCalls ?? []) {
          hasToolBlocks = true;
          if (options.toolHistory === 'drop') {
            rewrittenToolBlocks++;
          } else if (options.toolHistory === 'as-text') {
            rewrittenToolBlocks++;
            content.push({ text: `[Tool call ${call.id}: ${call.toolName}(${call.arguments})]` });
          } else {
            // Property names sent renamed are renamed in earlier calls too, to match the schema the model sees.
            const input = parseArgumentsObject(
              options.propertyNames?.argumentsToWire(call.toolName, call.arguments) ?? call.arguments,
            );
            if (input === undefined) {
              unparsableArguments.push({
                toolCallId: call.id,
                toolName: call.toolName,
                arguments: call.arguments,
              });
            }
            content.push({
              toolUse: {
                toolUseId: call.id,
                name: options.names.toWire(call.toolName),
                input: (input ?? {}) as ToolUseBlock['input'],
              },
            });
          }
        }
        // An assistant turn that held only dropped calls disappears; one with nothing at all is kept for Bedrock
        // to judge (it rejects empty content with its own message).
        if (content.length === 0 && (message.toolCalls ?? []).length === 0) content.push({ text: '' });
        push('assistant', content, index, 'assistant');
        return;
      }
      case 'tool': {
        seenConversation = true;
        hasToolBlocks = true;
        if (options.toolHistory === 'drop') {
          rewrittenToolBlocks++;
          return;
        }
        if (options.toolHistory === 'as-text') {
          rewrittenToolBlocks++;
          push(
            'user',
            [
              {
                text: `[Tool result for ${message.toolCallId} (${message.toolName})${message.isError ? ', failed' : ''}: ${message.content}]`,
              },
            ],
            index,
            'tool',
          );
          return;
        }
        push(
          'user',
          [
            {
              toolResult: {
                toolUseId: message.toolCallId,
                content: [{ text: message.content }],
                ...(message.isError ? { status: 'error' as const } : {}),
              },
            },
          ],
          index,
          'tool',
        );
        return;
      }
    }
  });

  const merged = turns.filter((turn) => turn.mergedSameRole);
  if (merged.length > 0) {
    adjustments.push({
      kind: 'history-rewritten',
      message:
        'Converse requires user and assistant turns to alternate; consecutive messages of one role were merged ' +
        `into one turn (messages ${merged.map((turn) => turn.sources.join('+')).join(', ')}).`,
      details: { mergedMessageIndexes: merged.map((turn) => [...turn.sources]) },
    });
  }
  if (movedSystem.length > 0) {
    adjustments.push({
      kind: 'history-rewritten',
      message:
        `Converse takes system content only before the conversation; system message(s) ${movedSystem.join(', ')} ` +
        'were sent as system blocks, after the earlier ones.',
      details: { movedSystemMessageIndexes: movedSystem },
    });
  }
  if (unparsableArguments.length > 0) {
    adjustments.push({
      kind: 'history-rewritten',
      message:
        'Converse needs a JSON object as toolUse.input; the arguments of ' +
        `${unparsableArguments.map((call) => `'${call.toolCallId}' (${call.toolName})`).join(', ')} were not one ` +
        'and were sent as {} (the raw text is in details; the tool result tells the model what went wrong).',
      details: { calls: unparsableArguments },
    });
  }
  if (rewrittenToolBlocks > 0) {
    adjustments.push({
      kind: 'history-rewritten',
      message:
        options.toolHistory === 'drop'
          ? `${rewrittenToolBlocks} tool call/result block(s) were removed from the history.`
          : `${rewrittenToolBlocks} tool call/result block(s) of the history were written as text blocks.`,
      details: { mode: options.toolHistory, blocks: rewrittenToolBlocks },
    });
  }

  return {
    system,
    messages: turns.map((turn) => ({ role: turn.role, content: turn.content })),
    adjustments,
    hasToolBlocks,
  };
}

/** The arguments as a JSON object (`''` counts as `{}`, what Bedrock sends for a call without input). */
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
