import type { FinishReason, JsonSchema } from '@org/core';
import {
  type ConformanceFixture,
  type ConformanceHarness,
  runConformanceSuite,
  type ScriptedReasoning,
  type ScriptedReply,
  type WireContentPart,
  type WireMessage,
  type WireReasoning,
  type WireRequest,
} from '@org/provider-conformance';
import { BEDROCK_CONTENT_LIMITS } from '../src/index.js';
import {
  type FakeResponse,
  type RecordedRequest,
  type StreamItem,
  startFakeBedrock,
} from './fake-bedrock-server.js';
import { createTestBedrock } from './test-provider.js';

/** A Converse content block as the JSON body carries it (bytes as base64). */
interface ConverseBlock {
  text?: string;
  toolUse?: { toolUseId: string };
  toolResult?: { toolUseId: string; content?: ConverseBlock[] };
  reasoningContent?: { reasoningText?: { text: string; signature?: string }; redactedContent?: string };
  image?: { format: string; source: { bytes?: string; s3Location?: { uri: string } } };
  document?: { format: string; name: string; source: { bytes?: string; s3Location?: { uri: string } } };
}

/** The Converse request fields the projection reads. */
interface ConverseBody {
  system?: { text?: string }[];
  messages?: { role: 'user' | 'assistant'; content: ConverseBlock[] }[];
  toolConfig?: {
    tools?: { toolSpec?: { name: string; inputSchema: { json: Record<string, unknown> } } }[];
    toolChoice?: { auto?: object; any?: object; tool?: { name: string } };
  };
  outputConfig?: { textFormat?: { structure?: { jsonSchema?: { name?: string; schema: string } } } };
}

/** Converse formats as the media types the suite speaks. */
const MEDIA_TYPES: Record<string, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
  txt: 'text/plain',
  csv: 'text/csv',
  md: 'text/markdown',
  html: 'text/html',
};

/** A reasoningContent block as the suite's neutral reasoning. */
function projectReasoning(block: ConverseBlock['reasoningContent'] & object): WireReasoning {
  if (block.redactedContent !== undefined) return { text: '', redactedData: block.redactedContent };
  const { text = '', signature } = block.reasoningText ?? {};
  return { text, ...(signature === undefined ? {} : { signature }) };
}

/** Text, image and document blocks (of a user turn or a tool result) as the suite's neutral content parts. */
function projectContent(blocks: readonly ConverseBlock[]): WireContentPart[] {
  return blocks.flatMap((block): WireContentPart[] => {
    if (block.text !== undefined) return [{ type: 'text', text: block.text }];
    const media = block.image ?? block.document;
    if (media === undefined) return [];
    const source = {
      ...(media.source.bytes === undefined ? {} : { data: media.source.bytes }),
      ...(media.source.s3Location === undefined ? {} : { url: media.source.s3Location.uri }),
      ...(MEDIA_TYPES[media.format] === undefined ? {} : { mediaType: MEDIA_TYPES[media.format] }),
    };
    return block.image !== undefined
      ? [{ type: 'image', ...source }]
      : [{ type: 'file', ...source, filename: block.document?.name ?? '' }];
  });
}

/** Projects a Converse request onto the suite's neutral facts, from what the wire said. */
function project(request: RecordedRequest): WireRequest {
  const body = request.body as ConverseBody;
  const choice = body.toolConfig?.toolChoice;
  const messages: WireMessage[] = (body.system ?? []).length > 0 ? [{ role: 'system' }] : [];
  for (const message of body.messages ?? []) {
    if (message.role === 'assistant') {
      const ids = message.content.flatMap((block) =>
        block.toolUse === undefined ? [] : [block.toolUse.toolUseId],
      );
      const reasoning = message.content.flatMap((block) =>
        block.reasoningContent === undefined ? [] : [projectReasoning(block.reasoningContent)],
      );
      messages.push({
        role: 'assistant',
        ...(ids.length > 0 ? { toolCallIds: ids } : {}),
        ...(reasoning.length > 0 ? { reasoning } : {}),
      });
      continue;
    }
    // A user turn carries tool results (one `tool` message each) and/or content of its own (one `user` message).
    for (const block of message.content) {
      if (block.toolResult !== undefined) {
        messages.push({
          role: 'tool',
          toolCallId: block.toolResult.toolUseId,
          content: projectContent(block.toolResult.content ?? []),
        });
      }
    }
    const own = message.content.filter((block) => block.toolResult === undefined);
    if (own.length > 0) messages.push({ role: 'user', content: projectContent(own) });
  }
  const jsonSchema = body.outputConfig?.textFormat?.structure?.jsonSchema;
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
    ...(jsonSchema === undefined
      ? {}
      : {
          responseFormat: {
            ...(jsonSchema.name === undefined ? {} : { name: jsonSchema.name }),
            schema: JSON.parse(jsonSchema.schema) as JsonSchema,
          },
        }),
    rawBody: request.rawBody,
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
  const reasoning = reply.reasoning ?? [];
  if (!streaming) {
    return {
      json: {
        output: {
          message: {
            role: 'assistant',
            content: [
              ...reasoning.map((block) => ({ reasoningContent: reasoningBlock(block) })),
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
  // Reasoning blocks first (as Bedrock streams them: deltas without a contentBlockStart), then text, then tools.
  reasoning.forEach((block, contentBlockIndex) => {
    items.push(...reasoningEvents(block, contentBlockIndex));
  });
  const textIndex = reasoning.length;
  const textBlock = reply.text === undefined ? 0 : 1;
  items.push(...textEvents(reply.text ?? '', textIndex));
  if (textBlock === 1) items.push({ event: 'contentBlockStop', payload: { contentBlockIndex: textIndex } });
  calls.forEach((call, offset) => {
    const contentBlockIndex = textIndex + textBlock + offset;
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

/** A scripted reasoning block as Converse's `reasoningContent`: signed text, or withheld (redacted) bytes. */
function reasoningBlock(block: ScriptedReasoning): Record<string, unknown> {
  if (block.redactedData !== undefined) return { redactedContent: block.redactedData };
  return {
    reasoningText: {
      text: block.text,
      ...(block.signature === undefined ? {} : { signature: block.signature }),
    },
  };
}

/** A reasoning block as ConverseStream deltas: its text in pieces, its signature or redacted bytes, then its stop. */
function reasoningEvents(block: ScriptedReasoning, contentBlockIndex: number): StreamItem[] {
  const delta = (reasoningContent: object): StreamItem => ({
    event: 'contentBlockDelta',
    payload: { contentBlockIndex, delta: { reasoningContent } },
  });
  return [
    ...pieces(block.text, 7).map((text) => delta({ text })),
    ...(block.signature === undefined ? [] : [delta({ signature: block.signature })]),
    ...(block.redactedData === undefined ? [] : [delta({ redactedContent: block.redactedData })]),
    { event: 'contentBlockStop', payload: { contentBlockIndex } },
  ];
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
  capabilities: {
    errorReplies: true,
    disconnects: true,
    stalls: true,
    reasoning: 'round-trip',
    contentParts: { limits: BEDROCK_CONTENT_LIMITS },
    structuredOutput: true,
    // Each block whole (start, deltas, stop) before the next, as the API streams them.
    sequentialToolCalls: true,
  },
  createFixture,
};

runConformanceSuite(harness);
