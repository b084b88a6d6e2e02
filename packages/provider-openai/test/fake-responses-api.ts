import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FakeReasoningMemory, IssuedItem } from './fake-reasoning-memory.js';
import {
  finishOf,
  interleave,
  pieces,
  type RenderedReply,
  reasoningOfReply,
  type ToolCallOrder,
  writeError,
} from './fake-replies.js';

type AnswerReply = Extract<RenderedReply, { type: 'response' }>;

/**
 * The output items of an answer: reasoning first, then the message, then the function calls, as OpenAI orders them.
 * A reasoning item carries its `encrypted_content` always: "populated by default for reasoning items returned by
 * `POST /v1/responses`" (the SDK's `ResponseReasoningItem`).
 */
function outputItems(reply: RenderedReply, n: number): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = reasoningOfReply(reply).map((reasoning) => ({
    type: 'reasoning',
    id: reasoning.id,
    summary: reasoning.text === '' ? [] : [{ type: 'summary_text', text: reasoning.text }],
    encrypted_content: reasoning.encryptedContent,
  }));
  const text = reply.type === 'error' ? '' : (reply.text ?? '');
  if (text !== '') {
    items.push({
      type: 'message',
      id: `msg_fake_${n}`,
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text, annotations: [] }],
    });
  }
  if (reply.type === 'response') {
    (reply.toolCalls ?? []).forEach((call, index) => {
      items.push({
        type: 'function_call',
        id: `fc_fake_${n}_${index}`,
        call_id: call.id,
        name: call.toolName,
        arguments: call.arguments,
        status: 'completed',
      });
    });
  }
  return items;
}

function issuedItems(items: readonly Record<string, unknown>[]): IssuedItem[] {
  return items.map((item): IssuedItem => {
    const id = String(item.id);
    if (item.type === 'reasoning')
      return { type: 'reasoning', id, encryptedContent: String(item.encrypted_content) };
    if (item.type === 'function_call') return { type: 'function_call', id, callId: String(item.call_id) };
    return { type: 'message', id };
  });
}

function responseObject(
  reply: AnswerReply,
  body: Record<string, unknown>,
  n: number,
): Record<string, unknown> {
  const finish = finishOf(reply);
  const reasoningTokens = 'reasoningTokens' in reply ? (reply.reasoningTokens ?? 0) : 0;
  return {
    id: `resp_fake_${n}`,
    object: 'response',
    created_at: 1_770_000_000,
    status: finish === 'length' || finish === 'content-filter' ? 'incomplete' : 'completed',
    incomplete_details:
      finish === 'length'
        ? { reason: 'max_output_tokens' }
        : finish === 'content-filter'
          ? { reason: 'content_filter' }
          : null,
    error: null,
    model: String(body.model),
    output: outputItems(reply, n),
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    usage: {
      input_tokens: reply.usage?.inputTokens ?? 0,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: reply.usage?.outputTokens ?? 0,
      output_tokens_details: { reasoning_tokens: reasoningTokens },
      total_tokens: (reply.usage?.inputTokens ?? 0) + (reply.usage?.outputTokens ?? 0),
    },
  };
}

/** Answers a Responses API request with a scripted reply, as JSON or as SSE events, and remembers its reasoning. */
export function renderResponses(
  reply: RenderedReply,
  body: Record<string, unknown>,
  response: ServerResponse,
  socket: Socket,
  n: number,
  memory: FakeReasoningMemory,
  toolCallOrder: ToolCallOrder = 'interleaved',
): void {
  if (reply.type === 'error') {
    writeError(response, reply);
    return;
  }
  const items = outputItems(reply, n);
  if (reply.type === 'response') memory.remember(issuedItems(items), body.store !== false);
  if (body.stream !== true) {
    if (reply.type !== 'response') {
      if (reply.type === 'disconnect') socket.destroy();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(responseObject(reply, body, n)));
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  let sequence = 0;
  const send = (event: Record<string, unknown>): void => {
    response.write(
      `event: ${String(event.type)}\ndata: ${JSON.stringify({ ...event, sequence_number: sequence++ })}\n\n`,
    );
  };
  send({
    type: 'response.created',
    response: { id: `resp_fake_${n}`, object: 'response', status: 'in_progress', output: [] },
  });
  const reasoningItems = items.filter((item) => item.type === 'reasoning');
  for (const [outputIndex, item] of reasoningItems.entries()) streamReasoning(send, item, outputIndex);
  const text = reply.text ?? '';
  const messageIndex = reasoningItems.length;
  const messageId = `msg_fake_${n}`;
  if (text !== '') {
    send({
      type: 'response.output_item.added',
      output_index: messageIndex,
      item: { type: 'message', id: messageId, status: 'in_progress', role: 'assistant', content: [] },
    });
    for (const piece of pieces(text, 4)) {
      send({
        type: 'response.output_text.delta',
        item_id: messageId,
        output_index: messageIndex,
        content_index: 0,
        delta: piece,
        logprobs: [],
      });
    }
  }
  if (reply.type === 'stall') return;
  const offset = messageIndex + (text === '' ? 0 : 1);
  if (reply.type === 'disconnect') {
    const partial = reply.partialToolCall;
    if (partial) {
      const item = {
        type: 'function_call',
        id: 'fc_cut',
        call_id: partial.id,
        name: partial.toolName,
        arguments: '',
        status: 'in_progress',
      };
      send({ type: 'response.output_item.added', output_index: offset, item });
      send({
        type: 'response.function_call_arguments.delta',
        item_id: 'fc_cut',
        output_index: offset,
        delta: partial.partialArguments,
      });
    }
    response.write('', () => socket.destroy());
    return;
  }
  if (text !== '') {
    send({
      type: 'response.output_text.done',
      item_id: messageId,
      output_index: messageIndex,
      content_index: 0,
      text,
      logprobs: [],
    });
    send({
      type: 'response.output_item.done',
      output_index: messageIndex,
      item: items.find((item) => item.type === 'message'),
    });
  }
  const calls = items.filter((item) => item.type === 'function_call');
  const added = calls.map((item, index) => ({
    type: 'response.output_item.added',
    output_index: offset + index,
    item: { ...item, arguments: '', status: 'in_progress' },
  }));
  const deltas = calls.map((item, index) =>
    pieces(String(item.arguments), 5).map((piece) => ({
      type: 'response.function_call_arguments.delta',
      item_id: item.id,
      output_index: offset + index,
      delta: piece,
    })),
  );
  const done = calls.map((item, index) => [
    {
      type: 'response.function_call_arguments.done',
      item_id: item.id,
      output_index: offset + index,
      arguments: item.arguments,
    },
    { type: 'response.output_item.done', output_index: offset + index, item },
  ]);
  const events =
    toolCallOrder === 'sequential'
      ? added.flatMap((event, index) => [event, ...(deltas[index] ?? []), ...(done[index] ?? [])])
      : [...added, ...interleave(deltas), ...done.flat()];
  for (const event of events) send(event);
  const final = responseObject(reply, body, n);
  send({
    type: final.status === 'incomplete' ? 'response.incomplete' : 'response.completed',
    response: final,
  });
  response.end();
}

/** A reasoning item's events: added, each summary part with its text deltas, done (with the encrypted content). */
function streamReasoning(
  send: (event: Record<string, unknown>) => void,
  item: Record<string, unknown>,
  outputIndex: number,
): void {
  const itemId = item.id;
  send({
    type: 'response.output_item.added',
    output_index: outputIndex,
    item: { type: 'reasoning', id: itemId, summary: [] },
  });
  const summary = item.summary as { type: 'summary_text'; text: string }[];
  summary.forEach((part, summaryIndex) => {
    const base = { item_id: itemId, output_index: outputIndex, summary_index: summaryIndex };
    send({
      type: 'response.reasoning_summary_part.added',
      ...base,
      part: { type: 'summary_text', text: '' },
    });
    for (const piece of pieces(part.text, 6))
      send({ type: 'response.reasoning_summary_text.delta', ...base, delta: piece });
    send({ type: 'response.reasoning_summary_text.done', ...base, text: part.text });
    send({ type: 'response.reasoning_summary_part.done', ...base, part });
  });
  send({ type: 'response.output_item.done', output_index: outputIndex, item });
}
