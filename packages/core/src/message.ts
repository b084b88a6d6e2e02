import { InvalidMessageHistoryError } from './errors.js';
import type { ToolCall } from './tool-call.js';

/** Instructions for the model. */
export interface SystemMessage {
  readonly role: 'system';
  readonly content: string;
}

/** What the user said. */
export interface UserMessage {
  readonly role: 'user';
  readonly content: string;
}

/** What the model said: text, tool calls, or both. */
export interface AssistantMessage {
  readonly role: 'assistant';
  readonly content: string;
  readonly toolCalls?: readonly ToolCall[];
}

/** The result of one tool call, answering the assistant's call with the same id. */
export interface ToolMessage {
  readonly role: 'tool';
  readonly toolCallId: string;
  readonly toolName: string;
  readonly content: string;
  /** The tool failed (or was refused); providers mark such results (`is_error`, `status: 'error'`). */
  readonly isError?: boolean;
}

/** One message of a conversation, discriminated by `role`. */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** The roles a message can have. */
export type MessageRole = Message['role'];

/**
 * Checks the invariant every provider enforces on tool use, before anything is sent: each assistant tool call has
 * exactly one tool result, results come after their call and before the next assistant turn, and no result
 * answers an unknown call. Throws `InvalidMessageHistoryError` naming the message and the call.
 *
 * @example
 * assertToolCallPairing(request.messages); // in an adapter, before building the wire request
 */
export function assertToolCallPairing(messages: readonly Message[]): void {
  // Calls of the latest assistant turn that still wait for their result.
  let pending = new Map<string, { toolName: string; messageIndex: number }>();
  const answered = new Set<string>();

  const failOnPending = (atIndex: number): void => {
    const [toolCallId, call] = pending.entries().next().value ?? [];
    if (toolCallId === undefined || call === undefined) return;
    throw new InvalidMessageHistoryError({
      message:
        `Tool call '${toolCallId}' (${call.toolName}) in message ${call.messageIndex} has no tool result` +
        (atIndex < messages.length ? ` before message ${atIndex}` : '') +
        `. Every tool call must be answered by exactly one tool message.`,
      messageIndex: call.messageIndex,
      toolCallId,
    });
  };

  messages.forEach((message, index) => {
    if (message.role === 'tool') {
      if (answered.has(message.toolCallId)) {
        throw new InvalidMessageHistoryError({
          message: `Tool call '${message.toolCallId}' is answered more than once (again at message ${index}).`,
          messageIndex: index,
          toolCallId: message.toolCallId,
        });
      }
      if (!pending.has(message.toolCallId)) {
        throw new InvalidMessageHistoryError({
          message: `Tool message ${index} answers '${message.toolCallId}', which is not a call of the preceding assistant turn.`,
          messageIndex: index,
          toolCallId: message.toolCallId,
        });
      }
      pending.delete(message.toolCallId);
      answered.add(message.toolCallId);
      return;
    }
    failOnPending(index);
    if (message.role === 'assistant') {
      pending = new Map();
      for (const call of message.toolCalls ?? []) {
        if (pending.has(call.id) || answered.has(call.id)) {
          throw new InvalidMessageHistoryError({
            message: `Tool call id '${call.id}' is used twice (message ${index}); tool call ids must be unique.`,
            messageIndex: index,
            toolCallId: call.id,
          });
        }
        pending.set(call.id, { toolName: call.toolName, messageIndex: index });
      }
    }
  });
  failOnPending(messages.length);
}
