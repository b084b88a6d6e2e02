import {
  collectStream,
  InvalidMessageHistoryError,
  InvalidRequestError,
  type Message,
  type ModelRequest,
  type ModelResponse,
  type ReasoningPart,
  type StreamPart,
  type ToolCall,
} from '@org/core';
import { describe, expect, it } from 'vitest';
import type { OpenAIResponseReply } from './fake-openai-server.js';
import { USER_ONLY, WEATHER_TOOL, withTestModel } from './test-provider.js';

const CALL: ToolCall = { id: 'call_w1', toolName: 'get_weather', arguments: '{"city":"Paris"}' };

const REASONED: OpenAIResponseReply = {
  type: 'response',
  reasoning: [
    {
      text: 'The user wants the weather; get_weather answers that.',
      id: 'rs_turn1',
      encryptedContent: 'gAAAAABencrypted-turn-1==',
    },
  ],
  toolCalls: [CALL],
  usage: { inputTokens: 20, outputTokens: 90 },
  reasoningTokens: 64,
};

const ANSWER: OpenAIResponseReply = {
  type: 'response',
  text: 'Paris: 18 °C.',
  usage: { inputTokens: 40, outputTokens: 6 },
};

/** The history after the tool ran: the first answer as an assistant message (with the given reasoning) and its result. */
function nextTurn(first: ModelResponse, reasoning: readonly ReasoningPart[] | undefined): Message[] {
  return [
    ...USER_ONLY,
    {
      role: 'assistant',
      content: first.text,
      toolCalls: first.toolCalls,
      ...(reasoning === undefined ? {} : { reasoning }),
    },
    { role: 'tool', toolCallId: CALL.id, toolName: CALL.toolName, content: '18 °C, sunny' },
  ];
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

async function parts(stream: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const collected: StreamPart[] = [];
  for await (const part of stream) collected.push(part);
  return collected;
}

const request = (messages: readonly Message[], extra: Partial<ModelRequest> = {}): ModelRequest => ({
  messages,
  tools: [WEATHER_TOOL],
  ...extra,
});

describe('responses: reasoning items come back as reasoning parts', () => {
  it('generate and stream give the same reasoning part (id, summary text, encrypted content) and reasoning tokens', async () => {
    await withTestModel({ api: 'responses' }, async ({ server, model }) => {
      server.enqueue(REASONED, REASONED);
      const generated = await model.generate(request(USER_ONLY));
      const streamed = await parts(model.stream(request(USER_ONLY)));
      const expected: ReasoningPart = {
        type: 'reasoning',
        provider: 'openai',
        text: 'The user wants the weather; get_weather answers that.',
        id: 'rs_turn1',
        encryptedContent: 'gAAAAABencrypted-turn-1==',
      };
      expect(generated.reasoning).toEqual([expected]);
      expect(generated.usage.reasoningTokens).toBe(64);
      const types = streamed.map((part) => part.type);
      // Reasoning first: its deltas, then the one complete part, then the call.
      expect(types.indexOf('reasoning')).toBeLessThan(types.indexOf('tool-call-start'));
      expect(streamed.flatMap((part) => (part.type === 'reasoning-delta' ? [part.delta] : [])).join('')).toBe(
        expected.text,
      );
      expect(streamed.filter((part) => part.type === 'reasoning')).toEqual([
        { type: 'reasoning', reasoning: expected },
      ]);
      const finish = streamed.at(-1);
      expect(finish?.type === 'finish' ? finish.usage.reasoningTokens : undefined).toBe(64);
    });
  });

  it('summary parts stream as deltas separated by a blank line, matching the final text', async () => {
    await withTestModel({ api: 'responses' }, async ({ server, model }) => {
      const event = (type: string, fields: object): object => ({ type, ...fields });
      const item = {
        type: 'reasoning',
        id: 'rs_two',
        summary: [
          { type: 'summary_text', text: '**Plan** Look it up.' },
          { type: 'summary_text', text: '**Check** Paris only.' },
        ],
        encrypted_content: 'gAAAAABtwo',
      };
      const at = (summary_index: number) => ({ item_id: 'rs_two', output_index: 0, summary_index });
      server.enqueue({
        type: 'raw',
        handle: ({ response }) => {
          response.writeHead(200, { 'content-type': 'text/event-stream' });
          const events = [
            event('response.created', { response: { id: 'resp_1', status: 'in_progress', output: [] } }),
            event('response.output_item.added', {
              output_index: 0,
              item: { type: 'reasoning', id: 'rs_two', summary: [] },
            }),
            event('response.reasoning_summary_part.added', {
              ...at(0),
              part: { type: 'summary_text', text: '' },
            }),
            event('response.reasoning_summary_text.delta', { ...at(0), delta: '**Plan** ' }),
            event('response.reasoning_summary_text.delta', { ...at(0), delta: 'Look it up.' }),
            event('response.reasoning_summary_part.added', {
              ...at(1),
              part: { type: 'summary_text', text: '' },
            }),
            event('response.reasoning_summary_text.delta', { ...at(1), delta: '**Check** Paris only.' }),
            event('response.output_item.done', { output_index: 0, item }),
            event('response.output_text.delta', { item_id: 'msg_1', output_index: 1, delta: 'Done.' }),
            event('response.completed', {
              response: {
                id: 'resp_1',
                status: 'completed',
                output: [item, { type: 'message', content: [{ type: 'output_text', text: 'Done.' }] }],
                usage: { input_tokens: 1, output_tokens: 1, output_tokens_details: { reasoning_tokens: 30 } },
              },
            }),
          ];
          for (const payload of events) response.write(`data: ${JSON.stringify(payload)}\n\n`);
          response.end();
        },
      });
      const streamed = await parts(model.stream(request(USER_ONLY)));
      const deltas = streamed.flatMap((part) => (part.type === 'reasoning-delta' ? [part.delta] : []));
      expect(deltas.join('')).toBe('**Plan** Look it up.\n\n**Check** Paris only.');
      const reasoning = streamed.flatMap((part) => (part.type === 'reasoning' ? [part.reasoning] : []));
      expect(reasoning).toEqual([
        {
          type: 'reasoning',
          provider: 'openai',
          text: '**Plan** Look it up.\n\n**Check** Paris only.',
          id: 'rs_two',
          encryptedContent: 'gAAAAABtwo',
        },
      ]);
    });
  });
});

describe('responses: reasoning sent back across a tool turn, through the real SDK', () => {
  for (const mode of ['generate', 'stream'] as const) {
    it(`with the reasoning: accepted, and sent as a reasoning item before its function_call · ${mode}`, async () => {
      await withTestModel({ api: 'responses' }, async ({ server, model }) => {
        server.enqueue(REASONED, ANSWER);
        const first = await model.generate(request(USER_ONLY));
        const second =
          mode === 'generate'
            ? await model.generate(request(nextTurn(first, first.reasoning)))
            : await collectStream(model.stream(request(nextTurn(first, first.reasoning))));
        expect(second.text).toBe('Paris: 18 °C.');
        expect(second.adjustments).toEqual([]);
        expect(server.received[1]?.body.input).toEqual([
          { role: 'user', content: 'Weather in Paris?' },
          {
            type: 'reasoning',
            id: 'rs_turn1',
            summary: [
              { type: 'summary_text', text: 'The user wants the weather; get_weather answers that.' },
            ],
            encrypted_content: 'gAAAAABencrypted-turn-1==',
          },
          { type: 'function_call', call_id: 'call_w1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { type: 'function_call_output', call_id: 'call_w1', output: '18 °C, sunny' },
        ]);
      });
    });

    it(`without it: the API's 400 "provided without its required 'reasoning' item" as InvalidRequestError · ${mode}`, async () => {
      await withTestModel({ api: 'responses' }, async ({ server, model }) => {
        server.enqueue(REASONED, ANSWER);
        const first = await model.generate(request(USER_ONLY));
        const next = request(nextTurn(first, undefined));
        const error =
          mode === 'generate'
            ? await failure(model.generate(next))
            : (await parts(model.stream(next))).flatMap((part) =>
                part.type === 'error' ? [part.error] : [],
              )[0];
        expect(InvalidRequestError.isInstance(error)).toBe(true);
        expect((error as InvalidRequestError).statusCode).toBe(400);
        expect((error as InvalidRequestError).message).toContain(
          "Item 'fc_fake_1_0' of type 'function_call' was provided without its required 'reasoning' item: 'rs_turn1'.",
        );
      });
    });
  }

  it('encrypted content that is not what OpenAI issued → InvalidRequestError invalid_encrypted_content', async () => {
    await withTestModel({ api: 'responses' }, async ({ server, model }) => {
      server.enqueue(REASONED, ANSWER);
      const first = await model.generate(request(USER_ONLY));
      const tampered = (first.reasoning ?? []).map((part) => ({
        ...part,
        encryptedContent: 'gAAAAABforged==',
      }));
      const error = await failure(model.generate(request(nextTurn(first, tampered))));
      expect(InvalidRequestError.isInstance(error)).toBe(true);
      expect((error as InvalidRequestError).providerCode).toBe('invalid_encrypted_content');
    });
  });

  it('with storage on, a reasoning part with only its id is sent as the id, and OpenAI finds the stored item', async () => {
    await withTestModel({ api: 'responses' }, async ({ server, model }) => {
      server.enqueue(REASONED, ANSWER);
      const first = await model.generate(request(USER_ONLY));
      const idOnly = (first.reasoning ?? []).map(({ encryptedContent: _dropped, ...part }) => part);
      const second = await model.generate(request(nextTurn(first, idOnly)));
      expect(second.text).toBe('Paris: 18 °C.');
      expect((server.received[1]!.body.input as object[])[1]).toEqual({
        type: 'reasoning',
        id: 'rs_turn1',
        summary: [{ type: 'summary_text', text: 'The user wants the weather; get_weather answers that.' }],
      });
    });
  });
});

describe('responses: store: false', () => {
  it('asks for encrypted reasoning (added to the caller include list once) and sends it back', async () => {
    await withTestModel({ api: 'responses' }, async ({ server, model }) => {
      server.enqueue(REASONED, ANSWER);
      const options = {
        providerOptions: { openai: { store: false, include: ['message.output_text.logprobs'] } },
      };
      const first = await model.generate(request(USER_ONLY, options));
      expect(server.received[0]?.body.include).toEqual([
        'message.output_text.logprobs',
        'reasoning.encrypted_content',
      ]);
      const second = await model.generate(request(nextTurn(first, first.reasoning), options));
      expect(second.text).toBe('Paris: 18 °C.');
      expect((server.received[1]!.body.input as object[])[1]).toMatchObject({
        type: 'reasoning',
        id: 'rs_turn1',
        encrypted_content: 'gAAAAABencrypted-turn-1==',
      });
    });
  });

  it('reasoning without encrypted content cannot be resolved: left out and reported, never sent (OpenAI would 404)', async () => {
    await withTestModel({ api: 'responses' }, async ({ server, model }) => {
      server.enqueue(ANSWER);
      const history: Message[] = [
        ...USER_ONLY,
        {
          role: 'assistant',
          content: '',
          toolCalls: [CALL],
          reasoning: [{ type: 'reasoning', provider: 'openai', text: 'Look it up.', id: 'rs_old' }],
        },
        { role: 'tool', toolCallId: CALL.id, toolName: CALL.toolName, content: '18 °C' },
      ];
      const response = await model.generate(
        request(history, { providerOptions: { openai: { store: false } } }),
      );
      expect(JSON.stringify(server.received[0]?.body)).not.toContain('rs_old');
      expect(response.adjustments).toEqual([
        expect.objectContaining({
          kind: 'history-rewritten',
          details: expect.objectContaining({ reason: 'not-replayable', messageIndexes: [1] }),
        }),
      ]);
    });
  });

  it('an include that is not a list of strings is refused before sending', async () => {
    await withTestModel({ api: 'responses' }, async ({ server, model }) => {
      const error = await failure(
        model.generate(request(USER_ONLY, { providerOptions: { openai: { store: false, include: 'all' } } })),
      );
      expect(InvalidRequestError.isInstance(error)).toBe(true);
      expect(server.received).toHaveLength(0);
    });
  });
});

describe('reasoning the wire cannot take', () => {
  const FOREIGN: ReasoningPart = {
    type: 'reasoning',
    provider: 'anthropic',
    text: 'ANTHROPIC-THINKING must not reach OpenAI',
    signature: 'sig-anthropic-1',
  };
  const history = (reasoning: readonly ReasoningPart[]): Message[] => [
    ...USER_ONLY,
    { role: 'assistant', content: '', toolCalls: [CALL], reasoning },
    { role: 'tool', toolCallId: CALL.id, toolName: CALL.toolName, content: '18 °C' },
  ];

  it("responses: another provider's reasoning is left out, not even as text, and reported", async () => {
    await withTestModel({ api: 'responses' }, async ({ server, model }) => {
      server.enqueue(ANSWER);
      const response = await model.generate(request(history([FOREIGN])));
      const body = JSON.stringify(server.received[0]?.body);
      expect(body).not.toContain('ANTHROPIC-THINKING');
      expect(body).not.toContain('sig-anthropic-1');
      expect(response.adjustments).toEqual([
        expect.objectContaining({
          kind: 'history-rewritten',
          details: expect.objectContaining({ reason: 'other-provider', producedBy: ['anthropic'] }),
        }),
      ]);
    });
  });

  it('chat: Chat Completions takes no reasoning; its own reasoning is left out too, and reported', async () => {
    await withTestModel({ api: 'chat' }, async ({ server, model }) => {
      server.enqueue(ANSWER);
      const own: ReasoningPart = { type: 'reasoning', provider: 'openai', text: 'OWN-THOUGHT', id: 'rs_x' };
      const response = await model.generate(request(history([own, FOREIGN])));
      const body = JSON.stringify(server.received[0]?.body);
      expect(body).not.toContain('OWN-THOUGHT');
      expect(body).not.toContain('ANTHROPIC-THINKING');
      expect(response.adjustments).toEqual([
        expect.objectContaining({
          kind: 'history-rewritten',
          details: expect.objectContaining({ reason: 'chat-api', reasoningParts: 1, messageIndexes: [1] }),
        }),
        expect.objectContaining({
          kind: 'history-rewritten',
          details: expect.objectContaining({ reason: 'other-provider', producedBy: ['anthropic'] }),
        }),
      ]);
    });
  });

  it('a malformed reasoning part in the history → InvalidMessageHistoryError, nothing sent', async () => {
    for (const api of ['chat', 'responses'] as const) {
      await withTestModel({ api }, async ({ server, model }) => {
        const broken = [{ type: 'reasoning', provider: 'openai', text: 42 }] as unknown as ReasoningPart[];
        const error = await failure(model.generate(request(history(broken))));
        expect(InvalidMessageHistoryError.isInstance(error)).toBe(true);
        expect((error as InvalidMessageHistoryError).messageIndex).toBe(1);
        expect(server.received).toHaveLength(0);
      });
    }
  });
});

describe('chat: reasoning of OpenAI-compatible servers (reasoning_content)', () => {
  it('generate and stream both return it as one reasoning part of the adapter, with reasoning tokens', async () => {
    await withTestModel({ api: 'chat', provider: { name: 'deepseek' } }, async ({ server, model }) => {
      server.enqueue(REASONED, REASONED);
      const generated = await model.generate(request(USER_ONLY));
      const streamed = await parts(model.stream(request(USER_ONLY)));
      const expected: ReasoningPart = {
        type: 'reasoning',
        provider: 'deepseek',
        text: 'The user wants the weather; get_weather answers that.',
      };
      expect(generated.reasoning).toEqual([expected]);
      expect(generated.usage.reasoningTokens).toBe(64);
      expect(streamed.filter((part) => part.type === 'reasoning')).toEqual([
        { type: 'reasoning', reasoning: expected },
      ]);
      const types = streamed.map((part) => part.type);
      expect(types.indexOf('reasoning')).toBeLessThan(types.indexOf('tool-call-start'));
      expect(types.lastIndexOf('reasoning-delta')).toBeLessThan(types.indexOf('reasoning'));
    });
  });
});
