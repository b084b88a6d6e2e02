import {
  AbortedError,
  type Message,
  type ModelRequest,
  StreamInterruptedError,
  type StreamPart,
  type ToolSpec,
} from '@org/core';
import { describe, expect, it } from 'vitest';
import {
  countRequestTokens,
  countTokens,
  createScriptedModel,
  createVirtualClock,
  InvalidScriptError,
  LATENCY_PROFILES,
  type ScriptedModel,
  type ScriptedTurn,
} from './index.js';

// typical: 500 ms to first token, 0.1 ms per input token, 15 ms per output token.
const latency = LATENCY_PROFILES.typical;

const toolOf = (name: string): ToolSpec => ({
  name,
  description: `The ${name} tool.`,
  inputSchema: { type: 'object' },
});
const tools = [toolOf('get_weather'), toolOf('execute_tool_plan')];
const task: Message[] = [{ role: 'user', content: 'Is it warmer in Paris, Rome or Berlin?' }];
const request: ModelRequest = { messages: task, tools };
const firstTokenMs = latency.timeToFirstTokenMs + latency.perInputTokenMs * countRequestTokens(request);

/** When the first `tokens` output tokens are out, on a clock that starts at 0. */
const dueAt = (tokens: number): number => firstTokenMs + latency.perOutputTokenMs * tokens;

interface TimedPart {
  readonly at: number;
  readonly part: StreamPart;
}

async function timedStream(model: ScriptedModel, streamed: ModelRequest = request): Promise<TimedPart[]> {
  const timed: TimedPart[] = [];
  for await (const part of model.stream(streamed)) timed.push({ at: model.clock.now(), part });
  return timed;
}

function modelOf(turn: ScriptedTurn, options: { streamChunkCharacters?: number } = {}): ScriptedModel {
  return createScriptedModel({ script: [turn], latency, ...options });
}

async function generateEnd(turn: ScriptedTurn): Promise<number> {
  const model = modelOf(turn);
  await model.generate(request);
  return model.clock.now();
}

const deltaText = (part: StreamPart): string =>
  part.type === 'text-delta' ? part.delta : part.type === 'tool-call-delta' ? part.argumentsDelta : '';

const indexOf = (timed: readonly TimedPart[], matches: (part: StreamPart) => boolean): number =>
  timed.findIndex(({ part }) => matches(part));

describe('stream timing on the virtual clock', () => {
  it('sends each text delta when its last token is generated, about 4 tokens per delta', async () => {
    const text =
      'The weather in Paris is mild today, with light rain in the afternoon and clear skies by the evening.';
    const timed = await timedStream(modelOf({ text }));
    const deltas = timed.filter(({ part }) => part.type === 'text-delta');
    expect(deltas.length).toBe(Math.ceil(countTokens(text) / 4));
    let prefix = '';
    for (const { at, part } of deltas) {
      prefix += deltaText(part);
      expect(at).toBe(dueAt(countTokens(prefix)));
    }
    for (const { part } of deltas.slice(0, -1)) expect(countTokens(deltaText(part))).toBe(4);
    expect(prefix).toBe(text);
    const finish = timed.at(-1);
    expect(finish?.part.type).toBe('finish');
    expect(finish?.at).toBe(dueAt(countTokens(text)));
    expect(finish?.at).toBe(await generateEnd({ text }));
  });

  it('starts a tool call once its name is generated and completes it right after its last argument delta', async () => {
    const turn: ScriptedTurn = {
      text: 'Let me check.',
      toolCalls: [{ id: 'paris', toolName: 'get_weather', arguments: { city: 'Paris', unit: 'celsius' } }],
    };
    const argumentText = '{"city":"Paris","unit":"celsius"}';
    const textTokens = countTokens('Let me check.');
    const nameTokens = countTokens('get_weather');
    const timed = await timedStream(modelOf(turn));
    const start = indexOf(timed, (part) => part.type === 'tool-call-start');
    expect(timed[start]?.at).toBe(dueAt(textTokens + nameTokens));
    const deltas = timed.filter(({ part }) => part.type === 'tool-call-delta');
    let prefix = '';
    for (const { at, part } of deltas) {
      prefix += deltaText(part);
      expect(at).toBe(dueAt(textTokens + nameTokens + countTokens(prefix)));
    }
    expect(prefix).toBe(argumentText);
    const complete = indexOf(timed, (part) => part.type === 'tool-call');
    expect(complete).toBe(start + deltas.length + 1);
    expect(timed[complete]?.at).toBe(deltas.at(-1)?.at);
    expect(timed.map(({ part }) => part.type).slice(complete)).toEqual(['tool-call', 'finish']);
    expect(timed.at(-1)?.at).toBe(await generateEnd(turn));
  });

  it('streams reasoning first, each reasoning-delta when its last token is generated, its block right after', async () => {
    const thought = 'Paris and Rome are both in reach of get_weather; ask for Paris first, in celsius.';
    const turn: ScriptedTurn = {
      reasoning: [{ text: thought, signature: 'c2ln' }, { redactedData: 'cmVkYWN0ZWQ=' }],
      text: 'Checking Paris.',
      toolCalls: [{ id: 'paris', toolName: 'get_weather', arguments: { city: 'Paris' } }],
    };
    const timed = await timedStream(modelOf(turn));
    expect(timed.map(({ part }) => part.type).slice(0, 2)).toEqual(['reasoning-delta', 'reasoning-delta']);
    const deltas = timed.filter(({ part }) => part.type === 'reasoning-delta');
    let prefix = '';
    for (const { at, part } of deltas) {
      prefix += part.type === 'reasoning-delta' ? part.delta : '';
      expect(at).toBe(dueAt(countTokens(prefix)));
    }
    expect(prefix).toBe(thought);
    const blocks = timed.filter(({ part }) => part.type === 'reasoning');
    expect(blocks.map(({ part }) => (part.type === 'reasoning' ? part.reasoning : undefined))).toEqual([
      { type: 'reasoning', provider: 'scripted', text: thought, signature: 'c2ln' },
      { type: 'reasoning', provider: 'scripted', text: '', redactedData: 'cmVkYWN0ZWQ=' },
    ]);
    // The withheld block has no text to generate: it follows the shown one at once, before the answer's text.
    expect(blocks.map(({ at }) => at)).toEqual([deltas.at(-1)?.at, deltas.at(-1)?.at]);
    const firstText = indexOf(timed, (part) => part.type === 'text-delta');
    expect(firstText).toBe(deltas.length + 2);
    const reasoningTokens = countTokens(thought);
    let text = '';
    for (const { at, part } of timed.filter(({ part }) => part.type === 'text-delta')) {
      text += deltaText(part);
      expect(at).toBe(dueAt(reasoningTokens + countTokens(text)));
    }
    const start = indexOf(timed, (part) => part.type === 'tool-call-start');
    expect(timed[start]?.at).toBe(dueAt(reasoningTokens + countTokens(text) + countTokens('get_weather')));
    const finish = timed.at(-1);
    expect(finish?.part).toMatchObject({
      type: 'finish',
      usage: {
        outputTokens:
          reasoningTokens +
          countTokens('Checking Paris.') +
          countTokens('get_weather') +
          countTokens('{"city":"Paris"}'),
        reasoningTokens,
      },
    });
    expect(finish?.at).toBe(await generateEnd(turn));
  });

  it('sends the reasoning of a turn that loses its connection, then the text and half the call', async () => {
    const turn: ScriptedTurn = {
      reasoning: [{ text: 'Look up Paris.' }],
      text: 'Checking.',
      toolCalls: [{ id: 'c1', toolName: 'get_weather', arguments: '{"city":"Paris"}' }],
      disconnect: true,
    };
    const timed = await timedStream(modelOf(turn));
    expect(timed.map(({ part }) => part.type)).toEqual([
      'reasoning-delta',
      'reasoning',
      'text-delta',
      'tool-call-start',
      'tool-call-delta',
      'error',
    ]);
  });

  it('completes the first of several calls before the next one starts, well before the finish', async () => {
    const cities = ['Paris', 'Rome', 'Berlin'];
    const turn: ScriptedTurn = {
      toolCalls: cities.map((city) => ({ id: city, toolName: 'get_weather', arguments: { city } })),
    };
    const timed = await timedStream(modelOf(turn));
    const completeOf = (id: string): number =>
      indexOf(timed, (part) => part.type === 'tool-call' && part.toolCall.id === id);
    const startOf = (id: string): number =>
      indexOf(timed, (part) => part.type === 'tool-call-start' && part.toolCallId === id);
    const callTokens = (city: string): number =>
      countTokens('get_weather') + countTokens(JSON.stringify({ city }));
    expect(completeOf('Paris')).toBeLessThan(startOf('Rome'));
    expect(completeOf('Rome')).toBeLessThan(startOf('Berlin'));
    const parisDone = timed[completeOf('Paris')]?.at as number;
    expect(parisDone).toBe(dueAt(callTokens('Paris')));
    expect(parisDone).toBeLessThan(timed[startOf('Rome')]?.at as number);
    const finish = timed.at(-1) as TimedPart;
    expect(finish.part.type).toBe('finish');
    expect(finish.at - parisDone).toBe(
      dueAt(callTokens('Paris') + callTokens('Rome') + callTokens('Berlin')) - dueAt(callTokens('Paris')),
    );
    expect(finish.at).toBe(await generateEnd(turn));
  });

  it('streams a long plan progressively: each step is out long before the plan is complete', async () => {
    const steps = Array.from({ length: 12 }, (_, index) => ({
      id: `s${index}`,
      tool: 'get_weather',
      arguments: { city: `City number ${index}`, unit: 'celsius' },
    }));
    const plan = { steps, output_steps: steps.map((step) => step.id) };
    const planText = JSON.stringify(plan);
    const turn: ScriptedTurn = {
      toolCalls: [{ id: 'plan', toolName: 'execute_tool_plan', arguments: plan }],
    };
    const nameTokens = countTokens('execute_tool_plan');
    const timed = await timedStream(modelOf(turn));
    expect(timed[0]).toEqual({
      at: dueAt(nameTokens),
      part: { type: 'tool-call-start', toolCallId: 'plan', toolName: 'execute_tool_plan' },
    });
    const deltas = timed.filter(({ part }) => part.type === 'tool-call-delta');
    expect(deltas.length).toBeGreaterThanOrEqual(Math.floor(countTokens(planText) / 8));
    let prefix = '';
    let firstStepOutAt: number | undefined;
    for (const [index, { at, part }] of deltas.entries()) {
      prefix += deltaText(part);
      expect(at).toBe(dueAt(nameTokens + countTokens(prefix)));
      if (index > 0) expect(at).toBeGreaterThan(deltas[index - 1]?.at as number);
      if (firstStepOutAt === undefined && prefix.includes(JSON.stringify(steps[0]))) firstStepOutAt = at;
    }
    expect(prefix).toBe(planText);
    const finishAt = timed.at(-1)?.at as number;
    expect(firstStepOutAt).toBeDefined();
    // The first of 12 steps is out within the first fifth of the generation time.
    expect((firstStepOutAt as number) - firstTokenMs).toBeLessThan((finishAt - firstTokenMs) / 5);
    expect(finishAt).toBe(await generateEnd(turn));
  });

  it('cuts by characters when streamChunkCharacters is set, each delta due with the token of its last character', async () => {
    const timed = await timedStream(modelOf({ text: 'hello world' }, { streamChunkCharacters: 3 }));
    // 'hello' and ' world' are one token each: 'hel' needs the first, the others the second.
    expect(timed.map(({ at, part }) => [deltaText(part), at])).toEqual([
      ['hel', dueAt(1)],
      ['lo ', dueAt(2)],
      ['wor', dueAt(2)],
      ['ld', dueAt(2)],
      ['', dueAt(2)],
    ]);
  });

  it('never splits a surrogate pair, also where a long run of emoji is cut into slices', async () => {
    const text = `Forecast: ${'🌧️☀️'.repeat(40)} done.`;
    for (const chunking of [{}, { streamChunkCharacters: 5 }]) {
      const timed = await timedStream(modelOf({ text }, chunking));
      const deltas = timed
        .filter(({ part }) => part.type === 'text-delta')
        .map(({ part }) => deltaText(part));
      expect(deltas.join('')).toBe(text);
      for (const delta of deltas) expect(delta).not.toMatch(/^[\udc00-\udfff]|[\ud800-\udbff]$/u);
    }
  });

  it('shares the generation time out in proportion when a turn overrides usage.outputTokens', async () => {
    const turn: ScriptedTurn = {
      text: 'A short answer that is billed as many tokens.',
      usage: { outputTokens: 400 },
    };
    const timed = await timedStream(modelOf(turn));
    const deltas = timed.filter(({ part }) => part.type === 'text-delta');
    expect(deltas.length).toBeGreaterThan(1);
    for (const [index, { at }] of deltas.entries()) {
      if (index > 0) expect(at).toBeGreaterThan(deltas[index - 1]?.at as number);
    }
    expect(deltas.at(-1)?.at).toBeCloseTo(dueAt(400), 6);
    expect(timed.at(-1)?.at).toBe(dueAt(400));
    expect(timed.at(-1)?.at).toBe(await generateEnd(turn));
  });

  it('does not wait again for parts already due: a consumer that works between parts does not slow the model', async () => {
    const text = 'One two three four five six seven eight nine ten eleven twelve thirteen fourteen.';
    const model = modelOf({ text });
    const seen: TimedPart[] = [];
    for await (const part of model.stream(request)) {
      seen.push({ at: model.clock.now(), part });
      // 10 ms of work per part, less than the 60 ms a 4-token delta takes to generate.
      await model.clock.sleep(10);
    }
    const end = await generateEnd({ text });
    expect(seen.filter(({ part }) => part.type === 'text-delta').at(-1)?.at).toBe(end);
    // The finish comes with the last delta; the consumer's work on that delta is its own.
    expect(seen.at(-1)).toEqual({ at: end + 10, part: expect.objectContaining({ type: 'finish' }) });

    const late = modelOf({ text });
    const lateSeen: TimedPart[] = [];
    for await (const part of late.stream(request)) {
      lateSeen.push({ at: late.clock.now(), part });
      if (lateSeen.length === 1) await late.clock.sleep(10_000);
    }
    // Everything after the first part was generated while the consumer was busy, and arrives at once.
    const wokeAt = (lateSeen[0]?.at as number) + 10_000;
    expect(lateSeen.slice(1).every(({ at }) => at === wokeAt)).toBe(true);
    expect(lateSeen.at(-1)?.part.type).toBe('finish');
  });

  it('aborts while waiting for the next part, at the time of the abort', async () => {
    const clock = createVirtualClock();
    const model = createScriptedModel({ script: [{ text: 'word '.repeat(100) }], latency, clock });
    const controller = new AbortController();
    const abortAt = firstTokenMs + 290;
    void clock.sleep(abortAt).then(() => controller.abort());
    const timed = await timedStream(model, { ...request, signal: controller.signal });
    const last = timed.at(-1) as TimedPart;
    expect(last.part.type === 'error' && AbortedError.isInstance(last.part.error)).toBe(true);
    expect(last.at).toBe(abortAt);
    expect(timed.filter(({ part }) => part.type === 'text-delta').length).toBe(Math.floor(290 / 60));
    expect(model.calls[0]?.finishedAt).toBe(abortAt);
  });

  it('loses the connection right after the last part it sends, before the answer would have ended', async () => {
    const turn: ScriptedTurn = {
      text: 'Checking.',
      toolCalls: [{ id: 'c1', toolName: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' }],
      disconnect: true,
    };
    const timed = await timedStream(modelOf(turn));
    const last = timed.at(-1) as TimedPart;
    expect(last.part.type === 'error' && StreamInterruptedError.isInstance(last.part.error)).toBe(true);
    expect(last.at).toBe(timed.at(-2)?.at);
    const sent = timed.map(({ part }) => deltaText(part)).join('');
    expect(sent).toBe(`Checking.${'{"city":"Paris","unit":"celsius"}'.slice(0, 16)}`);
    const fullEnd = dueAt(
      countTokens('Checking.') +
        countTokens('get_weather') +
        countTokens('{"city":"Paris","unit":"celsius"}'),
    );
    expect(last.at).toBeLessThan(fullEnd);
  });

  it('rejects chunk sizes below 1 and setting both chunk options', () => {
    expect(() => createScriptedModel({ script: [], streamChunkTokens: 0 })).toThrow(
      expect.objectContaining({ code: 'invalid_script', path: 'streamChunkTokens' }),
    );
    expect(() => createScriptedModel({ script: [], streamChunkTokens: 2, streamChunkCharacters: 8 })).toThrow(
      InvalidScriptError,
    );
  });
});
