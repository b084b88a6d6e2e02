import type { ContentPart as AgUiContentPart, Message as AgUiMessage } from '@ag-ui/core';
import {
  assertToolCallPairing,
  type ContentPart,
  InvalidMessageHistoryError,
  type Message,
  type MessageContent,
  type ToolCall,
} from '@org/core';
import { AgUiRequestError } from './errors.js';
import { frontEndResultContent } from './front-end-tools.js';

/** The conversation of a run input, as the agent loop reads it, with the AG-UI id of each message kept beside it. */
export interface InputConversation {
  readonly messages: readonly Message[];
  /** `messages[i]`'s AG-UI id, so the snapshot at the end of the run keeps the front end's ids. */
  readonly messageIds: readonly string[];
}

/** What the conversation of a run input is read with. */
export interface InputConversationOptions {
  /**
   * The tools the front end declared in this input: a tool message after the conversation's last assistant message
   * that answers one of their calls is the front end's result of that call, arriving now.
   */
  readonly frontEndToolNames: ReadonlySet<string>;
  /** The agent's `outputBudgetBytes` (default 50 000): a front-end tool's result is cut to it, like any tool's. */
  readonly outputBudgetBytes: number | undefined;
}

/**
 * Turns the AG-UI messages of a run input into the loop's conversation. `developer` and `system` become system
 * messages, `user`, `assistant` and `tool` map one to one. `activity` and `reasoning` messages are the front end's
 * display of earlier runs (the AG-UI client keeps them in its list; the protocol has no way to send reasoning back to
 * a provider), so they are left out of the conversation, by rule rather than by accident. Refused with
 * `AgUiRequestError`: a media part the loop cannot carry (audio, video, a provider file handle), a tool result whose
 * `toolCallId` no assistant message made (a forged id, `problem: 'tool-result'`), a call answered twice, a call left
 * without its result. A front-end tool's result arriving in this input (after the last assistant message) is made
 * what the model reads of any tool's result (`frontEndResultContent`: cut to the output budget, secrets redacted, a
 * failure as an error); earlier ones are the conversation as the messages snapshot gave it back, already made so.
 */
export function toInputConversation(
  input: readonly AgUiMessage[],
  options: InputConversationOptions,
): InputConversation {
  const messages: Message[] = [];
  const messageIds: string[] = [];
  const inputIndexes: number[] = [];
  // Tool names of the calls made so far, by id: a Map, so an id like `__proto__` is an ordinary key.
  const callNames = new Map<string, string>();
  const lastAssistant = input.findLastIndex((message) => message.role === 'assistant');
  input.forEach((message, index) => {
    const converted = convertMessage(message, index, callNames, index > lastAssistant ? options : undefined);
    if (converted === undefined) return;
    messages.push(converted);
    messageIds.push(message.id);
    inputIndexes.push(index);
  });
  try {
    assertToolCallPairing(messages);
  } catch (error) {
    if (!InvalidMessageHistoryError.isInstance(error)) throw error;
    // Core counts the converted messages; the front end counts its own (display-only ones included).
    const inputIndex = inputIndexes[error.messageIndex ?? -1];
    const answered = messages[error.messageIndex ?? -1]?.role === 'tool';
    throw new AgUiRequestError({
      problem: answered ? 'tool-result' : 'messages',
      message: `The run input's messages cannot be continued: ${error.message.replace(/message (\d+)/g, (_, at: string) => `message ${inputIndexes[Number(at)] ?? at}`)}`,
      ...(inputIndex === undefined ? {} : { field: `messages[${inputIndex}]` }),
      cause: error,
    });
  }
  return { messages, messageIds };
}

function convertMessage(
  message: AgUiMessage,
  index: number,
  callNames: Map<string, string>,
  /** Given for the messages after the last assistant message: the results arriving in this input. */
  arriving: InputConversationOptions | undefined,
): Message | undefined {
  const field = `messages[${index}]`;
  switch (message.role) {
    case 'developer':
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return { role: 'user', content: convertContent(message.content, field) };
    case 'assistant': {
      const toolCalls: ToolCall[] = (message.toolCalls ?? []).map((call) => {
        callNames.set(call.id, call.function.name);
        return { id: call.id, toolName: call.function.name, arguments: call.function.arguments };
      });
      return {
        role: 'assistant',
        content: message.content ?? '',
        ...(toolCalls.length > 0 ? { toolCalls } : {}),
      };
    }
    case 'tool': {
      const toolName = callNames.get(message.toolCallId);
      if (toolName === undefined) {
        throw new AgUiRequestError({
          problem: 'tool-result',
          message:
            `Tool result ${JSON.stringify(message.id.slice(0, 100))} answers tool call ` +
            `${JSON.stringify(message.toolCallId.slice(0, 100))}, which no assistant message before it made.`,
          field: `${field}.toolCallId`,
        });
      }
      // A failure's content is not read: the error is the result.
      const content = message.error !== undefined ? '' : convertContent(message.content, field);
      if (arriving?.frontEndToolNames.has(toolName) === true) {
        const result = frontEndResultContent(
          { toolCallId: message.toolCallId, toolName, content, error: message.error },
          arriving.outputBudgetBytes,
        );
        return {
          role: 'tool',
          toolCallId: message.toolCallId,
          toolName,
          content: result.content,
          ...(result.isError ? { isError: true } : {}),
        };
      }
      return {
        role: 'tool',
        toolCallId: message.toolCallId,
        toolName,
        ...(message.error !== undefined ? { content: message.error, isError: true } : { content }),
      };
    }
    case 'activity':
    case 'reasoning':
      return undefined;
    default: {
      const role: unknown = (message as { role?: unknown }).role;
      throw new AgUiRequestError({
        problem: 'messages',
        message: `Message ${index} has the unknown role ${JSON.stringify(String(role).slice(0, 50))}.`,
        field: `${field}.role`,
      });
    }
  }
}

function convertContent(content: string | readonly AgUiContentPart[], field: string): MessageContent {
  if (typeof content === 'string') return content;
  return content.map((part, partIndex): ContentPart => {
    const at = `${field}.content[${partIndex}]`;
    if (part.type === 'text') return { type: 'text', text: part.text };
    if (part.type === 'image' || part.type === 'document') {
      const kind = part.type === 'image' ? 'image' : 'file';
      const source = part.source;
      if (source.type === 'data') return { type: kind, mediaType: source.mimeType, data: source.value };
      if (source.type === 'url') {
        if (kind === 'image') {
          return {
            type: 'image',
            url: source.value,
            ...(source.mimeType === undefined ? {} : { mediaType: source.mimeType }),
          };
        }
        if (source.mimeType !== undefined)
          return { type: 'file', url: source.value, mediaType: source.mimeType };
        throw new AgUiRequestError({
          problem: 'messages',
          message: `A document given by URL needs its mimeType (${at}.source.mimeType).`,
          field: `${at}.source.mimeType`,
        });
      }
    }
    throw new AgUiRequestError({
      problem: 'messages',
      message:
        `Content part ${at} (${part.type}${'source' in part ? `, ${part.source.type} source` : ''}) cannot be sent ` +
        'to a model: text, images and documents (inline data or a URL) can.',
      field: at,
    });
  });
}
