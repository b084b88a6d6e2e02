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
  type FakeAnthropicServer,
  type MessageLike,
  messageToEvents,
  startFakeAnthropicServer,
} from './fake-anthropic-server.js';
import { testProvider } from './test-provider.js';

// Reasoning across tool turns, through the real SDK against the fake server, which checks thinking blocks sent back
// the way the Messages API does (see `refusedThinking`).

let server: FakeAnthropicServer;
beforeEach(async () => {
  server = await startFakeAnthropicServer();
});
afterEach(async () => {
  await server.close();
});

const weather: ToolSpec = {
  name: 'get_weather',
  description: 'Current weather for a city.',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const THINKING = { thinking: { type: 'enabled', budget_tokens: 2048 } } as const;
const SIGNATURE = 'EqQBCkgIARABGAIiQFakeSignatureIssuedByTheFakeServer0123456789+/abc==';

const question: Message = { role: 'user', content: 'Weather in Paris, then tell me what to wear.' };

/** A turn that thinks, says a word, and calls a tool. */
const toolTurn: MessageLike = {
  id: 'msg_think',
  model: 'claude-sonnet-5-5',
  content: [
    {
      type: 'thinking',
      thinking: 'The user wants the weather first. I will call get_weather.',
      signature: SIGNATURE,
    },
    { type: 'text', text: 'Let me check.' },
    { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
  ],
  stop_reason: 'tool_use',
  usage: { input_tokens: 50, output_tokens: 40, output_tokens_details: { thinking_tokens: 25 } },
};

const finalAnswer: MessageLike = {
  id: 'msg_final',
  model: 'claude-sonnet-5-5',
  content: [{ type: 'text', text: 'Take an umbrella.' }],
  stop_reason: 'end_turn',
  usage: { input_tokens: 90, output_tokens: 6 },
};

const jsonReply = (message: MessageLike) =>
  ({ type: 'json', body: { type: 'message', role: 'assistant', ...message } }) as const;

function request(
  messages: readonly Message[],
  providerOptions: Readonly<Record<string, unknown>> = THINKING,
): ModelRequest {
  return { messages, tools: [weather], providerOptions: { anthropic: providerOptions } };
}

/** The history after a turn: the assistant's answer with its reasoning, then the tool's result. */
function followUp(answer: ModelResponse, reasoning = answer.reasoning): Message[] {
  return [
    question,
    {
      role: 'assistant',
      content: answer.text,
      toolCalls: answer.toolCalls,
      ...(reasoning === undefined ? {} : { reasoning }),
    },
    {
      role: 'tool',
      toolCallId: answer.toolCalls[0]?.id ?? 'missing',
      toolName: 'get_weather',
      content: 'Rain, 12 °C',
    },
  ];
}

function assistantBlocksSent(): unknown[] {
  const messages = server.requests[server.requests.length - 1]?.body.messages as { content: unknown }[];
  return messages[1]?.content as unknown[];
}

async function streamedTurn(): Promise<{ parts: StreamPart[]; answer: ModelResponse }> {
  server.enqueue({ type: 'sse', events: messageToEvents(toolTurn, 9) });
  const parts: StreamPart[] = [];
  for await (const part of testProvider(server)('claude-sonnet-5-5').stream(request([question]))) {
    parts.push(part);
  }
  const answer = await collectStream(
    (async function* replay() {
      yield* parts;
    })(),
  );
  return { parts, answer };
}

describe('reasoning from Anthropic', () => {
  it('streams thinking as reasoning-delta parts, then one signed reasoning part before the tool call', async () => {
    const { parts, answer } = await streamedTurn();
    const deltas = parts.flatMap((part) => (part.type === 'reasoning-delta' ? [part.delta] : []));
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('The user wants the weather first. I will call get_weather.');
    const types = parts.map((part) => part.type);
    expect(types.indexOf('reasoning')).toBeGreaterThan(types.lastIndexOf('reasoning-delta'));
    expect(types.indexOf('reasoning')).toBeLessThan(types.indexOf('tool-call'));
    expect(answer.reasoning).toEqual([
      {
        type: 'reasoning',
        provider: 'anthropic',
        text: 'The user wants the weather first. I will call get_weather.',
        signature: SIGNATURE,
      },
    ]);
    expect(answer.usage.reasoningTokens).toBe(25);
  });

  it('gives the same reasoning through generate(), and keeps redacted thinking as redactedData', async () => {
    server.enqueue(
      jsonReply({
        ...toolTurn,
        content: [
          { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT' },
          ...toolTurn.content,
        ],
      }),
    );
    const answer = await testProvider(server)('m').generate(request([question]));
    expect(answer.reasoning).toEqual([
      {
        type: 'reasoning',
        provider: 'anthropic',
        text: '',
        redactedData: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT',
      },
      {
        type: 'reasoning',
        provider: 'anthropic',
        text: 'The user wants the weather first. I will call get_weather.',
        signature: SIGNATURE,
      },
    ]);
    expect(answer.usage.reasoningTokens).toBe(25);
  });
});

describe('reasoning sent back with the tool results', () => {
  it('round trip: the streamed thinking goes back first in its turn, signed, and the API accepts it', async () => {
    const { answer } = await streamedTurn();
    server.enqueue(jsonReply(finalAnswer));
    const final = await testProvider(server)('m').generate(request(followUp(answer)));
    expect(final.text).toBe('Take an umbrella.');
    expect(final.adjustments).toEqual([]);
    expect(assistantBlocksSent()).toEqual([
      {
        type: 'thinking',
        thinking: 'The user wants the weather first. I will call get_weather.',
        signature: SIGNATURE,
      },
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
    ]);
  });

  it('round trip through stream() too, with redacted thinking sent back verbatim', async () => {
    const redacted: MessageLike = {
      ...toolTurn,
      content: [{ type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT' }, ...toolTurn.content],
    };
    server.enqueue(
      { type: 'sse', events: messageToEvents(redacted, 4) },
      { type: 'sse', events: messageToEvents(finalAnswer, 4) },
    );
    const model = testProvider(server)('m');
    const answer = await collectStream(model.stream(request([question])));
    const final = await collectStream(model.stream(request(followUp(answer))));
    expect(final.text).toBe('Take an umbrella.');
    expect(assistantBlocksSent().slice(0, 2)).toEqual([
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT' },
      {
        type: 'thinking',
        thinking: 'The user wants the weather first. I will call get_weather.',
        signature: SIGNATURE,
      },
    ]);
  });

  it('the same history with the signature stripped fails as the API fails: a 400 InvalidRequestError', async () => {
    const { answer } = await streamedTurn();
    const unsigned = (answer.reasoning ?? []).map(
      ({ signature: _signature, ...part }): ReasoningPart => part,
    );
    const failure = await testProvider(server)('m')
      .generate(request(followUp(answer, unsigned)))
      .catch((error: unknown) => error);
    expect(InvalidRequestError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({
      code: 'invalid_request',
      statusCode: 400,
      providerCode: 'invalid_request_error',
      retryable: false,
    });
    expect((failure as Error).message).toContain('messages.1.content.0.thinking.signature: Field required');
    // Sent as it was, never as text: the block without its signature.
    expect(assistantBlocksSent()[0]).toEqual({
      type: 'thinking',
      thinking: 'The user wants the weather first. I will call get_weather.',
    });
  });

  it('thinking altered after it was signed fails with the API’s invalid-signature error', async () => {
    const { answer } = await streamedTurn();
    const altered = (answer.reasoning ?? []).map((part) => ({ ...part, text: `${part.text} (edited)` }));
    const failure = await testProvider(server)('m')
      .generate(request(followUp(answer, altered)))
      .catch((error: unknown) => error);
    expect(InvalidRequestError.isInstance(failure)).toBe(true);
    expect((failure as Error).message).toContain('Invalid `signature` in `thinking` block');
  });

  it('a tool turn sent back without its thinking fails while thinking is on, as the API fails', async () => {
    const { answer } = await streamedTurn();
    const failure = await testProvider(server)('m')
      .generate(request(followUp(answer, [])))
      .catch((error: unknown) => error);
    expect(InvalidRequestError.isInstance(failure)).toBe(true);
    expect((failure as Error).message).toContain(
      'messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`',
    );
  });

  it('the same history is accepted without thinking blocks once thinking is off', async () => {
    const { answer } = await streamedTurn();
    server.enqueue(jsonReply(finalAnswer));
    const final = await testProvider(server)('m').generate(request(followUp(answer, []), {}));
    expect(final.text).toBe('Take an umbrella.');
  });
});

describe('reasoning of another provider', () => {
  const foreign: ReasoningPart[] = [
    {
      type: 'reasoning',
      provider: 'openai',
      text: 'SECRET-CHAIN-OF-THOUGHT',
      id: 'rs_1',
      encryptedContent: 'gAAA',
    },
    { type: 'reasoning', provider: 'bedrock', text: 'OTHER-THOUGHT', signature: 'c2ln' },
  ];

  it('is never sent, not even as text, and its removal is reported', async () => {
    const { answer } = await streamedTurn();
    server.enqueue(jsonReply(finalAnswer));
    const final = await testProvider(server)('m').generate(request(followUp(answer, foreign), {}));
    const sent = JSON.stringify(server.requests[server.requests.length - 1]?.body);
    expect(sent).not.toContain('SECRET-CHAIN-OF-THOUGHT');
    expect(sent).not.toContain('OTHER-THOUGHT');
    expect(assistantBlocksSent()[0]).toEqual({ type: 'text', text: 'Let me check.' });
    expect(final.adjustments).toEqual([
      expect.objectContaining({
        kind: 'history-rewritten',
        details: {
          reason: 'foreign-reasoning-dropped',
          messageIndexes: [1],
          providers: ['openai', 'bedrock'],
          count: 2,
        },
      }),
    ]);
  });

  it('keeps Anthropic’s own parts of a mixed list, in order', async () => {
    const { answer } = await streamedTurn();
    server.enqueue(jsonReply(finalAnswer));
    const mixed = [foreign[0] as ReasoningPart, ...(answer.reasoning ?? [])];
    const final = await testProvider(server)('m').generate(request(followUp(answer, mixed)));
    expect(final.text).toBe('Take an umbrella.');
    expect((assistantBlocksSent()[0] as { type: string }).type).toBe('thinking');
    expect(final.adjustments.map((adjustment) => adjustment.details?.reason)).toEqual([
      'foreign-reasoning-dropped',
    ]);
  });

  it('refuses a reasoning part read back broken (no text), naming the message, before sending', async () => {
    const { answer } = await streamedTurn();
    const broken = [
      { type: 'reasoning', provider: 'anthropic', signature: 'c2ln' },
    ] as unknown as ReasoningPart[];
    const failure = await testProvider(server)('m')
      .generate(request(followUp(answer, broken)))
      .catch((error: unknown) => error);
    expect(InvalidMessageHistoryError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({ messageIndex: 1 });
    expect(server.requests).toHaveLength(1);
  });
});
