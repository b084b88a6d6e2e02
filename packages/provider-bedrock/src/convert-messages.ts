import type {
  Message as BedrockMessage,
  ContentBlock,
  SystemContentBlock,
  ToolUseBlock,
} from '@aws-sdk/client-bedrock-runtime';
import {
  type Adjustment,
  type Message,
  type MessageContent,
  type ReasoningPart,
  readStrictJson,
  type ToolPropertyNames,
} from '@org/core';
import { convertContentParts, type WirePart } from './convert-content-parts.js';
import { createDocumentNamer } from './document-names.js';
import { BEDROCK_PROVIDER } from './map-error.js';
import { reasoningBlockOf } from './reasoning-blocks.js';
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
  /**
   * Every change beyond the one-to-one mapping (merged turns, moved system messages, rewritten tool blocks, document
   * names, reasoning of another provider dropped).
   */
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
 * system messages become system blocks; user content parts become text, `image` and `document` blocks
 * (`convertContentParts`); an assistant message becomes its Bedrock reasoning (`reasoningContent` blocks, first,
 * unmodified), then its text and `toolUse` blocks; a tool message becomes a `toolResult` block in a user turn (its
 * parts as the result's content, `status: 'error'` when `isError`); consecutive turns of one role are merged, as
 * Converse requires. Reasoning another provider produced is never sent (not even as text): it is dropped and
 * reported. The caller checks tool call pairing first (`assertToolCallPairing`).
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
  const foreignReasoning: { messageIndex: number; provider: string; parts: number }[] = [];
  const documentNames = createDocumentNamer();
  const parts = (content: MessageContent, messageIndex: number): WirePart[] =>
    convertContentParts(content, { messageIndex, documentNames });
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
        push('user', parts(message.content, index), index, 'user');
        return;
      case 'assistant': {
        seenConversation = true;
        const content: ContentBlock[] = ownReasoning(message.reasoning, index, foreignReasoning).map((part) =>
          reasoningBlockOf(part, index),
        );
        if (message.content !== '') content.push({ text: message.content });
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
        const result = parts(message.content, index);
        if (options.toolHistory === 'as-text') {
          rewrittenToolBlocks++;
          // The result's text in one block; its images and documents follow it as they are (a user turn takes them).
          const text = result.flatMap((part) => ('text' in part ? [part.text] : [])).join('\n');
          const media = result.filter((part) => !('text' in part));
          push(
            'user',
            [
              {
                text: `[Tool result for ${message.toolCallId} (${message.toolName})${message.isError ? ', failed' : ''}: ${text}]`,
              },
              ...media,
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
                content: result,
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
  if (foreignReasoning.length > 0) {
    adjustments.push({
      kind: 'history-rewritten',
      message:
        'Reasoning produced by another provider cannot be sent to Bedrock (its signatures and encrypted data are ' +
        'only valid there, and reasoning is never sent as text); it was left out of ' +
        `${foreignReasoning.map((entry) => `message ${entry.messageIndex} (${entry.parts} part(s) from ${entry.provider})`).join(', ')}.`,
      details: { reason: 'foreign-reasoning-dropped', messages: foreignReasoning },
    });
  }
  const renamedDocuments = documentNames.adjustment();
  if (renamedDocuments !== undefined) adjustments.push(renamedDocuments);
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

/**
 * The reasoning parts of an assistant message that Bedrock produced, in order; those of other providers are counted
 * into `dropped` (one entry per provider).
 */
function ownReasoning(
  reasoning: readonly ReasoningPart[] | undefined,
  messageIndex: number,
  dropped: { messageIndex: number; provider: string; parts: number }[],
): ReasoningPart[] {
  const own: ReasoningPart[] = [];
  const foreign = new Map<string, number>();
  for (const part of reasoning ?? []) {
    if (part.provider === BEDROCK_PROVIDER) own.push(part);
    else foreign.set(part.provider, (foreign.get(part.provider) ?? 0) + 1);
  }
  for (const [provider, parts] of foreign) dropped.push({ messageIndex, provider, parts });
  return own;
}

/** Deepest nesting read from a call's arguments: the tools' default limit. */
const STRICT_JSON_MAX_DEPTH = 64;

/** The arguments as a JSON object (`''` counts as `{}`, what Bedrock sends for a call without input). */
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
