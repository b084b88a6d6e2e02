import type { FinishReason } from '@org/core';
import {
  type ConformanceFixture,
  type ConformanceHarness,
  runConformanceSuite,
  type ScriptedReply,
  type WireMessage,
  type WireRequest,
} from '@org/provider-conformance';
import {
  type FakeResponse,
  type RecordedRequest,
  type StreamItem,
  startFakeBedrock,
} from './fake-bedrock-server.js';
import { createTestBedrock } from './test-provider.js';

/** The Converse request fields the projection reads. */
interface ConverseBody {
  system?: { text?: string }[];
  messages?: { role: 'user' | 'assistant'; content: Record<string, unknown>[] }[];
  toolConfig?: {
    tools?: { toolSpec?: { name: string; inputSchema: { json: Record<string, unknown> } } }[];
    toolChoice?: { auto?: object; any?: object; tool?: { name: string } };
  };
}

/** Projects a Converse request onto the suite's neutral facts, from what the wire said. */
function project(request: RecordedRequest): WireRequest {
  const body = request.body as ConverseBody;
  const choice = body.toolConfig?.toolChoice;
  const messages: WireMessage[] = (body.system ?? []).length > 0 ? [{ role: 'system' }] : [];
  for (const message of body.messages ?? []) {
    if (message.role === 'assistant') {
      const ids = message.content.flatMap((block) =>
        block.toolUse === undefined ? [] : [(block.toolUse as { toolUseId: string }).toolUseId],
      );
      messages.push(ids.length > 0 ? { role: 'assistant', toolCallIds: ids } : { role: 'assistant' });
      continue;
    }
    // A user message carries tool results (one `tool` message each) and/or text (one `user` message).
    for (const block of message.content) {
      if (block.toolResult !== undefined) {
        messages.push({ role: 'tool', toolCallId: (block.toolResult as { toolUseId: string }).toolUseId });
      }
    }
    if (message.content.some((block) => block.text !== undefined)) messages.push({ role: 'user' });
  }
  return {
    toolChoice:
      choice === undefined
        ? undefined
        : choice.any !== undefined
          ? { type: 'required' }
          : choice.tool !== undefined
            ? { type: 'tool', toolName: choice.tool.name }
            : { type: 'auto' },
    // Converse has no parallel switch: the wire never says anything about it.
    parallelToolCalls: undefined,
    tools: (body.toolConfig?.tools ?? []).flatMap((tool) =>
      tool.toolSpec === undefined
        ? []
        : [{ name: tool.toolSpec.name, inputSchema: tool.toolSpec.inputSchema.json }],
    ),
    messages,
    stream: request.operation === 'converse-stream',
  };
}

const STOP_REASONS: Record<FinishReason, string> = {
  stop: 'end_turn',
  'tool-calls': 'tool_use',
  length: 'max_tokens',
  'content-filter': 'content_filtered',
  error: 'malformed_model_output',
  other: 'end_turn',
};

const ERROR_TYPES: Record<number, string> = {
  400: 'ValidationException',
  401: 'UnrecognizedClientException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  429: 'ThrottlingException',
  500: 'InternalServerException',
  503: 'ServiceUnavailableException',
};

function pieces(text: string, size: number): string[] {
  return text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? [];
}

/** Renders a scripted reply as Bedrock would answer the request it came for. */
function render(reply: ScriptedReply, request: RecordedRequest): FakeResponse {
  if (reply.type === 'error') {
    const contextLength = reply.reason === 'context-length-exceeded';
    return {
      errorType: contextLength
        ? 'ValidationException'
        : (ERROR_TYPES[reply.status] ?? 'InternalServerException'),
      status: contextLength ? 400 : reply.status,
      message: contextLength ? `Input is too long for requested model. ${reply.message}` : reply.message,
      ...(reply.headers === undefined ? {} : { headers: reply.headers }),
    };
  }
  const streaming = request.operation === 'converse-stream';
  if (reply.type === 'stall') {
    if (!streaming) return { hangBeforeHeaders: true };
    return { stream: [...textEvents(reply.text ?? '', 0), { hang: true }] };
  }
  if (reply.type === 'disconnect') {
    const items: StreamItem[] = textEvents(reply.text, 0);
    if (reply.partialToolCall !== undefined) {
      const { id, toolName, partialArguments } = reply.partialToolCall;
      items.push(
        {
          event: 'contentBlockStart',
          payload: { contentBlockIndex: 1, start: { toolUse: { toolUseId: id, name: toolName } } },
        },
        {
          event: 'contentBlockDelta',
          payload: { contentBlockIndex: 1, delta: { toolUse: { input: partialArguments } } },
        },
      );
    }
    items.push({ reset: true });
    return { stream: items };
  }
  const calls = reply.toolCalls ?? [];
  const stopReason = STOP_REASONS[reply.finishReason ?? (calls.length > 0 ? 'tool-calls' : 'stop')];
  const usage = {
    inputTokens: reply.usage?.inputTokens ?? 0,
    outputTokens: reply.usage?.outputTokens ?? 0,
    totalTokens: (reply.usage?.inputTokens ?? 0) + (reply.usage?.outputTokens ?? 0),
  };
  if (!streaming) {
    return {
      json: {
        output: {
          message: {
            role: 'assistant',
            content: [
              ...(reply.text === undefined ? [] : [{ text: reply.text }]),
              ...calls.map((call) => ({
                toolUse: {
                  toolUseId: call.id,
                  name: call.toolName,
                  input: JSON.parse(call.arguments) as unknown,
                },
              })),
            ],
          },
        },
        stopReason,
        usage,
        metrics: { latencyMs: 12 },
      },
    };
  }
  const items: StreamItem[] = [{ event: 'messageStart', payload: { role: 'assistant' } }];
  const textBlock = reply.text === undefined ? 0 : 1;
  items.push(...textEvents(reply.text ?? '', 0));
  if (textBlock === 1) items.push({ event: 'contentBlockStop', payload: { contentBlockIndex: 0 } });
  calls.forEach((call, offset) => {
    const contentBlockIndex = textBlock + offset;
    items.push({
      event: 'contentBlockStart',
      payload: { contentBlockIndex, start: { toolUse: { toolUseId: call.id, name: call.toolName } } },
    });
    for (const input of pieces(call.arguments, 7)) {
      items.push({
        event: 'contentBlockDelta',
        payload: { contentBlockIndex, delta: { toolUse: { input } } },
      });
    }
    items.push({ event: 'contentBlockStop', payload: { contentBlockIndex } });
  });
  items.push(
    { event: 'messageStop', payload: { stopReason } },
    { event: 'metadata', payload: { usage, metrics: { latencyMs: 12 } } },
  );
  return { stream: items };
}

/** Text as deltas of one block, with no contentBlockStart (as Bedrock sends text). */
function textEvents(text: string, contentBlockIndex: number): StreamItem[] {
  return pieces(text, 5).map((piece) => ({
    event: 'contentBlockDelta',
    payload: { contentBlockIndex, delta: { text: piece } },
  }));
}

async function createFixture(): Promise<ConformanceFixture> {
  const server = await startFakeBedrock();
  const { provider } = createTestBedrock(server, { retry: { maxRetries: 0 } });
  return {
    model: provider('anthropic.claude-3-5-sonnet-20240620-v1:0'),
    enqueue: (reply) => server.enqueue((request) => render(reply, request)),
    requests: () => server.requests.map(project),
    close: () => server.close(),
  };
}

const harness: ConformanceHarness = {
  name: 'bedrock (converse over HTTP/2 + event stream)',
  capabilities: { errorReplies: true, disconnects: true, stalls: true },
  createFixture,
};

runConformanceSuite(harness);
