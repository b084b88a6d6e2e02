import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One SSE message: an object is sent as `event: <its type>` + `data: <its JSON>`; a string is sent verbatim. */
export type SseItem = Record<string, unknown> | string;

/** What the fake server answers to the next request. */
export type FakeReply =
  | {
      readonly type: 'json';
      readonly status?: number;
      readonly body: unknown;
      readonly headers?: Record<string, string>;
    }
  | {
      readonly type: 'sse';
      readonly events: readonly SseItem[];
      readonly headers?: Record<string, string>;
      /** How the response ends: normally (`end`, the default), by destroying the socket, or never (`hang`). */
      readonly ending?: 'end' | 'destroy' | 'hang';
    }
  /** Destroys the connection before any header is sent. */
  | { readonly type: 'reset' }
  /** Sends nothing and waits until the client goes away. */
  | { readonly type: 'stall' }
  /** Decides the reply from the request body (e.g. JSON or SSE depending on `stream`). */
  | { readonly type: 'render'; readonly render: (body: Record<string, unknown>) => FakeReply };

/** A request as the fake server received it. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Record<string, unknown>;
  /** The body exactly as received, as text. */
  readonly rawBody: string;
}

/** A local stand-in for the Messages API on 127.0.0.1, on a port the OS picks. */
export interface FakeAnthropicServer {
  readonly baseURL: string;
  enqueue(...replies: FakeReply[]): void;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Formats one SSE message the way the API does: the `event:` line first (the SDK ignores messages without it). */
export function sseMessage(item: SseItem): string {
  if (typeof item === 'string') return item;
  return `event: ${String(item.type)}\ndata: ${JSON.stringify(item)}\n\n`;
}

const PROPERTY_NAME = /^[a-zA-Z0-9_.-]{1,64}$/;

/**
 * The API's check of tool schemas: a property name outside `^[a-zA-Z0-9_.-]{1,64}$` makes it refuse the request
 * (400 `invalid_request_error`, "tools.0.custom.input_schema.properties: Property keys should match pattern ...").
 * Checked at every depth here, stricter than the API is known to be.
 */
export function refusedPropertyName(body: Record<string, unknown>): string | undefined {
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const check = (node: unknown, path: string): string | undefined => {
    if (Array.isArray(node)) {
      for (const [index, child] of node.entries()) {
        const found = check(child, `${path}.${index}`);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    if (typeof node !== 'object' || node === null) return undefined;
    for (const [keyword, value] of Object.entries(node)) {
      if (keyword === 'enum' || keyword === 'const' || keyword === 'default' || keyword === 'examples')
        continue;
      if (keyword === 'properties' && typeof value === 'object' && value !== null) {
        if (Object.keys(value).some((name) => !PROPERTY_NAME.test(name))) {
          return `${path}.properties: Property keys should match pattern '^[a-zA-Z0-9_.-]{1,64}$'`;
        }
        for (const [name, child] of Object.entries(value)) {
          const found = check(child, `${path}.properties.${name}`);
          if (found !== undefined) return found;
        }
        continue;
      }
      const found = check(value, `${path}.${keyword}`);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  for (const [index, tool] of tools.entries()) {
    const found = check((tool as Record<string, unknown>).input_schema, `tools.${index}.custom.input_schema`);
    if (found !== undefined) return found;
  }
  return undefined;
}

type WireBlock = Record<string, unknown>;

/** The content of a wire message as blocks (a string is one text block). */
function blocksOf(message: unknown): WireBlock[] {
  const content = (message as { content?: unknown } | null)?.content;
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? (content as WireBlock[]) : [];
}

/**
 * The API's checks of thinking blocks sent back, with its wording (400 `invalid_request_error`):
 * - every `thinking` block carries its signature ("messages.1.content.0.thinking.signature: Field required"), a
 *   non-empty one that verifies: here, a signature this server issued must come back with the text it was issued
 *   for ("messages.1.content.0: Invalid `signature` in `thinking` block");
 * - with thinking on (`thinking.type` `enabled` or `adaptive`), the assistant turn whose tool calls the final user
 *   turn answers starts with its thinking ("messages.1.content.0.type: Expected `thinking` or `redacted_thinking`,
 *   but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking
 *   block ...").
 */
export function refusedThinking(
  body: Record<string, unknown>,
  issued: ReadonlyMap<string, string>,
): string | undefined {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (const [messageIndex, message] of messages.entries()) {
    for (const [blockIndex, block] of blocksOf(message).entries()) {
      if (block.type !== 'thinking') continue;
      const at = `messages.${messageIndex}.content.${blockIndex}`;
      if (typeof block.signature !== 'string') return `${at}.thinking.signature: Field required`;
      const issuedFor = issued.get(block.signature);
      if (block.signature === '' || (issuedFor !== undefined && issuedFor !== block.thinking)) {
        return `${at}: Invalid \`signature\` in \`thinking\` block`;
      }
    }
  }
  const mode = (body.thinking as { type?: unknown } | undefined)?.type;
  if (mode !== 'enabled' && mode !== 'adaptive') return undefined;
  const last = messages[messages.length - 1] as { role?: unknown } | undefined;
  if (last?.role !== 'user' || !blocksOf(last).some((block) => block.type === 'tool_result'))
    return undefined;
  const assistantIndex = messages.length - 2;
  const assistant = messages[assistantIndex] as { role?: unknown } | undefined;
  if (assistant?.role !== 'assistant') return undefined;
  const first = blocksOf(assistant)[0];
  if (first?.type === 'thinking' || first?.type === 'redacted_thinking') return undefined;
  return (
    `messages.${assistantIndex}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found ` +
    `\`${String(first?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a ` +
    `thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you ` +
    `include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult ` +
    `our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`
  );
}

/** Remembers the signature of every thinking block in a reply, with the text it signs. */
function recordSignatures(reply: FakeReply, issued: Map<string, string>): void {
  const remember = (block: unknown): void => {
    const candidate = block as { type?: unknown; thinking?: unknown; signature?: unknown } | null;
    if (
      candidate?.type === 'thinking' &&
      typeof candidate.signature === 'string' &&
      candidate.signature !== ''
    ) {
      issued.set(candidate.signature, typeof candidate.thinking === 'string' ? candidate.thinking : '');
    }
  };
  if (reply.type === 'json') {
    const content = (reply.body as { content?: unknown } | null)?.content;
    if (Array.isArray(content)) content.forEach(remember);
    return;
  }
  if (reply.type !== 'sse') return;
  // A streamed block's text and signature arrive in deltas, per index.
  const streamed = new Map<unknown, { thinking: string; signature: string }>();
  for (const event of reply.events) {
    if (typeof event === 'string') continue;
    const delta = event.delta as { type?: unknown; thinking?: unknown; signature?: unknown } | undefined;
    if (event.type === 'content_block_start') {
      const block = event.content_block as { type?: unknown } | undefined;
      if (block?.type === 'thinking') streamed.set(event.index, { thinking: '', signature: '' });
    } else if (event.type === 'content_block_delta' && streamed.has(event.index)) {
      const entry = streamed.get(event.index);
      if (entry !== undefined && delta?.type === 'thinking_delta') entry.thinking += String(delta.thinking);
      if (entry !== undefined && delta?.type === 'signature_delta')
        entry.signature += String(delta.signature);
    }
  }
  for (const entry of streamed.values()) remember({ type: 'thinking', ...entry });
}

/** Starts a fake server. Every test closes it (`close()` also drops open connections). */
export async function startFakeAnthropicServer(): Promise<FakeAnthropicServer> {
  const queue: FakeReply[] = [];
  const requests: RecordedRequest[] = [];
  /** Signatures of the thinking blocks served, with the text each signs. */
  const issued = new Map<string, string>();

  const handle = (request: IncomingMessage, response: ServerResponse, raw: string): void => {
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      body = { unparsable: raw };
    }
    requests.push({
      method: request.method ?? '',
      path: request.url ?? '',
      headers: request.headers,
      body,
      rawBody: raw,
    });
    const refused = refusedPropertyName(body) ?? refusedThinking(body, issued);
    if (refused !== undefined) {
      // What the Messages API answers, before any queued reply is used.
      response.writeHead(400, { 'content-type': 'application/json', 'x-should-retry': 'false' });
      response.end(
        JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: refused } }),
      );
      return;
    }
    let reply = queue.shift();
    while (reply?.type === 'render') reply = reply.render(body);
    if (reply === undefined) {
      response.writeHead(500, { 'content-type': 'application/json', 'x-should-retry': 'false' });
      response.end(
        JSON.stringify({
          type: 'error',
          error: { type: 'api_error', message: 'fake server: no reply queued' },
        }),
      );
      return;
    }
    recordSignatures(reply, issued);
    switch (reply.type) {
      case 'json':
        response.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
        response.end(JSON.stringify(reply.body));
        return;
      case 'sse': {
        response.writeHead(200, {
          'content-type': 'text/event-stream',
          'cache-control': 'no-cache',
          ...reply.headers,
        });
        response.write(reply.events.map(sseMessage).join(''));
        const ending = reply.ending ?? 'end';
        if (ending === 'end') response.end();
        // Let the written bytes leave before the connection is torn down.
        else if (ending === 'destroy') setImmediate(() => response.socket?.destroy());
        return;
      }
      case 'reset':
        request.socket.destroy();
        return;
      case 'stall':
        return;
    }
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => handle(request, response, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** The shape of a Messages API answer that `messageToEvents` reads. */
export interface MessageLike {
  readonly id?: string;
  readonly model?: string;
  readonly content: readonly Record<string, unknown>[];
  readonly stop_reason: string | null;
  readonly stop_sequence?: string | null;
  readonly usage?: Record<string, unknown>;
  readonly [field: string]: unknown;
}

/** Splits a string into pieces of at most `size` characters (at least one piece). */
export function splitText(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces.length > 0 ? pieces : [''];
}

/**
 * Renders a complete answer as the stream the API would send for it: `message_start`, each block as
 * `content_block_start` / deltas / `content_block_stop` (text in small pieces, tool input as `input_json_delta`
 * pieces of its JSON), pings in between, `message_delta` with the stop reason and usage, `message_stop`.
 */
export function messageToEvents(message: MessageLike, pieceSize = 7): Record<string, unknown>[] {
  const { content, stop_reason, stop_sequence, usage, ...rest } = message;
  const events: Record<string, unknown>[] = [
    {
      type: 'message_start',
      message: {
        ...rest,
        type: 'message',
        role: 'assistant',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    },
    { type: 'ping' },
  ];
  content.forEach((block, index) => {
    if (block.type === 'text') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const piece of splitText(String(block.text), pieceSize)) {
        events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
      }
    } else if (
      block.type === 'tool_use' ||
      block.type === 'server_tool_use' ||
      block.type === 'mcp_tool_use'
    ) {
      events.push({ type: 'content_block_start', index, content_block: { ...block, input: {} } });
      events.push({
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: '' },
      });
      for (const piece of splitText(JSON.stringify(block.input ?? {}), pieceSize)) {
        events.push({
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: piece },
        });
      }
    } else if (block.type === 'thinking') {
      events.push({
        type: 'content_block_start',
        index,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      });
      for (const piece of splitText(String(block.thinking), pieceSize)) {
        events.push({
          type: 'content_block_delta',
          index,
          delta: { type: 'thinking_delta', thinking: piece },
        });
      }
      events.push({
        type: 'content_block_delta',
        index,
        delta: { type: 'signature_delta', signature: block.signature },
      });
    } else {
      events.push({ type: 'content_block_start', index, content_block: block });
    }
    events.push({ type: 'content_block_stop', index });
    events.push({ type: 'ping' });
  });
  events.push({
    type: 'message_delta',
    delta: { stop_reason, stop_sequence: stop_sequence ?? null },
    usage: { ...usage },
  });
  events.push({ type: 'message_stop' });
  return events;
}
