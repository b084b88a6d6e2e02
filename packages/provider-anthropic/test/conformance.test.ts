import { Buffer } from 'node:buffer';
import type { FinishReason } from '@org/core';
import {
  type ConformanceFixture,
  type ConformanceHarness,
  runConformanceSuite,
  type ScriptedReply,
  type WireContentPart,
  type WireMessage,
  type WireReasoning,
  type WireRequest,
  type WireResponseFormat,
  type WireToolChoice,
} from '@org/provider-conformance';
import { ANTHROPIC_CONTENT_LIMITS } from '../src/index.js';
import {
  type FakeReply,
  type MessageLike,
  messageToEvents,
  splitText,
  startFakeAnthropicServer,
} from './fake-anthropic-server.js';
import { testProvider } from './test-provider.js';

// The shared provider conformance suite, run through the real SDK against the fake Messages API server.

type Body = Record<string, unknown>;
type Block = Record<string, unknown>;

const STOP_REASONS: Record<FinishReason, string> = {
  stop: 'end_turn',
  'tool-calls': 'tool_use',
  length: 'max_tokens',
  'content-filter': 'refusal',
  error: 'end_turn',
  other: 'end_turn',
};

function projectToolChoice(choice: unknown): WireToolChoice {
  const value = choice as { type?: string; name?: string } | undefined;
  switch (value?.type) {
    case undefined:
      return undefined;
    case 'any':
      return { type: 'required' };
    case 'tool':
      return { type: 'tool', toolName: String(value.name) };
    case 'auto':
      return { type: 'auto' };
    case 'none':
      return { type: 'none' };
    default:
      throw new Error(`unexpected tool_choice on the wire: ${JSON.stringify(choice)}`);
  }
}

/** Thinking blocks of an assistant turn, as the wire carried them back. */
function projectReasoning(blocks: readonly Block[]): WireReasoning[] {
  return blocks.flatMap((block): WireReasoning[] => {
    if (block.type === 'thinking') {
      return [
        {
          text: String(block.thinking),
          ...(typeof block.signature === 'string' ? { signature: block.signature } : {}),
        },
      ];
    }
    if (block.type === 'redacted_thinking') return [{ text: '', redactedData: String(block.data) }];
    return [];
  });
}

/** Text, image and document blocks (of a user turn or a tool_result) as neutral content parts. */
function projectContent(content: unknown): WireContentPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return (content as Block[]).flatMap((block): WireContentPart[] => {
    const source = (block.source ?? {}) as Record<string, unknown>;
    const title = typeof block.title === 'string' ? { filename: block.title } : {};
    if (block.type === 'text') return [{ type: 'text', text: String(block.text) }];
    if (block.type === 'image') {
      return source.type === 'url'
        ? [{ type: 'image', url: String(source.url) }]
        : [{ type: 'image', mediaType: String(source.media_type), data: String(source.data) }];
    }
    if (block.type !== 'document') return [];
    if (source.type === 'url') return [{ type: 'file', url: String(source.url), ...title }];
    // A text source carries the text itself: projected as base64, as the suite compares data.
    const data =
      source.type === 'text'
        ? Buffer.from(String(source.data), 'utf8').toString('base64')
        : String(source.data);
    return [{ type: 'file', mediaType: String(source.media_type), data, ...title }];
  });
}

function projectResponseFormat(body: Body): WireResponseFormat | undefined {
  const format = (body.output_config as { format?: { type?: string; schema?: unknown } } | undefined)?.format;
  if (format === undefined) return undefined;
  if (format.type !== 'json_schema')
    throw new Error(`unexpected output_config.format: ${JSON.stringify(format)}`);
  return { schema: format.schema as WireResponseFormat['schema'] };
}

/** Projects the Messages API body as the wire expressed it. */
function project(body: Body, rawBody: string): WireRequest {
  const choice = body.tool_choice as { disable_parallel_tool_use?: boolean } | undefined;
  const messages: WireMessage[] = [];
  if (body.system !== undefined) messages.push({ role: 'system' });
  for (const message of (body.messages ?? []) as { role: string; content: string | Block[] }[]) {
    const blocks: Block[] =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    if (message.role === 'assistant') {
      const ids = blocks.filter((block) => block.type === 'tool_use').map((block) => String(block.id));
      const reasoning = projectReasoning(blocks);
      messages.push({
        role: 'assistant',
        ...(ids.length > 0 ? { toolCallIds: ids } : {}),
        ...(reasoning.length > 0 ? { reasoning } : {}),
      });
      continue;
    }
    for (const block of blocks) {
      if (block.type === 'tool_result') {
        messages.push({
          role: 'tool',
          toolCallId: String(block.tool_use_id),
          content: projectContent(block.content),
        });
      }
    }
    const others = blocks.filter((block) => block.type !== 'tool_result');
    if (others.length > 0) messages.push({ role: 'user', content: projectContent(others) });
  }
  return {
    toolChoice: projectToolChoice(body.tool_choice),
    parallelToolCalls:
      choice?.disable_parallel_tool_use === undefined ? undefined : !choice.disable_parallel_tool_use,
    tools: ((body.tools ?? []) as { name: string; input_schema: Record<string, unknown> }[]).map((tool) => ({
      name: tool.name,
      inputSchema: tool.input_schema,
    })),
    messages,
    stream: body.stream === true,
    responseFormat: projectResponseFormat(body),
    rawBody,
  };
}

function toMessage(reply: Extract<ScriptedReply, { type: 'response' }>): MessageLike {
  const calls = reply.toolCalls ?? [];
  const content: Block[] = (reply.reasoning ?? []).map((block) =>
    block.redactedData === undefined
      ? { type: 'thinking', thinking: block.text, signature: block.signature ?? '' }
      : { type: 'redacted_thinking', data: block.redactedData },
  );
  if (reply.text !== undefined && reply.text !== '') content.push({ type: 'text', text: reply.text });
  for (const call of calls) {
    content.push({ type: 'tool_use', id: call.id, name: call.toolName, input: JSON.parse(call.arguments) });
  }
  const finishReason = reply.finishReason ?? (calls.length > 0 ? 'tool-calls' : 'stop');
  return {
    id: 'msg_conformance',
    model: 'claude-conformance',
    content,
    stop_reason: STOP_REASONS[finishReason],
    usage: { input_tokens: reply.usage?.inputTokens ?? 10, output_tokens: reply.usage?.outputTokens ?? 5 },
  };
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
  500: 'api_error',
  503: 'api_error',
  529: 'overloaded_error',
};

function render(reply: ScriptedReply, body: Body): FakeReply {
  const streaming = body.stream === true;
  switch (reply.type) {
    case 'response': {
      const message = toMessage(reply);
      return streaming
        ? { type: 'sse', events: messageToEvents(message, 5) }
        : { type: 'json', body: { type: 'message', role: 'assistant', ...message } };
    }
    case 'error': {
      const contextLength = reply.reason === 'context-length-exceeded';
      return {
        type: 'json',
        status: reply.status,
        headers: { ...reply.headers },
        body: {
          type: 'error',
          error: {
            type: contextLength ? 'invalid_request_error' : (ERROR_TYPES[reply.status] ?? 'api_error'),
            message: contextLength
              ? `prompt is too long: 210000 tokens > 200000 maximum. ${reply.message}`
              : reply.message,
          },
        },
      };
    }
    case 'disconnect': {
      const start = messageToEvents(
        {
          id: 'msg_cut',
          content: [{ type: 'text', text: reply.text }],
          stop_reason: 'end_turn',
          usage: { input_tokens: 1 },
        },
        5,
      );
      const events = start.filter((event) => event.type !== 'message_delta' && event.type !== 'message_stop');
      const call = reply.partialToolCall;
      if (call !== undefined) {
        events.push({
          type: 'content_block_start',
          index: 1,
          content_block: { type: 'tool_use', id: call.id, name: call.toolName, input: {} },
        });
        for (const piece of splitText(call.partialArguments, 5)) {
          events.push({
            type: 'content_block_delta',
            index: 1,
            delta: { type: 'input_json_delta', partial_json: piece },
          });
        }
      }
      return { type: 'sse', events, ending: 'destroy' };
    }
    case 'stall': {
      if (!streaming) return { type: 'stall' };
      const events = messageToEvents(
        {
          id: 'msg_stall',
          content: [{ type: 'text', text: reply.text ?? '' }],
          stop_reason: 'end_turn',
          usage: { input_tokens: 1 },
        },
        5,
      );
      // message_start and the text so far, then nothing until the client goes away.
      const unfinished = new Set(['content_block_stop', 'message_delta', 'message_stop']);
      return {
        type: 'sse',
        events: events.filter((event) => !unfinished.has(String(event.type))),
        ending: 'hang',
      };
    }
  }
}

async function createFixture(): Promise<ConformanceFixture> {
  const server = await startFakeAnthropicServer();
  return {
    model: testProvider(server, { maxRetries: 0 })('claude-conformance'),
    enqueue: (reply) => server.enqueue({ type: 'render', render: (body) => render(reply, body) }),
    requests: () => server.requests.map((request) => project(request.body, request.rawBody)),
    close: () => server.close(),
  };
}

const harness: ConformanceHarness = {
  name: 'anthropic (messages)',
  capabilities: {
    errorReplies: true,
    disconnects: true,
    stalls: true,
    reasoning: 'round-trip',
    contentParts: { limits: ANTHROPIC_CONTENT_LIMITS },
    structuredOutput: true,
    // Each block whole (start, deltas, stop) before the next, as the API streams them.
    sequentialToolCalls: true,
  },
  createFixture,
};

runConformanceSuite(harness);
