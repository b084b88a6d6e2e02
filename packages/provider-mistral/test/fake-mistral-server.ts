import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { FinishReason, ModelCapabilitiesOverride } from '@org/core';
import type {
  ConformanceFixture,
  ConformanceHarness,
  ResponseReply,
  ScriptedReasoning,
  ScriptedReply,
  WireContentPart,
  WireMessage,
  WireReasoning,
  WireRequest,
  WireToolChoice,
} from '@org/provider-conformance';
import { createMistral, MISTRAL_CONTENT_LIMITS, type MistralModelSettings } from '../src/index.js';

// A fake Mistral server on 127.0.0.1, port 0, speaking `POST /v1/chat/completions` as La Plateforme does (JSON, and
// SSE `data:` chunks ending with `data: [DONE]`), and refusing what it refuses: a missing key, a function name or a
// tool-call id outside its patterns, a tool message without `tool_call_id` or `name`, an unknown `tool_choice`. The
// conformance harness is built around it.

/** A reply outside the neutral ones, for fault tests: any status, headers and body text. */
export interface RawReply {
  readonly type: 'raw';
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: string;
}

/** SSE lines written as given (each followed by a blank line), then the response ends: malformed streams. */
export interface RawStreamReply {
  readonly type: 'raw-stream';
  readonly events: readonly string[];
}

/** A scripted answer whose calls' arguments are split over several deltas (Mistral sends each call whole). */
export interface SplitReply {
  readonly type: 'split';
  readonly reply: ResponseReply;
}

export type FakeReply = ScriptedReply | RawReply | RawStreamReply | SplitReply;

/** The wire body, snake_case, as the SDK sent it. */
export interface WireBody {
  readonly model: string;
  readonly messages: readonly WireBodyMessage[];
  readonly tools?: readonly {
    type: string;
    function: { name: string; description?: string; parameters: Record<string, unknown>; strict?: boolean };
  }[];
  readonly tool_choice?: string | { type: string; function: { name: string } };
  readonly parallel_tool_calls?: boolean;
  readonly response_format?: {
    type: string;
    json_schema?: { name: string; schema: Record<string, unknown>; strict?: boolean };
  };
  readonly stream?: boolean;
  readonly [key: string]: unknown;
}

type WireChunk = Readonly<Record<string, unknown>>;

export interface WireBodyMessage {
  readonly role: string;
  readonly content?: string | readonly WireChunk[] | null;
  readonly tool_calls?: readonly {
    id: string;
    type?: string;
    function: { name: string; arguments: string };
  }[];
  readonly tool_call_id?: string;
  readonly name?: string;
}

/** One request the server received. */
export interface ReceivedRequest {
  readonly body: WireBody;
  readonly raw: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

export interface FakeMistralServer {
  readonly serverURL: string;
  readonly requests: readonly ReceivedRequest[];
  enqueue(reply: FakeReply): void;
  close(): Promise<void>;
}

const FINISH: Readonly<Record<FinishReason, string>> = {
  stop: 'stop',
  length: 'length',
  'tool-calls': 'tool_calls',
  'content-filter': 'stop',
  error: 'error',
  other: 'stop',
};

const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const TOOL_CALL_ID = /^[a-zA-Z0-9]{9}$/;

/** Splits text into small pieces: assembling several deltas is what the suite tests. */
function pieces(text: string, size = 4): string[] {
  return text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? [];
}

function finishOf(reply: ResponseReply): string {
  return FINISH[reply.finishReason ?? ((reply.toolCalls?.length ?? 0) > 0 ? 'tool-calls' : 'stop')];
}

function usageOf(reply: ResponseReply): Record<string, number> {
  const prompt = reply.usage?.inputTokens ?? 0;
  const completion = reply.usage?.outputTokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** A reasoning block as Mistral's `thinking` chunk; a withheld one carries no text, only its signature. */
function thinkingChunk(block: ScriptedReasoning): WireChunk {
  if (block.redactedData !== undefined)
    return { type: 'thinking', thinking: [], signature: block.redactedData };
  return {
    type: 'thinking',
    thinking: [{ type: 'text', text: block.text }],
    ...(block.signature === undefined ? {} : { signature: block.signature }),
  };
}

/** Mistral's error body. */
function errorBody(message: string, type = 'invalid_request_error', code: string | null = null): string {
  return JSON.stringify({ object: 'error', message, type, param: null, code });
}

/** What the real API refuses before answering, with its status and message; `undefined` when the request is fine. */
function refusal(request: ReceivedRequest): { status: number; message: string } | undefined {
  const authorization = request.headers.authorization;
  if (
    typeof authorization !== 'string' ||
    !authorization.startsWith('Bearer ') ||
    authorization.length <= 7
  ) {
    return { status: 401, message: 'Unauthorized' };
  }
  const { body } = request;
  for (const tool of body.tools ?? []) {
    if (!FUNCTION_NAME.test(tool.function.name)) {
      return {
        status: 400,
        message: `Function name was ${tool.function.name} but must be a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length of 64.`,
      };
    }
  }
  const choice = body.tool_choice;
  if (typeof choice === 'string' && !['auto', 'none', 'any', 'required'].includes(choice)) {
    return { status: 422, message: `tool_choice: Input should be 'auto', 'none', 'any' or 'required'` };
  }
  for (const message of body.messages) {
    const ids = [
      ...(message.tool_calls ?? []).map((call) => call.id),
      ...(message.role === 'tool' ? [message.tool_call_id] : []),
    ];
    for (const id of ids) {
      if (id === undefined || !TOOL_CALL_ID.test(id)) {
        return {
          status: 400,
          message: `Tool call id was ${id ?? 'null'} but must be a-z, A-Z, 0-9, with a length of 9.`,
        };
      }
    }
    if (message.role === 'tool' && (typeof message.name !== 'string' || message.name === '')) {
      return { status: 400, message: 'Tool messages must have a name (the function called).' };
    }
  }
  return undefined;
}

/** What the server says: the scripted reply in Mistral's wire. */
function render(reply: FakeReply, body: WireBody, response: ServerResponse, socket: Socket): void {
  if (reply.type === 'raw') {
    response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    response.end(reply.body);
    return;
  }
  if (reply.type === 'error') {
    response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    const message =
      reply.reason === 'context-length-exceeded'
        ? `Prompt contains 140000 tokens and 0 draft tokens, too large for model with 131072 maximum context length (${reply.message})`
        : reply.message;
    const type =
      reply.status === 429
        ? 'rate_limited'
        : reply.status >= 500
          ? 'service_unavailable'
          : 'invalid_request_error';
    response.end(errorBody(message, type));
    return;
  }
  if (reply.type === 'raw-stream') {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const event of reply.events) response.write(`${event}\n\n`);
    response.end();
    return;
  }
  const scripted = reply.type === 'split' ? reply.reply : reply;
  if (body.stream !== true) {
    if (scripted.type === 'disconnect') socket.destroy();
    if (scripted.type !== 'response') return; // a stall: never answer, the client aborts
    const text = scripted.text ?? '';
    const content =
      scripted.reasoning === undefined || scripted.reasoning.length === 0
        ? text
        : [...scripted.reasoning.map(thinkingChunk), ...(text === '' ? [] : [{ type: 'text', text }])];
    const toolCalls = (scripted.toolCalls ?? []).map((call, index) => ({
      id: call.id,
      type: 'function',
      function: { name: call.toolName, arguments: call.arguments },
      index,
    }));
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        id: 'cmpl-fake-1',
        object: 'chat.completion',
        model: body.model,
        created: 1_760_000_000,
        usage: usageOf(scripted),
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content,
              tool_calls: toolCalls.length === 0 ? null : toolCalls,
              prefix: false,
            },
            finish_reason: finishOf(scripted),
          },
        ],
      }),
    );
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const send = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}): void => {
    const chunk = {
      id: 'cmpl-fake-1',
      object: 'chat.completion.chunk',
      created: 1_760_000_000,
      model: body.model,
      choices: [{ index: 0, delta, finish_reason: null }],
      ...extra,
    };
    response.write(`data: ${JSON.stringify(chunk)}\n\n`);
  };
  send({ role: 'assistant', content: '' });
  if (scripted.type === 'response') {
    for (const block of scripted.reasoning ?? []) {
      if (block.redactedData !== undefined) {
        send({ content: [thinkingChunk(block)] });
        continue;
      }
      for (const piece of pieces(block.text, 7)) {
        send({ content: [{ type: 'thinking', thinking: [{ type: 'text', text: piece }] }] });
      }
      if (block.signature !== undefined)
        send({ content: [{ type: 'thinking', thinking: [], signature: block.signature }] });
    }
  }
  for (const piece of pieces(scripted.text ?? '')) send({ content: piece });
  if (scripted.type === 'stall') return;
  if (scripted.type === 'disconnect') {
    const call = scripted.partialToolCall;
    if (call !== undefined) {
      send({
        tool_calls: [
          { id: call.id, function: { name: call.toolName, arguments: call.partialArguments }, index: 0 },
        ],
      });
    }
    response.write('', () => socket.destroy());
    return;
  }
  const calls = scripted.toolCalls ?? [];
  if (reply.type !== 'split' && calls.length > 0) {
    // Mistral sends every call of the answer whole, all in one delta, each with its index.
    send({
      tool_calls: calls.map((call, index) => ({
        id: call.id,
        function: { name: call.toolName, arguments: call.arguments },
        index,
      })),
    });
  }
  calls.forEach((call, index) => {
    if (reply.type !== 'split') return;
    const [first = '', ...rest] = pieces(call.arguments, 5);
    send({ tool_calls: [{ id: call.id, function: { name: call.toolName, arguments: first }, index }] });
    for (const piece of rest)
      send({ tool_calls: [{ id: call.id, function: { name: '', arguments: piece }, index }] });
  });
  const last = {
    id: 'cmpl-fake-1',
    object: 'chat.completion.chunk',
    created: 1_760_000_000,
    model: body.model,
    choices: [{ index: 0, delta: { content: '' }, finish_reason: finishOf(scripted) }],
    usage: usageOf(scripted),
  };
  response.write(`data: ${JSON.stringify(last)}\n\n`);
  response.end('data: [DONE]\n\n');
}

/**
 * Starts a fake server; each request gets the next enqueued reply (a 500 when none is left), unless the request
 * breaks a rule of the real API, which is refused the way the real API refuses it.
 *
 * @example
 * const server = await startFakeMistralServer();
 * server.enqueue({ type: 'response', text: 'Hi' });
 */
export async function startFakeMistralServer(): Promise<FakeMistralServer> {
  const queue: FakeReply[] = [];
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk: Buffer) => {
      raw += chunk.toString('utf8');
    });
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end(errorBody(`No route ${request.method} ${request.url}`));
        return;
      }
      const received: ReceivedRequest = { body: JSON.parse(raw) as WireBody, raw, headers: request.headers };
      requests.push(received);
      const refused = refusal(received);
      if (refused !== undefined) {
        response.writeHead(refused.status, { 'content-type': 'application/json' });
        response.end(
          errorBody(
            refused.message,
            refused.status === 401 ? 'authentication_error' : 'invalid_request_error',
          ),
        );
        return;
      }
      render(
        queue.shift() ?? { type: 'error', status: 500, message: 'No reply scripted.' },
        received.body,
        response,
        request.socket,
      );
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    serverURL: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (reply) => {
      queue.push(reply);
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function projectToolChoice(choice: WireBody['tool_choice']): WireToolChoice {
  if (choice === undefined) return undefined;
  if (typeof choice !== 'string') return { type: 'tool', toolName: choice.function.name };
  if (choice === 'any' || choice === 'required') return { type: 'required' };
  return choice === 'none' ? { type: 'none' } : { type: 'auto' };
}

/** A `data:` URL split into its media type and base64 data; any other URL as a URL. */
function media(url: string): { mediaType?: string; data?: string; url?: string } {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return match === null ? { url } : { mediaType: match[1] as string, data: match[2] as string };
}

function projectContent(content: WireBodyMessage['content']): WireContentPart[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map((chunk): WireContentPart => {
    if (chunk.type === 'text') return { type: 'text', text: String(chunk.text) };
    if (chunk.type === 'image_url') {
      const imageUrl = chunk.image_url as string | { url: string };
      return { type: 'image', ...media(typeof imageUrl === 'string' ? imageUrl : imageUrl.url) };
    }
    if (chunk.type === 'document_url') {
      return {
        type: 'file',
        ...media(String(chunk.document_url)),
        ...(typeof chunk.document_name === 'string' ? { filename: chunk.document_name } : {}),
      };
    }
    throw new Error(`the fake server does not project '${String(chunk.type)}' chunks`);
  });
}

function projectReasoning(content: WireBodyMessage['content']): WireReasoning[] {
  if (content === undefined || content === null || typeof content === 'string') return [];
  return content
    .filter((chunk) => chunk.type === 'thinking')
    .map((chunk): WireReasoning => {
      const text = (chunk.thinking as { text: string }[]).map((piece) => piece.text).join('');
      const signature = typeof chunk.signature === 'string' ? chunk.signature : undefined;
      if (text === '' && signature !== undefined) return { text: '', redactedData: signature };
      return { text, ...(signature === undefined ? {} : { signature }) };
    });
}

function projectMessage(message: WireBodyMessage): WireMessage {
  switch (message.role) {
    case 'assistant': {
      const reasoning = projectReasoning(message.content);
      return {
        role: 'assistant',
        ...(message.tool_calls === undefined || message.tool_calls === null
          ? {}
          : { toolCallIds: message.tool_calls.map((call) => call.id) }),
        ...(reasoning.length === 0 ? {} : { reasoning }),
      };
    }
    case 'tool':
      return {
        role: 'tool',
        toolCallId: message.tool_call_id ?? '',
        content: projectContent(message.content),
      };
    case 'user':
      return { role: 'user', content: projectContent(message.content) };
    default:
      return { role: 'system' };
  }
}

/** What the request said, read from the body the SDK sent. */
export function project(request: ReceivedRequest): WireRequest {
  const { body } = request;
  const format = body.response_format;
  return {
    toolChoice: projectToolChoice(body.tool_choice),
    parallelToolCalls: body.parallel_tool_calls,
    tools: (body.tools ?? []).map((tool) => ({
      name: tool.function.name,
      inputSchema: tool.function.parameters,
    })),
    messages: body.messages.map(projectMessage),
    stream: body.stream === true,
    ...(format?.json_schema === undefined
      ? {}
      : { responseFormat: { name: format.json_schema.name, schema: format.json_schema.schema } }),
    rawBody: request.raw,
  };
}

/** The key the fake server's tests use; it appears in no error, part or log line. */
export const FAKE_API_KEY = 'test-key-of-the-fake-mistral-server';

/**
 * The conformance harness: a fresh fake server per test, the model through the real SDK with the adapter's retries
 * off.
 *
 * @example
 * runConformanceSuite(createMistralHarness());
 */
export function createMistralHarness(
  options: {
    readonly name?: string;
    readonly settings?: MistralModelSettings;
    readonly capabilities?: ModelCapabilitiesOverride;
  } = {},
): ConformanceHarness {
  return {
    name: options.name ?? 'mistral',
    capabilities: {
      errorReplies: true,
      disconnects: true,
      stalls: true,
      reasoning: 'round-trip',
      contentParts: { limits: MISTRAL_CONTENT_LIMITS },
      structuredOutput: true,
      sequentialToolCalls: true,
    },
    createFixture: async (): Promise<ConformanceFixture> => {
      const server = await startFakeMistralServer();
      const provider = createMistral({ apiKey: FAKE_API_KEY, serverURL: server.serverURL, maxRetries: 0 });
      return {
        model: provider('mistral-large-latest', {
          ...options.settings,
          ...(options.capabilities === undefined ? {} : { capabilities: options.capabilities }),
        }),
        enqueue: (reply) => server.enqueue(reply),
        requests: () => server.requests.map(project),
        close: () => server.close(),
      };
    },
  };
}
