import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FinishReason, ToolCall } from '@org/core';
import type { ResponseReply, ScriptedReasoning, ScriptedReply } from '@org/provider-conformance';

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

/**
 * A successful answer with OpenAI's reasoning token count. Its `reasoning` blocks render as Responses API `reasoning`
 * items before the answer (`id`, the text as the summary, `encrypted_content`), and on Chat Completions as
 * `reasoning_content`, the field OpenAI-compatible reasoning servers use (OpenAI's own Chat Completions returns none).
 */
export interface OpenAIResponseReply extends ResponseReply {
  readonly reasoningTokens?: number;
}

/** What the fake server can be told to answer. */
export type FakeReply = ScriptedReply | OpenAIResponseReply | RawReply;

/** A neutral or reasoning reply (not a raw one). */
export type RenderedReply = Exclude<FakeReply, RawReply>;

/** An OpenAI error body. */
export function errorBody(
  message: string,
  code: string | null = null,
  type = 'invalid_request_error',
  param: string | null = null,
): object {
  return { error: { message, type, param, code } };
}

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

/** Sends an error reply (status, headers, body) as OpenAI does. */
export function writeError(response: ServerResponse, reply: Extract<ScriptedReply, { type: 'error' }>): void {
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

/** Answers a request that breaks an API rule, the way OpenAI does (400 unless said otherwise). */
export function writeRejection(response: ServerResponse, rejection: Rejection): void {
  response.writeHead(rejection.status, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify(errorBody(rejection.message, rejection.code, 'invalid_request_error', rejection.param)),
  );
}

/** Why the fake server refuses a request, as the real API would. */
export interface Rejection {
  readonly status: number;
  readonly message: string;
  readonly code: string | null;
  readonly param: string | null;
}

/** The reply's finish reason: given, or `tool-calls` with calls and `stop` without. */
export function finishOf(reply: {
  finishReason?: FinishReason;
  toolCalls?: readonly ToolCall[];
}): FinishReason {
  return reply.finishReason ?? ((reply.toolCalls?.length ?? 0) > 0 ? 'tool-calls' : 'stop');
}

/** The reasoning of a reply, when it has any. */
export function reasoningOfReply(reply: RenderedReply): readonly ScriptedReasoning[] {
  return reply.type === 'response' ? (reply.reasoning ?? []) : [];
}

/** Splits text into pieces of `size` characters, as a stream delivers it. */
export const pieces = (text: string, size: number): string[] =>
  text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? [];

/**
 * How the fake server streams the argument deltas of parallel calls: `'interleaved'` round-robin after every call
 * started (a stress test of the assemblers), or `'sequential'`, each call whole before the next begins, as OpenAI
 * streams them.
 */
export type ToolCallOrder = 'interleaved' | 'sequential';

/** Interleaves the pieces of several lists round-robin. */
export function interleave<T>(lists: readonly (readonly T[])[]): T[] {
  const result: T[] = [];
  for (let round = 0; lists.some((list) => round < list.length); round++) {
    for (const list of lists) if (round < list.length) result.push(list[round] as T);
  }
  return result;
}
