import type { ContentPart as AgUiContentPart, Message as AgUiMessage } from '@ag-ui/core';
import type { Message, MessageContent } from '@org/core';
import { toolResultMessageId } from './event-mapper.js';

/** A message of the run input that is part of the conversation, with the role the loop gives it. */
export interface SnapshotInputMessage {
  readonly role: Message['role'];
  readonly id: string;
  readonly message: AgUiMessage;
}

/** The run input's conversational messages (`developer` read as `system`; display-only roles left out). */
export function snapshotInputOf(messages: readonly AgUiMessage[]): SnapshotInputMessage[] {
  const kept: SnapshotInputMessage[] = [];
  for (const message of messages) {
    if (message.role === 'activity' || message.role === 'reasoning') continue;
    kept.push({ role: message.role === 'developer' ? 'system' : message.role, id: message.id, message });
  }
  return kept;
}

/** Where the ids of the snapshot's messages come from. */
export interface SnapshotIds {
  /** The run input's messages that reached the conversation, in order, with their AG-UI ids. */
  readonly input: readonly SnapshotInputMessage[];
  /** The assistant message a call was streamed in (`AgUiEventMapper.parentMessageIdOf`). */
  readonly parentMessageIdOf: (toolCallId: string) => string | undefined;
  /** The last streamed text message, the final answer's id. */
  readonly lastTextMessageId: string | undefined;
  /** The index of the conversation's last message. */
  readonly lastIndex: number;
  /** Ids for messages nothing else names. */
  readonly prefix: string;
  /** Front-end calls waiting for the front end: their placeholder results are not part of the snapshot. */
  readonly awaitingFrontEnd: ReadonlySet<string>;
}

/**
 * The run's conversation as AG-UI messages, for the `MESSAGES_SNAPSHOT` that ends a run: the front end's own
 * messages keep their ids (and leading system messages, which the loop moves into its prompt, are kept as sent);
 * new messages take the ids they were streamed with, so the snapshot replaces the streamed messages in place.
 */
export function toSnapshotMessages(messages: readonly Message[], ids: SnapshotIds): AgUiMessage[] {
  const snapshot: AgUiMessage[] = [];
  let input = ids.input;
  // The loop returns the conversation without the system prompt its leading system messages joined.
  if (messages[0]?.role !== 'system') {
    while (input[0] !== undefined && input[0].role === 'system') {
      snapshot.push(input[0].message);
      input = input.slice(1);
    }
  }
  messages.forEach((message, index) => {
    const known = input[index];
    const id =
      known !== undefined && known.role === message.role ? known.id : newMessageId(message, index, ids);
    switch (message.role) {
      case 'system':
        snapshot.push({ id, role: 'system', content: message.content });
        break;
      case 'user':
        snapshot.push({ id, role: 'user', content: toAgUiContent(message.content) });
        break;
      case 'assistant':
        snapshot.push({
          id,
          role: 'assistant',
          ...(message.content === '' ? {} : { content: message.content }),
          ...(message.toolCalls === undefined || message.toolCalls.length === 0
            ? {}
            : {
                toolCalls: message.toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function' as const,
                  function: { name: call.toolName, arguments: call.arguments },
                })),
              }),
        });
        break;
      case 'tool':
        if (ids.awaitingFrontEnd.has(message.toolCallId)) break;
        snapshot.push({
          id,
          role: 'tool',
          toolCallId: message.toolCallId,
          content: toAgUiContent(message.content),
          ...(message.isError === true ? { error: contentAsText(message.content) } : {}),
        });
        break;
    }
  });
  return snapshot;
}

function newMessageId(message: Message, index: number, ids: SnapshotIds): string {
  if (message.role === 'tool') return toolResultMessageId(message.toolCallId);
  if (message.role === 'assistant') {
    const firstCall = message.toolCalls?.[0];
    // A text-only answer was streamed under the last text id only when it is the run's last message (the final
    // answer); earlier text-only turns (ReAct decisions) get their own ids.
    const streamed =
      firstCall !== undefined
        ? ids.parentMessageIdOf(firstCall.id)
        : index === ids.lastIndex
          ? ids.lastTextMessageId
          : undefined;
    if (streamed !== undefined) return streamed;
  }
  return `${ids.prefix}/snapshot-${index}`;
}

function contentAsText(content: MessageContent): string {
  return typeof content === 'string'
    ? content
    : content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');
}

function toAgUiContent(content: MessageContent): string | AgUiContentPart[] {
  if (typeof content === 'string') return content;
  return content.map((part): AgUiContentPart => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    const type = part.type === 'image' ? 'image' : 'document';
    if (part.data !== undefined) {
      return { type, source: { type: 'data', value: part.data, mimeType: part.mediaType } };
    }
    return {
      type,
      source: {
        type: 'url',
        value: part.url,
        ...(part.mediaType === undefined ? {} : { mimeType: part.mediaType }),
      },
    };
  });
}
