import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FinishReason } from '@org/core';
import {
  finishOf,
  interleave,
  pieces,
  type Rejection,
  type RenderedReply,
  reasoningOfReply,
  type ToolCallOrder,
  writeError,
} from './fake-replies.js';

const CHAT_FINISH: Record<FinishReason, string> = {
  stop: 'stop',
  length: 'length',
  'tool-calls': 'tool_calls',
  'content-filter': 'content_filter',
  error: 'stop',
  other: 'stop',
};

/**
 * What OpenAI refuses in a Chat Completions request that the fake server checks: a tool message whose content holds
 * anything but text parts (`ChatCompletionToolMessageParam.content` is `string | ChatCompletionContentPartText[]`).
 */
export function chatRequestRejection(body: Record<string, unknown>): Rejection | undefined {
  const messages = Array.isArray(body.messages) ? (body.messages as Record<string, unknown>[]) : [];
  for (const [messageIndex, message] of messages.entries()) {
    if (message.role !== 'tool' || !Array.isArray(message.content)) continue;
    for (const [partIndex, part] of (message.content as Record<string, unknown>[]).entries()) {
      if (part.type !== 'text') {
        return {
          status: 400,
          message: `Invalid value: '${String(part.type)}'. Supported values are: 'text'.`,
          code: 'invalid_value',
          param: `messages[${messageIndex}].content[${partIndex}].type`,
        };
      }
    }
  }
  return undefined;
}

function usageOf(reply: RenderedReply): object {
  const usage = reply.type === 'response' ? reply.usage : undefined;
  const reasoningTokens = reply.type === 'response' && 'reasoningTokens' in reply ? reply.reasoningTokens : 0;
  return {
    prompt_tokens: usage?.inputTokens ?? 0,
    completion_tokens: usage?.outputTokens ?? 0,
    total_tokens: (usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0),
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: reasoningTokens ?? 0 },
  };
}

/** Answers a Chat Completions request with a scripted reply, as JSON or as SSE chunks. */
export function renderChat(
  reply: RenderedReply,
  body: Record<string, unknown>,
  response: ServerResponse,
  socket: Socket,
  n: number,
  toolCallOrder: ToolCallOrder = 'interleaved',
): void {
  if (reply.type === 'error') {
    writeError(response, reply);
    return;
  }
  const id = `chatcmpl-fake-${n}`;
  const model = String(body.model);
  const reasoningText = reasoningOfReply(reply)
    .map((reasoning) => reasoning.text)
    .filter((text) => text !== '')
    .join('\n\n');
  const chunk = (delta: object, finish: string | null = null, extra: object = {}): object => ({
    id,
    object: 'chat.completion.chunk',
    created: 1_770_000_000,
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...extra,
  });
  if (body.stream !== true) {
    if (reply.type !== 'response') {
      if (reply.type === 'disconnect') socket.destroy();
      return; // stall: never answer
    }
    const toolCalls = reply.toolCalls ?? [];
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        id,
        object: 'chat.completion',
        created: 1_770_000_000,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: reply.text ?? null,
              refusal: null,
              ...(reasoningText === '' ? {} : { reasoning_content: reasoningText }),
              ...(toolCalls.length > 0
                ? {
                    tool_calls: toolCalls.map((call) => ({
                      id: call.id,
                      type: 'function',
                      function: { name: call.toolName, arguments: call.arguments },
                    })),
                  }
                : {}),
            },
            logprobs: null,
            finish_reason: CHAT_FINISH[finishOf(reply)],
          },
        ],
        usage: usageOf(reply),
      }),
    );
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const send = (payload: object): void => {
    response.write(`data: ${JSON.stringify(payload)}\n\n`);
  };
  send(chunk({ role: 'assistant', content: '' }));
  for (const piece of pieces(reasoningText, 6)) send(chunk({ reasoning_content: piece }));
  for (const piece of pieces(reply.text ?? '', 4)) send(chunk({ content: piece }));
  if (reply.type === 'stall') return;
  if (reply.type === 'disconnect') {
    const partial = reply.partialToolCall;
    if (partial) {
      send(
        chunk({
          tool_calls: [
            {
              index: 0,
              id: partial.id,
              type: 'function',
              function: { name: partial.toolName, arguments: '' },
            },
          ],
        }),
      );
      send(chunk({ tool_calls: [{ index: 0, function: { arguments: partial.partialArguments } }] }));
    }
    response.write('', () => socket.destroy());
    return;
  }
  const toolCalls = reply.toolCalls ?? [];
  const starts = toolCalls.map((call, index) => ({
    index,
    id: call.id,
    type: 'function',
    function: { name: call.toolName, arguments: '' },
  }));
  const argumentChunks = toolCalls.map((call, index) =>
    pieces(call.arguments, 5).map((piece) => ({ index, function: { arguments: piece } })),
  );
  const order =
    toolCallOrder === 'sequential'
      ? starts.flatMap((start, index) => [start, ...(argumentChunks[index] ?? [])])
      : [...starts, ...interleave(argumentChunks)];
  for (const toolCall of order) send(chunk({ tool_calls: [toolCall] }));
  send(chunk({}, CHAT_FINISH[finishOf(reply)]));
  if ((body.stream_options as { include_usage?: boolean } | undefined)?.include_usage) {
    send({
      id,
      object: 'chat.completion.chunk',
      created: 1_770_000_000,
      model,
      choices: [],
      usage: usageOf(reply),
    });
  }
  response.end('data: [DONE]\n\n');
}
