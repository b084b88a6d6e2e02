import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { FinishReason, JsonSchema, ToolCall } from '@org/core';
import type { ScriptedReply, WireMessage, WireRequest, WireToolChoice } from '@org/provider-conformance';

/** A reply the test writes by hand, for faults the neutral replies do not cover. */
export interface RawReply {
  readonly type: 'raw';
  readonly handle: (context: {
    readonly request: IncomingMessage;
    readonly response: ServerResponse;
    readonly socket: Socket;
    readonly body: Record<string, unknown>;
  }) => void;
}

/** What the fake server can be told to answer. */
export type FakeReply = ScriptedReply | RawReply;

/** One request as the server received it. */
export interface ReceivedRequest {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, unknown>;
}

/** A local OpenAI: `/v1/chat/completions` and `/v1/responses`, JSON and SSE, on 127.0.0.1 and a free port. */
export interface FakeOpenAIServer {
  /** The base URL to give the SDK, ending in `/v1`. */
  readonly baseURL: string;
  enqueue(...replies: FakeReply[]): void;
  readonly received: ReceivedRequest[];
  /** The received requests projected to the conformance suite's neutral facts. */
  wireRequests(): WireRequest[];
  close(): Promise<void>;
}

// --------------------------------------------------------------------------------------------------------------
// Raw helpers for fault tests

/** Writes one SSE `data:` line per payload (objects are JSON-encoded, strings sent as they are). */
export function sseReply(
  payloads: readonly (string | object)[],
  options: { done?: boolean; destroy?: boolean; status?: number } = {},
): RawReply {
  return {
    type: 'raw',
    handle: ({ response, socket }) => {
      response.writeHead(options.status ?? 200, { 'content-type': 'text/event-stream' });
      for (const payload of payloads) {
        response.write(`data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`);
      }
      if (options.destroy) {
        response.write('', () => socket.destroy());
        return;
      }
      response.end(options.done === false ? '' : 'data: [DONE]\n\n');
    },
  };
}

/** Answers with a status, headers and a JSON body. */
export function jsonReply(
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): RawReply {
  return {
    type: 'raw',
    handle: ({ response }) => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(JSON.stringify(body));
    },
  };
}

/** Drops the connection before sending any header. */
export function resetBeforeHeaders(): RawReply {
  return { type: 'raw', handle: ({ socket }) => socket.destroy() };
}

/** An OpenAI error body. */
export function errorBody(
  message: string,
  code: string | null = null,
  type = 'invalid_request_error',
): object {
  return { error: { message, type, param: null, code } };
}

// --------------------------------------------------------------------------------------------------------------
// Rendering neutral replies

const CHAT_FINISH: Record<FinishReason, string> = {
  stop: 'stop',
  length: 'length',
  'tool-calls': 'tool_calls',
  'content-filter': 'content_filter',
  error: 'stop',
  other: 'stop',
};

const pieces = (text: string, size: number): string[] =>
  text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? [];

function finishOf(reply: { finishReason?: FinishReason; toolCalls?: readonly ToolCall[] }): FinishReason {
  return reply.finishReason ?? ((reply.toolCalls?.length ?? 0) > 0 ? 'tool-calls' : 'stop');
}

function writeError(response: ServerResponse, reply: Extract<ScriptedReply, { type: 'error' }>): void {
  const code =
    reply.reason === 'context-length-exceeded'
      ? 'context_length_exceeded'
      : reply.status === 429
        ? 'rate_limit_exceeded'
        : reply.status === 401
          ? 'invalid_api_key'
          : null;
  const type =
    reply.status >= 500 ? 'server_error' : reply.status === 429 ? 'requests' : 'invalid_request_error';
  response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
  response.end(JSON.stringify(errorBody(reply.message, code, type)));
}

/** Interleaves the argument pieces of several calls round-robin, as parallel calls arrive from OpenAI. */
function interleave<T>(lists: readonly (readonly T[])[]): T[] {
  const result: T[] = [];
  for (let round = 0; lists.some((list) => round < list.length); round++) {
    for (const list of lists) if (round < list.length) result.push(list[round] as T);
  }
  return result;
}

function renderChat(
  reply: ScriptedReply,
  body: Record<string, unknown>,
  response: ServerResponse,
  socket: Socket,
  n: number,
): void {
  if (reply.type === 'error') {
    writeError(response, reply);
    return;
  }
  const id = `chatcmpl-fake-${n}`;
  const model = String(body.model);
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
        usage: {
          prompt_tokens: reply.usage?.inputTokens ?? 0,
          completion_tokens: reply.usage?.outputTokens ?? 0,
          total_tokens: (reply.usage?.inputTokens ?? 0) + (reply.usage?.outputTokens ?? 0),
          prompt_tokens_details: { cached_tokens: 0 },
        },
      }),
    );
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const send = (payload: object): void => {
    response.write(`data: ${JSON.stringify(payload)}\n\n`);
  };
  send(chunk({ role: 'assistant', content: '' }));
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
  toolCalls.forEach((call, index) => {
    send(
      chunk({
        tool_calls: [
          { index, id: call.id, type: 'function', function: { name: call.toolName, arguments: '' } },
        ],
      }),
    );
  });
  const argumentChunks = interleave(
    toolCalls.map((call, index) =>
      pieces(call.arguments, 5).map((piece) => ({ index, function: { arguments: piece } })),
    ),
  );
  for (const argumentChunk of argumentChunks) send(chunk({ tool_calls: [argumentChunk] }));
  send(chunk({}, CHAT_FINISH[finishOf(reply)]));
  if ((body.stream_options as { include_usage?: boolean } | undefined)?.include_usage) {
    send({
      id,
      object: 'chat.completion.chunk',
      created: 1_770_000_000,
      model,
      choices: [],
      usage: {
        prompt_tokens: reply.usage?.inputTokens ?? 0,
        completion_tokens: reply.usage?.outputTokens ?? 0,
        total_tokens: (reply.usage?.inputTokens ?? 0) + (reply.usage?.outputTokens ?? 0),
        prompt_tokens_details: { cached_tokens: 0 },
      },
    });
  }
  response.end('data: [DONE]\n\n');
}

function responseObject(
  reply: Extract<ScriptedReply, { type: 'response' }>,
  body: Record<string, unknown>,
  n: number,
): object {
  const finish = finishOf(reply);
  const output: object[] = [];
  if (reply.text !== undefined && reply.text !== '') {
    output.push({
      type: 'message',
      id: `msg_fake_${n}`,
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: reply.text, annotations: [] }],
    });
  }
  (reply.toolCalls ?? []).forEach((call, index) => {
    output.push({
      type: 'function_call',
      id: `fc_fake_${n}_${index}`,
      call_id: call.id,
      name: call.toolName,
      arguments: call.arguments,
      status: 'completed',
    });
  });
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
    output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    usage: {
      input_tokens: reply.usage?.inputTokens ?? 0,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: reply.usage?.outputTokens ?? 0,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: (reply.usage?.inputTokens ?? 0) + (reply.usage?.outputTokens ?? 0),
    },
  };
}

function renderResponses(
  reply: ScriptedReply,
  body: Record<string, unknown>,
  response: ServerResponse,
  socket: Socket,
  n: number,
): void {
  if (reply.type === 'error') {
    writeError(response, reply);
    return;
  }
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
  const text = reply.text ?? '';
  const messageId = `msg_fake_${n}`;
  if (text !== '') {
    send({
      type: 'response.output_item.added',
      output_index: 0,
      item: { type: 'message', id: messageId, status: 'in_progress', role: 'assistant', content: [] },
    });
    for (const piece of pieces(text, 4)) {
      send({
        type: 'response.output_text.delta',
        item_id: messageId,
        output_index: 0,
        content_index: 0,
        delta: piece,
        logprobs: [],
      });
    }
  }
  if (reply.type === 'stall') return;
  const offset = text === '' ? 0 : 1;
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
      output_index: 0,
      content_index: 0,
      text,
      logprobs: [],
    });
    send({
      type: 'response.output_item.done',
      output_index: 0,
      item: {
        type: 'message',
        id: messageId,
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text, annotations: [] }],
      },
    });
  }
  const toolCalls = reply.toolCalls ?? [];
  toolCalls.forEach((call, index) => {
    send({
      type: 'response.output_item.added',
      output_index: offset + index,
      item: {
        type: 'function_call',
        id: `fc_fake_${n}_${index}`,
        call_id: call.id,
        name: call.toolName,
        arguments: '',
        status: 'in_progress',
      },
    });
  });
  const deltas = interleave(
    toolCalls.map((call, index) =>
      pieces(call.arguments, 5).map((piece) => ({
        type: 'response.function_call_arguments.delta',
        item_id: `fc_fake_${n}_${index}`,
        output_index: offset + index,
        delta: piece,
      })),
    ),
  );
  for (const delta of deltas) send(delta);
  toolCalls.forEach((call, index) => {
    const item = {
      type: 'function_call',
      id: `fc_fake_${n}_${index}`,
      call_id: call.id,
      name: call.toolName,
      arguments: call.arguments,
      status: 'completed',
    };
    send({
      type: 'response.function_call_arguments.done',
      item_id: item.id,
      output_index: offset + index,
      arguments: call.arguments,
    });
    send({ type: 'response.output_item.done', output_index: offset + index, item });
  });
  const final = responseObject(reply, body, n) as { status: string };
  send({
    type: final.status === 'incomplete' ? 'response.incomplete' : 'response.completed',
    response: final,
  });
  response.end();
}

// --------------------------------------------------------------------------------------------------------------
// Projection to neutral facts

function projectChoice(choice: unknown): WireToolChoice {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'auto' || choice === 'required' || choice === 'none') return { type: choice };
  const record = choice as { type?: string; name?: string; function?: { name?: string } };
  const name = record.function?.name ?? record.name;
  if (record.type === 'function' && typeof name === 'string') return { type: 'tool', toolName: name };
  throw new Error(`Unexpected tool_choice on the wire: ${JSON.stringify(choice)}`);
}

function projectChat(body: Record<string, unknown>): WireRequest {
  const messages = (body.messages as Record<string, unknown>[]).map((message): WireMessage => {
    const role = message.role as WireMessage['role'];
    if (role === 'tool') return { role, toolCallId: String(message.tool_call_id) };
    const calls = message.tool_calls as { id: string }[] | undefined;
    if (role === 'assistant' && calls && calls.length > 0)
      return { role, toolCallIds: calls.map((call) => call.id) };
    return { role };
  });
  const tools = (body.tools as { function: { name: string; parameters: JsonSchema } }[] | undefined) ?? [];
  return {
    toolChoice: projectChoice(body.tool_choice),
    parallelToolCalls: body.parallel_tool_calls as boolean | undefined,
    tools: tools.map((tool) => ({ name: tool.function.name, inputSchema: tool.function.parameters })),
    messages,
    stream: body.stream === true,
  };
}

function projectResponses(body: Record<string, unknown>): WireRequest {
  const messages: WireMessage[] = [];
  for (const item of body.input as Record<string, unknown>[]) {
    if (item.type === 'function_call') {
      const last = messages.at(-1);
      if (last?.role === 'assistant' && last.toolCallIds !== undefined) {
        messages[messages.length - 1] = {
          role: 'assistant',
          toolCallIds: [...last.toolCallIds, String(item.call_id)],
        };
      } else messages.push({ role: 'assistant', toolCallIds: [String(item.call_id)] });
    } else if (item.type === 'function_call_output')
      messages.push({ role: 'tool', toolCallId: String(item.call_id) });
    else messages.push({ role: item.role as WireMessage['role'] });
  }
  const tools = (body.tools as { name: string; parameters: JsonSchema }[] | undefined) ?? [];
  return {
    toolChoice: projectChoice(body.tool_choice),
    parallelToolCalls: body.parallel_tool_calls as boolean | undefined,
    tools: tools.map((tool) => ({ name: tool.name, inputSchema: tool.parameters })),
    messages,
    stream: body.stream === true,
  };
}

// --------------------------------------------------------------------------------------------------------------

/** Starts a fake OpenAI server. Every test closes it (`await server.close()`). */
export async function startFakeOpenAIServer(): Promise<FakeOpenAIServer> {
  const queue: FakeReply[] = [];
  const received: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  let count = 0;

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '';
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(JSON.stringify(errorBody('Fake server: the request body is not JSON.')));
        return;
      }
      received.push({ path, headers: request.headers, body });
      count += 1;
      const reply = queue.shift();
      if (reply === undefined) {
        response.writeHead(500, { 'content-type': 'application/json', 'x-should-retry': 'false' });
        response.end(
          JSON.stringify(errorBody('Fake server: no reply scripted for this request.', null, 'server_error')),
        );
        return;
      }
      if (reply.type === 'raw') {
        reply.handle({ request, response, socket: request.socket, body });
        return;
      }
      if (path.endsWith('/chat/completions')) renderChat(reply, body, response, request.socket, count);
      else if (path.endsWith('/responses')) renderResponses(reply, body, response, request.socket, count);
      else {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end(JSON.stringify(errorBody(`Fake server: unknown path ${path}`)));
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    received,
    wireRequests: () =>
      received.map((request) =>
        request.path.endsWith('/chat/completions')
          ? projectChat(request.body)
          : projectResponses(request.body),
      ),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
