import {
  collectStream,
  InvalidMessageHistoryError,
  InvalidRequestError,
  type Message,
  type ModelRequest,
  type ModelResponse,
  type ReasoningPart,
  type StreamPart,
  type ToolSpec,
} from '@org/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type FakeBedrockServer,
  type FakeResponse,
  readChunksFixture,
  readJsonFixture,
  type StreamItem,
  startFakeBedrock,
} from './fake-bedrock-server.js';
import { createTestBedrock } from './test-provider.js';

const MODEL_ID = 'us.anthropic.claude-3-7-sonnet-20250219-v1:0';
const THINKING = {
  bedrock: { additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 1024 } } },
};
const SIGNATURE = 'EqQBCkgIARABGAIiQL2Vv2J0c2lnbmF0dXJl';
const THOUGHT = 'The user wants the weather in Paris; I should call get_weather.';
// Bytes that are not UTF-8 text, as Bedrock's encrypted reasoning is.
const REDACTED_BYTES = Uint8Array.from([0, 255, 16, 128, 7, 42, 200, 3]);
const REDACTED = Buffer.from(REDACTED_BYTES).toString('base64');

const TOOL: ToolSpec = {
  name: 'get_weather',
  description: 'Current weather for a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const QUESTION: Message = { role: 'user', content: 'What is the weather in Paris?' };

/** A Converse answer that thinks, then calls get_weather. */
const THINK_THEN_CALL: FakeResponse = {
  json: {
    output: {
      message: {
        role: 'assistant',
        content: [
          { reasoningContent: { reasoningText: { text: THOUGHT, signature: SIGNATURE } } },
          { reasoningContent: { redactedContent: REDACTED } },
          { toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Paris' } } },
        ],
      },
    },
    stopReason: 'tool_use',
    usage: { inputTokens: 20, outputTokens: 40, totalTokens: 60 },
  },
};
const FINAL: FakeResponse = {
  json: {
    output: { message: { role: 'assistant', content: [{ text: 'It is sunny in Paris.' }] } },
    stopReason: 'end_turn',
    usage: { inputTokens: 70, outputTokens: 8, totalTokens: 78 },
  },
};

const reasoningDelta = (contentBlockIndex: number, reasoningContent: object): StreamItem => ({
  event: 'contentBlockDelta',
  payload: { contentBlockIndex, delta: { reasoningContent } },
});
const blockStop = (contentBlockIndex: number): StreamItem => ({
  event: 'contentBlockStop',
  payload: { contentBlockIndex },
});
/** The same answer as ConverseStream frames: reasoning in pieces, its signature, redacted bytes in two deltas. */
const THINK_THEN_CALL_STREAM: StreamItem[] = [
  { event: 'messageStart', payload: { role: 'assistant' } },
  reasoningDelta(0, { text: THOUGHT.slice(0, 20) }),
  reasoningDelta(0, { text: THOUGHT.slice(20) }),
  reasoningDelta(0, { text: '' }),
  reasoningDelta(0, { signature: SIGNATURE }),
  blockStop(0),
  reasoningDelta(1, { redactedContent: Buffer.from(REDACTED_BYTES.slice(0, 3)).toString('base64') }),
  reasoningDelta(1, { redactedContent: Buffer.from(REDACTED_BYTES.slice(3)).toString('base64') }),
  blockStop(1),
  {
    event: 'contentBlockStart',
    payload: { contentBlockIndex: 2, start: { toolUse: { toolUseId: 'tooluse_1', name: 'get_weather' } } },
  },
  {
    event: 'contentBlockDelta',
    payload: { contentBlockIndex: 2, delta: { toolUse: { input: '{"city":' } } },
  },
  {
    event: 'contentBlockDelta',
    payload: { contentBlockIndex: 2, delta: { toolUse: { input: '"Paris"}' } } },
  },
  blockStop(2),
  { event: 'messageStop', payload: { stopReason: 'tool_use' } },
  {
    event: 'metadata',
    payload: { usage: { inputTokens: 20, outputTokens: 40, totalTokens: 60 }, metrics: {} },
  },
];

const EXPECTED_REASONING: ReasoningPart[] = [
  { type: 'reasoning', provider: 'bedrock', text: THOUGHT, signature: SIGNATURE },
  { type: 'reasoning', provider: 'bedrock', text: '', redactedData: REDACTED },
];

let server: FakeBedrockServer;
beforeEach(async () => {
  server = await startFakeBedrock();
});
afterEach(async () => {
  await server.close();
});

const model = () => createTestBedrock(server).provider(MODEL_ID);
const lastBody = (): Record<string, unknown> => server.requests.at(-1)?.body ?? {};

/**
 * The history of the next turn: the question, the assistant turn as the response gave it (with `reasoning` in place
 * of its reasoning when given, `null` for none), and the tool result.
 */
function nextTurn(response: ModelResponse, replaced?: readonly ReasoningPart[] | null): ModelRequest {
  const reasoning = replaced === null ? undefined : (replaced ?? response.reasoning);
  return {
    messages: [
      QUESTION,
      {
        role: 'assistant',
        content: response.text,
        toolCalls: response.toolCalls,
        ...(reasoning === undefined ? {} : { reasoning }),
      },
      { role: 'tool', toolCallId: 'tooluse_1', toolName: 'get_weather', content: '{"sky":"sunny"}' },
    ],
    tools: [TOOL],
    providerOptions: THINKING,
  };
}

describe('reasoning in answers', () => {
  it('Converse: reasoningText and redactedContent blocks become reasoning parts, in order, not text', async () => {
    server.enqueue(THINK_THEN_CALL);
    const response = await model().generate({
      messages: [QUESTION],
      tools: [TOOL],
      providerOptions: THINKING,
    });
    expect(response.reasoning).toEqual(EXPECTED_REASONING);
    expect(response.text).toBe('');
    expect(response.toolCalls).toEqual([
      { id: 'tooluse_1', toolName: 'get_weather', arguments: '{"city":"Paris"}' },
    ]);
    // Converse reports no reasoning token count: nothing is invented.
    expect(response.usage).toEqual({ inputTokens: 20, outputTokens: 40, totalTokens: 60 });
    expect(response.usage.reasoningTokens).toBeUndefined();
  });

  it('ConverseStream: reasoning-delta parts while thinking, one reasoning part per block when it stops', async () => {
    server.enqueue({ stream: THINK_THEN_CALL_STREAM });
    const parts: StreamPart[] = [];
    for await (const part of model().stream({
      messages: [QUESTION],
      tools: [TOOL],
      providerOptions: THINKING,
    })) {
      parts.push(part);
    }
    expect(parts.slice(0, 4)).toEqual([
      { type: 'reasoning-delta', delta: THOUGHT.slice(0, 20) },
      { type: 'reasoning-delta', delta: THOUGHT.slice(20) },
      { type: 'reasoning', reasoning: EXPECTED_REASONING[0] },
      { type: 'reasoning', reasoning: EXPECTED_REASONING[1] },
    ]);
    const collected = await collectStream(
      (async function* () {
        yield* parts;
      })(),
    );
    expect(collected.reasoning).toEqual(EXPECTED_REASONING);
    expect(collected.text).toBe('');
    expect(collected.toolCalls).toHaveLength(1);
  });

  it('the recorded thinking answers (Converse and ConverseStream) give the reasoning with its signature', async () => {
    const recorded = readJsonFixture('amazon-bedrock-reasoning.json') as {
      output: {
        message: { content: [{ reasoningContent: { reasoningText: { text: string; signature: string } } }] };
      };
    };
    server.enqueue({ json: recorded }, { stream: readChunksFixture('amazon-bedrock-reasoning.chunks.txt') });
    const generated = await model().generate({ messages: [QUESTION] });
    expect(generated.reasoning).toEqual([
      {
        type: 'reasoning',
        provider: 'bedrock',
        ...recorded.output.message.content[0].reasoningContent.reasoningText,
      },
    ]);
    const streamed = await collectStream(model().stream({ messages: [QUESTION] }));
    expect(streamed.reasoning).toHaveLength(1);
    expect(streamed.reasoning?.[0]?.text).toBe(
      'Let me count the r\'s in "strawberry":\n\ns-t-r-a-w-b-e-r-r-y\n\nr appears at positions 3, 8, and 9.\n\nSo there are 3 r\'s.',
    );
    expect(streamed.reasoning?.[0]?.signature).toMatch(/^Ep0CCkgICxAB.*GAE=$/);
    expect(streamed.text).toBe(generated.text);
  });

  it('a model declared streaming: false replays the reasoning as parts', async () => {
    server.enqueue(THINK_THEN_CALL);
    const replayed = createTestBedrock(server).provider(MODEL_ID, { capabilities: { streaming: false } });
    const parts: StreamPart[] = [];
    for await (const part of replayed.stream({ messages: [QUESTION], tools: [TOOL] })) parts.push(part);
    expect(parts.slice(0, 3)).toEqual([
      { type: 'reasoning-delta', delta: THOUGHT },
      { type: 'reasoning', reasoning: EXPECTED_REASONING[0] },
      { type: 'reasoning', reasoning: EXPECTED_REASONING[1] },
    ]);
  });
});

describe('reasoning sent back across a tool turn (thinking enabled)', () => {
  it('with the reasoning: reasoningContent blocks first in the assistant turn, unmodified; the turn succeeds', async () => {
    server.enqueue(THINK_THEN_CALL, FINAL);
    const first = await model().generate({ messages: [QUESTION], tools: [TOOL], providerOptions: THINKING });
    const second = await model().generate(nextTurn(first));
    expect(second.text).toBe('It is sunny in Paris.');
    expect(second.adjustments).toEqual([]);
    const messages = lastBody().messages as { role: string; content: Record<string, unknown>[] }[];
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: [
        { reasoningContent: { reasoningText: { text: THOUGHT, signature: SIGNATURE } } },
        { reasoningContent: { redactedContent: REDACTED } },
        { toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Paris' } } },
      ],
    });
  });

  it('streamed both ways: the assembled reasoning goes back as it came', async () => {
    server.enqueue({ stream: THINK_THEN_CALL_STREAM }, { stream: THINK_THEN_CALL_STREAM });
    const first = await collectStream(
      model().stream({ messages: [QUESTION], tools: [TOOL], providerOptions: THINKING }),
    );
    const second = await collectStream(model().stream(nextTurn(first)));
    expect(second.reasoning).toEqual(EXPECTED_REASONING);
    const assistant = (lastBody().messages as { content: unknown[] }[])[1];
    expect(assistant?.content.slice(0, 2)).toEqual([
      { reasoningContent: { reasoningText: { text: THOUGHT, signature: SIGNATURE } } },
      { reasoningContent: { redactedContent: REDACTED } },
    ]);
  });

  it("without the reasoning: Bedrock's ValidationException as the typed InvalidRequestError", async () => {
    server.enqueue(THINK_THEN_CALL, FINAL);
    const first = await model().generate({ messages: [QUESTION], tools: [TOOL], providerOptions: THINKING });
    const failure = await model()
      .generate(nextTurn(first, null))
      .catch((error: unknown) => error);
    expect(InvalidRequestError.isInstance(failure)).toBe(true);
    const error = failure as InvalidRequestError;
    expect(error).toMatchObject({
      provider: 'bedrock',
      statusCode: 400,
      providerCode: 'ValidationException',
    });
    expect(error.message).toContain(
      'messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`.',
    );
    expect(error.retryable).toBe(false);
    // The queued final answer is still there: the fake rejected the request as Bedrock would, before any model.
    const retried = await model().generate(nextTurn(first));
    expect(retried.text).toBe('It is sunny in Paris.');
  });

  it("without the reasoning, streamed: the same error, as the stream's error part", async () => {
    server.enqueue({ stream: THINK_THEN_CALL_STREAM });
    const first = await collectStream(
      model().stream({ messages: [QUESTION], tools: [TOOL], providerOptions: THINKING }),
    );
    const parts: StreamPart[] = [];
    for await (const part of model().stream(nextTurn(first, null))) parts.push(part);
    expect(parts).toHaveLength(1);
    const [part] = parts;
    expect(part?.type).toBe('error');
    const error = part?.type === 'error' ? part.error : undefined;
    expect(InvalidRequestError.isInstance(error)).toBe(true);
    expect(error?.message).toContain('Expected `thinking` or `redacted_thinking`, but found `tool_use`');
  });

  it('reasoning without its signature: Bedrock\'s "thinking.signature: Field required", typed', async () => {
    server.enqueue(THINK_THEN_CALL);
    const first = await model().generate({ messages: [QUESTION], tools: [TOOL], providerOptions: THINKING });
    const unsigned = first.reasoning?.map((part) => ({
      type: part.type,
      provider: part.provider,
      text: part.text,
    }));
    const failure = await model()
      .generate(nextTurn(first, unsigned))
      .catch((error: unknown) => error);
    expect(InvalidRequestError.isInstance(failure)).toBe(true);
    expect((failure as Error).message).toContain('messages.1.content.0.thinking.signature: Field required');
  });

  it('reasoning of another provider is never sent, not even as text: dropped and reported', async () => {
    server.enqueue(FINAL);
    const foreign: ReasoningPart[] = [
      {
        type: 'reasoning',
        provider: 'anthropic',
        text: 'Anthropic thought',
        signature: 'anthropic-signature',
      },
      { type: 'reasoning', provider: 'openai', text: '', id: 'rs_1', encryptedContent: 'gAAAA-encrypted' },
    ];
    const response = await model().generate({
      messages: [
        QUESTION,
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'tooluse_1', toolName: 'get_weather', arguments: '{"city":"Paris"}' }],
          reasoning: foreign,
        },
        { role: 'tool', toolCallId: 'tooluse_1', toolName: 'get_weather', content: 'sunny' },
      ],
      tools: [TOOL],
    });
    expect(response.adjustments).toEqual([
      expect.objectContaining({
        kind: 'history-rewritten',
        details: {
          reason: 'foreign-reasoning-dropped',
          messages: [
            { messageIndex: 1, provider: 'anthropic', parts: 1 },
            { messageIndex: 1, provider: 'openai', parts: 1 },
          ],
        },
      }),
    ]);
    const raw = server.requests.at(-1)?.rawBody ?? '';
    for (const secret of ['Anthropic thought', 'anthropic-signature', 'gAAAA-encrypted', 'rs_1']) {
      expect(raw).not.toContain(secret);
    }
    expect((lastBody().messages as { content: unknown[] }[])[1]?.content).toEqual([
      { toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Paris' } } },
    ]);
  });

  it('redactedData that is not base64 is refused before sending', async () => {
    const response = model().generate({
      messages: [
        QUESTION,
        {
          role: 'assistant',
          content: 'Hmm.',
          reasoning: [{ type: 'reasoning', provider: 'bedrock', text: '', redactedData: 'not base64!' }],
        },
        { role: 'user', content: 'Go on.' },
      ],
    });
    await expect(response).rejects.toSatisfy(
      (error: unknown) => InvalidMessageHistoryError.isInstance(error) && error.messageIndex === 1,
    );
    expect(server.requests).toHaveLength(0);
  });
});
