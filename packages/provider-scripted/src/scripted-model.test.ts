import {
  AbortedError,
  collectStream,
  InvalidMessageHistoryError,
  InvalidRequestError,
  InvalidToolChoiceError,
  type Message,
  type ModelRequest,
  ProviderUnavailableError,
  RateLimitError,
  StreamInterruptedError,
  type StreamPart,
  ToolChoice,
  type ToolSpec,
  UnsupportedToolChoiceError,
} from '@org/core';
import { describe, expect, it } from 'vitest';
import {
  countOutputTokens,
  countRequestTokens,
  countTokens,
  createScriptedModel,
  createVirtualClock,
  InvalidScriptError,
  LATENCY_PROFILES,
  ScriptExhaustedError,
  ScriptMismatchError,
} from './index.js';

const weather: ToolSpec = {
  name: 'get_weather',
  description: 'Current weather for a city.',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const search: ToolSpec = {
  name: 'search',
  description: 'Web search.',
  inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
};
const task: Message[] = [
  { role: 'system', content: 'You answer weather questions.' },
  { role: 'user', content: 'Is it warmer in Paris or Rome?' },
];

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('createScriptedModel: generate', () => {
  it('answers turn by turn with raw argument text, default ids and finish reasons, and records the requests', async () => {
    const model = createScriptedModel({
      script: [
        {
          toolCalls: [
            { toolName: 'get_weather', arguments: '{"city":"Paris"}' },
            { toolName: 'get_weather', arguments: { city: 'Rome' } },
          ],
        },
        { text: 'Rome is warmer.' },
      ],
    });
    const first = await model.generate({ messages: task, tools: [weather] });
    expect(first.toolCalls).toEqual([
      { id: 'call_0_0', toolName: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call_0_1', toolName: 'get_weather', arguments: '{"city":"Rome"}' },
    ]);
    expect(first.finishReason).toBe('tool-calls');
    expect(first.usage.inputTokens).toBe(countRequestTokens({ messages: task, tools: [weather] }));
    expect(first.usage.outputTokens).toBe(countOutputTokens(first));
    expect(first.adjustments).toEqual([]);

    const history: Message[] = [
      ...task,
      { role: 'assistant', content: '', toolCalls: first.toolCalls },
      { role: 'tool', toolCallId: 'call_0_0', toolName: 'get_weather', content: '18°C' },
      { role: 'tool', toolCallId: 'call_0_1', toolName: 'get_weather', content: '24°C' },
    ];
    const second = await model.generate({ messages: history, tools: [weather] });
    expect(second).toMatchObject({ text: 'Rome is warmer.', toolCalls: [], finishReason: 'stop' });
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]?.messages).toBe(history);
    expect(model.remainingTurns).toBe(0);
    expect(model.totalUsage.inputTokens).toBe(first.usage.inputTokens + second.usage.inputTokens);
  });

  it('keeps broken argument text exactly as scripted', async () => {
    const model = createScriptedModel({
      script: [
        { toolCalls: [{ toolName: 'get_weather', arguments: "{city: 'Paris',}" }], finishReason: 'length' },
      ],
    });
    const response = await model.generate({ messages: task, tools: [weather] });
    expect(response.toolCalls[0]?.arguments).toBe("{city: 'Paris',}");
    expect(response.finishReason).toBe('length');
  });

  it('answers from a script function that sees the request and its token count', async () => {
    const model = createScriptedModel({
      script: (request, context) => {
        const last = request.messages.at(-1);
        if (last?.role === 'tool') return { text: `Observed: ${last.content} (call ${context.callIndex})` };
        if (context.callIndex > 0) return undefined;
        return { toolCalls: [{ toolName: 'search', arguments: { query: last?.content ?? '' } }] };
      },
    });
    const first = await model.generate({ messages: task, tools: [search] });
    expect(first.toolCalls[0]?.arguments).toBe('{"query":"Is it warmer in Paris or Rome?"}');
    const followUp: Message[] = [
      ...task,
      { role: 'assistant', content: '', toolCalls: first.toolCalls },
      { role: 'tool', toolCallId: 'call_0_0', toolName: 'search', content: 'Rome 24°C' },
    ];
    expect((await model.generate({ messages: followUp, tools: [search] })).text).toBe(
      'Observed: Rome 24°C (call 1)',
    );
    const error = await rejection(model.generate({ messages: task, tools: [search] }));
    expect(ScriptExhaustedError.isInstance(error)).toBe(true);
    expect(model.remainingTurns).toBeUndefined();
  });

  it('fails out-of-script calls with ScriptExhaustedError naming the call and the script length', async () => {
    const model = createScriptedModel({ script: [{ text: 'only answer' }] });
    await model.generate({ messages: task });
    const error = await rejection(model.generate({ messages: task }));
    expect(ScriptExhaustedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'script_exhausted',
      callIndex: 1,
      scriptLength: 1,
      lastMessageRole: 'user',
    });
    expect(model.calls.at(-1)?.error).toBe(error);
  });

  it('fails a call with the scripted error, using up the turn (a retry gets the next turn)', async () => {
    const rateLimited = new RateLimitError({
      provider: 'scripted',
      message: 'slow down',
      retryAfterMs: 1000,
    });
    const model = createScriptedModel({ script: [{ error: rateLimited }, { text: 'after retry' }] });
    expect(await rejection(model.generate({ messages: task }))).toBe(rateLimited);
    expect((await model.generate({ messages: task })).text).toBe('after retry');
  });

  it('rejects what a strict provider rejects: unpaired tool calls, unoffered named tools, tools on a no-tools model', async () => {
    const model = createScriptedModel({ script: [{ text: 'never' }] });
    const unpaired: Message[] = [
      ...task,
      { role: 'assistant', content: '', toolCalls: [{ id: 'a', toolName: 'get_weather', arguments: '{}' }] },
    ];
    expect(
      InvalidMessageHistoryError.isInstance(await rejection(model.generate({ messages: unpaired }))),
    ).toBe(true);
    const notOffered = model.generate({
      messages: task,
      tools: [weather],
      toolChoice: ToolChoice.tool('get_wether'),
    });
    expect(await rejection(notOffered)).toMatchObject({
      code: 'invalid_tool_choice',
      suggestion: 'get_weather',
    });
    expect(
      InvalidToolChoiceError.isInstance(
        await rejection(model.generate({ messages: task, toolChoice: ToolChoice.required() })),
      ),
    ).toBe(true);
    expect(model.remainingTurns).toBe(1);

    const reactOnly = createScriptedModel({
      script: [{ text: 'Thought: ...' }],
      capabilities: { toolCalls: false },
    });
    expect(reactOnly.capabilities.toolCalls).toBe(false);
    const error = await rejection(reactOnly.generate({ messages: task, tools: [weather] }));
    expect(InvalidRequestError.isInstance(error)).toBe(true);
    expect((await reactOnly.generate({ messages: task })).text).toBe('Thought: ...');
  });

  it('honours declared tool-choice support: unsupported fails, emulated is reported as an adjustment', async () => {
    const model = createScriptedModel({
      script: [{ toolCalls: [{ toolName: 'get_weather', arguments: { city: 'Paris' } }] }],
      capabilities: { toolChoice: { none: 'unsupported', required: 'emulated' } },
    });
    const error = await rejection(
      model.generate({ messages: task, tools: [weather], toolChoice: ToolChoice.none() }),
    );
    expect(UnsupportedToolChoiceError.isInstance(error)).toBe(true);
    const response = await model.generate({
      messages: task,
      tools: [weather],
      toolChoice: ToolChoice.required(),
    });
    expect(response.adjustments).toEqual([expect.objectContaining({ kind: 'tool-choice-emulated' })]);
  });

  it('fails turns that contradict the tool choice or the parallel setting with ScriptMismatchError', async () => {
    const cases: Array<
      [Partial<ModelRequest>, { toolCalls?: { toolName: string }[]; text?: string }, string]
    > = [
      [
        { toolChoice: ToolChoice.none() },
        { toolCalls: [{ toolName: 'get_weather' }] },
        'tool-calls-under-none',
      ],
      [{ toolChoice: ToolChoice.required() }, { text: 'no call' }, 'no-tool-call-under-required'],
      [
        { toolChoice: ToolChoice.tool('search') },
        { toolCalls: [{ toolName: 'get_weather' }] },
        'named-tool-not-called',
      ],
      [
        { parallelToolCalls: false },
        { toolCalls: [{ toolName: 'get_weather' }, { toolName: 'search' }] },
        'parallel-calls-not-allowed',
      ],
    ];
    for (const [request, turn, mismatch] of cases) {
      const model = createScriptedModel({ script: [turn] });
      const error = await rejection(model.generate({ messages: task, tools: [weather, search], ...request }));
      expect(ScriptMismatchError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ mismatch });
    }
    const lenient = createScriptedModel({ script: [{ text: 'no call' }], enforceToolChoice: false });
    const response = await lenient.generate({
      messages: task,
      tools: [weather],
      toolChoice: ToolChoice.required(),
    });
    expect(response.text).toBe('no call');
  });

  it('rejects malformed scripts with InvalidScriptError pointing at the field', () => {
    expect(() => createScriptedModel({ script: [{ toolCalls: [{ toolName: '' }] }] })).toThrow(
      expect.objectContaining({ code: 'invalid_script', path: 'script[0].toolCalls[0].toolName' }),
    );
    expect(() => createScriptedModel({ script: 'hello' as never })).toThrow(InvalidScriptError);
    expect(() =>
      createScriptedModel({ script: [], latency: { ...LATENCY_PROFILES.fast, perOutputTokenMs: -1 } }),
    ).toThrow(expect.objectContaining({ path: 'latency.perOutputTokenMs' }));
    expect(() => createScriptedModel({ script: [], streamChunkCharacters: 0 })).toThrow(InvalidScriptError);
    expect(() => createScriptedModel({ script: [{ reasoning: 'thinking' as never }] })).toThrow(
      expect.objectContaining({ path: 'script[0].reasoning' }),
    );
    expect(() =>
      createScriptedModel({ script: [{ reasoning: [{ text: 'x', signature: 1 as never }] }] }),
    ).toThrow(expect.objectContaining({ path: 'script[0].reasoning[0].signature' }));
  });
});

describe('createScriptedModel: reasoning', () => {
  const thought = 'Paris first: get_weather takes one city.';
  const turn = {
    reasoning: [
      { text: thought, signature: 'c2lnbmVk', id: 'rs_1' },
      { redactedData: 'cmVkYWN0ZWQ=' },
      { encryptedContent: 'ZW5jcnlwdGVk', id: 'rs_2' },
    ],
    text: 'Checking Paris.',
    toolCalls: [{ toolName: 'get_weather', arguments: { city: 'Paris' } }],
  };

  it("returns scripted reasoning as the model provider's parts, counted as output and reasoning tokens", async () => {
    const model = createScriptedModel({ provider: 'acme', script: [turn] });
    const response = await model.generate({ messages: task, tools: [weather] });
    expect(response.reasoning).toEqual([
      { type: 'reasoning', provider: 'acme', text: thought, signature: 'c2lnbmVk', id: 'rs_1' },
      { type: 'reasoning', provider: 'acme', text: '', redactedData: 'cmVkYWN0ZWQ=' },
      { type: 'reasoning', provider: 'acme', text: '', encryptedContent: 'ZW5jcnlwdGVk', id: 'rs_2' },
    ]);
    expect(response.usage.reasoningTokens).toBe(countTokens(thought));
    expect(response.usage.outputTokens).toBe(countOutputTokens(response));
    expect(response.usage.outputTokens).toBe(
      countTokens(thought) + countOutputTokens({ text: response.text, toolCalls: response.toolCalls }),
    );
  });

  it('streams the same reasoning, and takes usage.reasoningTokens from the turn when it gives it', async () => {
    const overridden = { ...turn, usage: { reasoningTokens: 250 } };
    const generated = await createScriptedModel({ script: [overridden] }).generate({
      messages: task,
      tools: [weather],
    });
    const streamed = await collectStream(
      createScriptedModel({ script: [overridden] }).stream({ messages: task, tools: [weather] }),
    );
    expect(streamed).toEqual(generated);
    expect(generated.usage.reasoningTokens).toBe(250);
  });

  it('reports no reasoning, and no reasoning tokens, for a turn without reasoning', async () => {
    const response = await createScriptedModel({ script: [{ text: 'ok', reasoning: [] }] }).generate({
      messages: task,
    });
    expect(response).not.toHaveProperty('reasoning');
    expect(response.usage).not.toHaveProperty('reasoningTokens');
  });

  it('takes back its own reasoning in the next request, with the tool results', async () => {
    const model = createScriptedModel({ script: [turn, { text: 'Paris: 18 °C.' }] });
    const first = await model.generate({ messages: task, tools: [weather] });
    const history: Message[] = [
      ...task,
      {
        role: 'assistant',
        content: first.text,
        toolCalls: first.toolCalls,
        reasoning: first.reasoning ?? [],
      },
      { role: 'tool', toolCallId: 'call_0_0', toolName: 'get_weather', content: '18 °C' },
    ];
    const second = await model.generate({ messages: history, tools: [weather] });
    expect(second.text).toBe('Paris: 18 °C.');
    expect(second.adjustments).toEqual([]);
    expect(second.usage.inputTokens).toBe(countRequestTokens({ messages: history, tools: [weather] }));
  });
});

describe('createScriptedModel: latency on a virtual clock', () => {
  it('spends time to first token + input and output token costs, deterministically', async () => {
    const clock = createVirtualClock();
    const latency = { timeToFirstTokenMs: 500, perInputTokenMs: 0.5, perOutputTokenMs: 20 };
    const model = createScriptedModel({
      script: [{ text: 'Rome is warmer than Paris today.' }],
      latency,
      clock,
    });
    const request = { messages: task };
    const response = await model.generate(request);
    const expected =
      500 +
      0.5 * countRequestTokens(request) +
      20 * countOutputTokens({ text: response.text, toolCalls: [] });
    expect(clock.now()).toBeCloseTo(expected, 9);
    expect(model.calls[0]).toMatchObject({ startedAt: 0, method: 'generate' });
    expect(model.calls[0]?.finishedAt).toBeCloseTo(expected, 9);
  });

  it('runs concurrent calls side by side: total time is the longest call, not the sum', async () => {
    const clock = createVirtualClock();
    const model = createScriptedModel({
      script: [{ text: 'a' }, { text: 'b' }],
      latency: { timeToFirstTokenMs: 1000, perInputTokenMs: 0, perOutputTokenMs: 0 },
      clock,
    });
    await Promise.all([model.generate({ messages: task }), model.generate({ messages: task })]);
    expect(clock.now()).toBe(1000);
  });

  it('aborts a call waiting on latency with AbortedError', async () => {
    const model = createScriptedModel({ script: [{ text: 'late' }], latency: LATENCY_PROFILES.slow });
    const controller = new AbortController();
    const pending = model.generate({ messages: task, signal: controller.signal });
    controller.abort();
    expect(AbortedError.isInstance(await rejection(pending))).toBe(true);
    const again = new AbortController();
    again.abort();
    expect(
      AbortedError.isInstance(await rejection(model.generate({ messages: task, signal: again.signal }))),
    ).toBe(true);
  });
});

describe('createScriptedModel: stream', () => {
  async function parts(stream: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
    const collected: StreamPart[] = [];
    for await (const part of stream) collected.push(part);
    return collected;
  }

  it('streams text deltas, tool-call start/delta/complete parts and one finish, matching generate', async () => {
    const turns = [
      {
        text: 'Let me check both cities.',
        toolCalls: [{ toolName: 'get_weather', arguments: { city: 'Paris' } }],
      },
    ];
    const streamed = await parts(
      createScriptedModel({ script: turns, streamChunkCharacters: 5 }).stream({
        messages: task,
        tools: [weather],
      }),
    );
    expect(streamed.map((part) => part.type)).toEqual([
      'text-delta',
      'text-delta',
      'text-delta',
      'text-delta',
      'text-delta',
      'tool-call-start',
      'tool-call-delta',
      'tool-call-delta',
      'tool-call-delta',
      'tool-call-delta',
      'tool-call',
      'finish',
    ]);
    const argumentText = streamed
      .flatMap((part) => (part.type === 'tool-call-delta' ? [part.argumentsDelta] : []))
      .join('');
    expect(argumentText).toBe('{"city":"Paris"}');
    const generated = await createScriptedModel({ script: turns }).generate({
      messages: task,
      tools: [weather],
    });
    const collected = await collectStream(
      createScriptedModel({ script: turns }).stream({ messages: task, tools: [weather] }),
    );
    expect(collected).toEqual({ ...generated });
  });

  it('never splits a surrogate pair across deltas', async () => {
    const text = '🌧️ Paris, ☀️ Rome 🌡️';
    const streamed = await parts(
      createScriptedModel({ script: [{ text }], streamChunkCharacters: 1 }).stream({ messages: task }),
    );
    const deltas = streamed.flatMap((part) => (part.type === 'text-delta' ? [part.delta] : []));
    expect(deltas.join('')).toBe(text);
    for (const delta of deltas) expect(delta).toBe(Array.from(delta).join(''));
    expect(deltas.every((delta) => Array.from(delta).length === 1)).toBe(true);
  });

  it('spends the same simulated time as generate, spread over the parts', async () => {
    const latency = LATENCY_PROFILES.typical;
    const turns = [{ text: 'A fairly long answer, so that it takes a few parts to stream out.' }];
    const streamClock = createVirtualClock();
    const generateClock = createVirtualClock();
    await collectStream(
      createScriptedModel({ script: turns, latency, clock: streamClock }).stream({ messages: task }),
    );
    await createScriptedModel({ script: turns, latency, clock: generateClock }).generate({ messages: task });
    expect(streamClock.now()).toBe(generateClock.now());
    expect(streamClock.now()).toBeGreaterThan(latency.timeToFirstTokenMs);
  });

  it('ends with one error part for out-of-script calls, invalid requests and scripted errors', async () => {
    const model = createScriptedModel({
      script: [{ error: new RateLimitError({ provider: 'scripted', message: 'x' }) }],
    });
    const first = await parts(model.stream({ messages: task }));
    expect(first).toHaveLength(1);
    expect(first[0]?.type === 'error' && RateLimitError.isInstance(first[0].error)).toBe(true);
    const second = await parts(model.stream({ messages: task }));
    expect(second[0]?.type === 'error' && ScriptExhaustedError.isInstance(second[0].error)).toBe(true);
    await expect(collectStream(model.stream({ messages: task }))).rejects.toSatisfy((error) =>
      ScriptExhaustedError.isInstance(error),
    );
  });

  it('ends with an AbortedError part when aborted mid-stream', async () => {
    const model = createScriptedModel({
      script: [{ text: 'x'.repeat(200) }],
      latency: LATENCY_PROFILES.fast,
    });
    const controller = new AbortController();
    const seen: StreamPart[] = [];
    for await (const part of model.stream({ messages: task, signal: controller.signal })) {
      seen.push(part);
      if (part.type === 'text-delta') controller.abort();
    }
    const last = seen.at(-1);
    expect(last?.type === 'error' && AbortedError.isInstance(last.error)).toBe(true);
    expect(seen.filter((part) => part.type === 'finish')).toHaveLength(0);
  });
});

describe('createScriptedModel: stalls and disconnects', () => {
  it('stalls until the request is aborted, and refuses a stall that could never end', async () => {
    const model = createScriptedModel({
      script: [{ stall: true }, { stall: true, text: 'partial' }, { stall: true }],
    });
    const controller = new AbortController();
    const pending = model.generate({ messages: task, signal: controller.signal });
    setImmediate(() => controller.abort());
    expect(AbortedError.isInstance(await rejection(pending))).toBe(true);

    const streaming = new AbortController();
    const seen: StreamPart[] = [];
    for await (const part of model.stream({ messages: task, signal: streaming.signal })) {
      seen.push(part);
      if (part.type === 'text-delta') streaming.abort();
    }
    expect(seen.map((part) => part.type)).toEqual(['text-delta', 'error']);
    const last = seen.at(-1);
    expect(last?.type === 'error' && AbortedError.isInstance(last.error)).toBe(true);

    expect(await rejection(model.generate({ messages: task }))).toMatchObject({
      mismatch: 'stall-without-signal',
    });
  });

  it('loses the connection mid-stream: text and half a call, then StreamInterruptedError, never a tool-call', async () => {
    const model = createScriptedModel({
      streamChunkCharacters: 4,
      script: [
        {
          text: 'Checking',
          toolCalls: [{ id: 'c1', toolName: 'get_weather', arguments: '{"city":"Paris"}' }],
          disconnect: true,
        },
        { disconnect: true },
      ],
    });
    const seen: StreamPart[] = [];
    for await (const part of model.stream({ messages: task, tools: [weather] })) seen.push(part);
    expect(seen.some((part) => part.type === 'tool-call' || part.type === 'finish')).toBe(false);
    expect(seen.filter((part) => part.type === 'tool-call-start')).toHaveLength(1);
    const last = seen.at(-1);
    expect(
      last?.type === 'error' && StreamInterruptedError.isInstance(last.error) && last.error.partialText,
    ).toBe('Checking');
    expect(ProviderUnavailableError.isInstance(await rejection(model.generate({ messages: task })))).toBe(
      true,
    );
  });
});
