import { ProviderError, type RunEvent, registerSecret, type StreamPart } from '@org/core';
import { defineTool, ToolRegistry } from '@org/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answerParts, GatedStreamModel } from './__fixtures__/gated-stream-model.js';
import { runAgent, streamAgent } from './index.js';

interface Log {
  readonly started: string[];
  readonly aborted: string[];
}

function tools(log: Log, options: { lookupNeedsApproval?: boolean } = {}): ToolRegistry {
  const lookup = defineTool({
    name: 'lookup',
    description: 'Looks a word up.',
    input: z.object({ word: z.string() }),
    eager: true,
    ...(options.lookupNeedsApproval === true ? { needsApproval: true } : {}),
    execute: async ({ word }, { signal }) => {
      log.started.push(`lookup(${word})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 20);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          log.aborted.push(`lookup(${word})`);
          resolve();
        });
      });
      signal.throwIfAborted();
      return `${word}: a word`;
    },
  });
  const save = defineTool({
    name: 'save',
    description: 'Saves a note.',
    input: z.object({ note: z.string() }),
    execute: ({ note }) => {
      log.started.push(`save(${note})`);
      return 'saved';
    },
  });
  return ToolRegistry.from([lookup, save]);
}

const call = (id: string, toolName: string, args: object) => ({
  id,
  toolName,
  arguments: JSON.stringify(args),
});

const types = (events: readonly RunEvent[]) => events.map((event) => event.type);

describe('the streaming loop', () => {
  it('streams text deltas and tool-call deltas as events, with the same result and history as generate()', async () => {
    const answers = () => [
      answerParts({
        text: 'Let me look both up. ',
        toolCalls: [call('a', 'lookup', { word: 'cat' }), call('b', 'save', { note: 'x' })],
      }),
      answerParts({ text: 'A cat is a word, and the note is saved.' }),
    ];
    const events: RunEvent[] = [];
    const streamed = await runAgent({
      model: new GatedStreamModel(answers()),
      tools: tools({ started: [], aborted: [] }),
      task: 'Look up cat and save x.',
      onEvent: (event) => events.push(event),
    });
    const generated = await runAgent({
      model: new GatedStreamModel(answers(), { streaming: false }),
      tools: tools({ started: [], aborted: [] }),
      task: 'Look up cat and save x.',
    });
    expect(streamed.text).toBe('A cat is a word, and the note is saved.');
    expect(streamed.messages).toEqual(generated.messages);
    expect(streamed.usage).toEqual(generated.usage);
    const text = events
      .filter((event) => event.type === 'text-delta')
      .map((event) => (event.type === 'text-delta' ? `${event.step}:${event.delta}` : ''));
    expect(text.join('|')).toContain('0:');
    const stepText = (step: number) =>
      events
        .flatMap((event) => (event.type === 'text-delta' && event.step === step ? [event.delta] : []))
        .join('');
    expect(stepText(0)).toBe('Let me look both up. ');
    expect(stepText(1)).toBe('A cat is a word, and the note is saved.');
    const argumentDeltas = events.flatMap((event) =>
      event.type === 'tool-call-arguments-delta' && event.toolCallId === 'a' ? [event.delta] : [],
    );
    expect(argumentDeltas.join('')).toBe('{"word":"cat"}');
    expect(types(events).indexOf('tool-call-streaming-started')).toBeLessThan(
      types(events).indexOf('inference-finished'),
    );
  });

  it('starts an eager tool while the model is still writing; a non-eager tool waits for the whole answer', async () => {
    const log: Log = { started: [], aborted: [] };
    const model = new GatedStreamModel([
      answerParts({
        toolCalls: [call('a', 'lookup', { word: 'cat' }), call('b', 'save', { note: 'x' })],
        gateAfterCall: 1,
      }),
      answerParts({ text: 'Done.' }),
    ]);
    const events: RunEvent[] = [];
    const run = runAgent({ model, tools: tools(log), task: 'Go.', onEvent: (event) => events.push(event) });
    await model.atGate();
    // Both calls are complete in the stream, the answer is not: only the eager one runs.
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(log.started).toEqual(['lookup(cat)']);
    expect(types(events)).not.toContain('inference-finished');
    model.open();
    const result = await run;
    expect(result.finishReason).toBe('final-answer');
    expect(log.started).toEqual(['lookup(cat)', 'save(x)']);
    // Run once, announced once, answered once.
    expect(
      events
        .filter((event) => event.type === 'tool-call-started')
        .map((event) => event.type === 'tool-call-started' && event.action.id),
    ).toEqual(['a', 'b']);
    expect(result.observations.map((observation) => [observation.actionId, observation.status])).toEqual([
      ['a', 'success'],
      ['b', 'success'],
    ]);
  });

  for (const [name, options] of [
    ['eagerToolExecution: false', { eagerToolExecution: false }],
    ['a beforeToolUse hook (it must see the call first)', { hooks: { beforeToolUse: () => undefined } }],
  ] as const) {
    it(`starts nothing early with ${name}`, async () => {
      const log: Log = { started: [], aborted: [] };
      const model = new GatedStreamModel([
        answerParts({ toolCalls: [call('a', 'lookup', { word: 'cat' })], gateAfterCall: 0 }),
        answerParts({ text: 'Done.' }),
      ]);
      const run = runAgent({ model, tools: tools(log), task: 'Go.', ...options });
      await model.atGate();
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(log.started).toEqual([]);
      model.open();
      expect((await run).observations.map((observation) => observation.status)).toEqual(['success']);
      expect(log.started).toEqual(['lookup(cat)']);
    });
  }

  it('never starts a call that needs approval early', async () => {
    const log: Log = { started: [], aborted: [] };
    const model = new GatedStreamModel([
      answerParts({ toolCalls: [call('a', 'lookup', { word: 'cat' })], gateAfterCall: 0 }),
    ]);
    const run = runAgent({ model, tools: tools(log, { lookupNeedsApproval: true }), task: 'Go.' });
    await model.atGate();
    await new Promise((resolve) => setTimeout(resolve, 5));
    model.open();
    const result = await run;
    expect(result.finishReason).toBe('approval-required');
    expect(log.started).toEqual([]);
  });

  it('a step that pauses for approval keeps what ran early in its state; the resume does not run it again', async () => {
    const log: Log = { started: [], aborted: [] };
    const guarded = defineTool({
      name: 'publish',
      description: 'Publishes a note.',
      input: z.object({ note: z.string() }),
      needsApproval: true,
      execute: ({ note }) => {
        log.started.push(`publish(${note})`);
        return 'published';
      },
    });
    const registry = ToolRegistry.from([...tools(log).list(), guarded]);
    const paused = await runAgent({
      model: new GatedStreamModel([
        answerParts({
          toolCalls: [call('a', 'lookup', { word: 'cat' }), call('b', 'publish', { note: 'x' })],
        }),
      ]),
      tools: registry,
      task: 'Look up cat, publish x.',
    });
    expect(paused.finishReason).toBe('approval-required');
    expect(log.started).toEqual(['lookup(cat)']);
    expect(
      paused.state?.pending.early?.map((observation) => [observation.actionId, observation.status]),
    ).toEqual([['a', 'success']]);
    const resumed = await runAgent({
      model: new GatedStreamModel([answerParts({ text: 'Done.' })]),
      tools: registry,
      resume: { state: paused.state as NonNullable<typeof paused.state>, decisions: { b: true } },
    });
    expect(resumed.finishReason).toBe('final-answer');
    expect(log.started).toEqual(['lookup(cat)', 'publish(x)']);
    expect(resumed.observations.map((observation) => [observation.actionId, observation.status])).toEqual([
      ['a', 'success'],
      ['b', 'success'],
    ]);
  });

  it('a state whose early results name no call of its step is refused', async () => {
    const log: Log = { started: [], aborted: [] };
    const guarded = defineTool({
      name: 'publish',
      description: 'Publishes a note.',
      input: z.object({ note: z.string() }),
      needsApproval: true,
      execute: () => 'published',
    });
    const registry = ToolRegistry.from([...tools(log).list(), guarded]);
    const paused = await runAgent({
      model: new GatedStreamModel([
        answerParts({
          toolCalls: [call('a', 'lookup', { word: 'cat' }), call('b', 'publish', { note: 'x' })],
        }),
      ]),
      tools: registry,
      task: 'Go.',
    });
    const state = paused.state as NonNullable<typeof paused.state>;
    const forged = {
      ...state,
      pending: { ...state.pending, early: [{ ...(state.pending.early?.[0] as object), actionId: 'b' }] },
    };
    await expect(
      runAgent({
        model: new GatedStreamModel([answerParts({ text: 'Done.' })]),
        tools: registry,
        resume: { state: forged as unknown as typeof state, decisions: { b: true } },
      }),
    ).rejects.toThrow(/pending\.early\[0\]/);
  });

  it('aborts and reports eager calls when the stream fails after they started; nothing runs twice', async () => {
    const log: Log = { started: [], aborted: [] };
    const failing: (StreamPart | 'gate')[] = [
      { type: 'tool-call-start', toolCallId: 'a', toolName: 'lookup' },
      { type: 'tool-call-delta', toolCallId: 'a', argumentsDelta: '{"word":"cat"}' },
      { type: 'tool-call', toolCall: call('a', 'lookup', { word: 'cat' }) },
      'gate',
      { type: 'error', error: new ProviderError({ provider: 'gated', message: 'The connection was lost.' }) },
    ];
    const model = new GatedStreamModel([failing]);
    const events: RunEvent[] = [];
    const run = runAgent({ model, tools: tools(log), task: 'Go.', onEvent: (event) => events.push(event) });
    await model.atGate();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(log.started).toEqual(['lookup(cat)']);
    model.open();
    const result = await run;
    expect(result.finishReason).toBe('error');
    expect(result.error?.message).toContain('The connection was lost.');
    expect(log.aborted).toEqual(['lookup(cat)']);
    const finished = events.filter((event) => event.type === 'tool-call-finished');
    expect(finished.map((event) => event.type === 'tool-call-finished' && event.observation.status)).toEqual([
      'aborted',
    ]);
    // The model call ends first, then the call it had started is aborted and closed, then the run.
    expect(types(events).slice(-3)).toEqual(['inference-failed', 'tool-call-finished', 'run-finished']);
  });

  it('redacts a secret split across text deltas before any listener sees it', async () => {
    const secret = 'sk-streamed-0123456789abcdef';
    registerSecret(secret);
    const parts: StreamPart[] = [
      { type: 'text-delta', delta: 'The key is sk-stream' },
      { type: 'text-delta', delta: 'ed-0123456789' },
      { type: 'text-delta', delta: 'abcdef and that is all.' },
      {
        type: 'finish',
        finishReason: 'stop',
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        adjustments: [],
      },
    ];
    const stream = streamAgent({
      model: new GatedStreamModel([parts]),
      tools: tools({ started: [], aborted: [] }),
      task: 'Key?',
    });
    const deltas: string[] = [];
    for await (const event of stream) if (event.type === 'text-delta') deltas.push(event.delta);
    expect(deltas.join('')).not.toContain('0123456789');
    expect(deltas.join('')).toContain('and that is all.');
    expect((await stream.result).text).toContain(secret);
  });

  it("yields the text written before a tool call before any of that call's events (issue 27)", async () => {
    const parts: StreamPart[] = [
      { type: 'text-delta', delta: 'I will look ' },
      { type: 'text-delta', delta: 'up the word now.' },
      ...answerParts({ toolCalls: [call('a', 'lookup', { word: 'cat' })] }).flatMap((part) =>
        part === 'gate' ? [] : [part],
      ),
    ];
    const stream = streamAgent({
      model: new GatedStreamModel([parts, answerParts({ text: 'Done.' })]),
      tools: tools({ started: [], aborted: [] }),
      task: 'Look up cat.',
    });
    const seen: string[] = [];
    for await (const event of stream) {
      if (event.type === 'text-delta') seen.push(`text:${event.delta}`);
      else if (event.type.startsWith('tool-call')) seen.push(event.type);
    }
    const firstCallEvent = seen.findIndex((entry) => !entry.startsWith('text:'));
    expect(
      seen
        .slice(0, firstCallEvent)
        .map((entry) => entry.slice('text:'.length))
        .join(''),
    ).toBe('I will look up the word now.');
    expect(seen[firstCallEvent]).toBe('tool-call-streaming-started');
  });

  it('yields the reasoning written before the answer text before that text, and the reverse', async () => {
    const parts: StreamPart[] = [
      { type: 'reasoning-delta', delta: 'First I think ' },
      { type: 'reasoning-delta', delta: 'it over carefully.' },
      { type: 'text-delta', delta: 'Then I say ' },
      { type: 'text-delta', delta: 'it out loud.' },
      { type: 'reasoning-delta', delta: 'And think again.' },
      ...answerParts({}).flatMap((part) => (part === 'gate' ? [] : [part])),
    ];
    const stream = streamAgent({
      model: new GatedStreamModel([parts]),
      tools: tools({ started: [], aborted: [] }),
      task: 'Think.',
    });
    const seen: string[] = [];
    for await (const event of stream) {
      if (event.type === 'text-delta' || event.type === 'reasoning-delta') {
        const kind = event.type === 'text-delta' ? 'text' : 'reasoning';
        if (seen.at(-1)?.startsWith(`${kind}:`)) seen[seen.length - 1] += event.delta;
        else seen.push(`${kind}:${event.delta}`);
      }
    }
    expect(seen).toEqual([
      'reasoning:First I think it over carefully.',
      'text:Then I say it out loud.',
      'reasoning:And think again.',
    ]);
  });

  it("gives listeners every streamed call's complete arguments, before a call that started early runs on them", async () => {
    const streamingLookup = defineTool({
      name: 'lookup_many',
      description: 'Looks words up as they stream.',
      input: z.object({ words: z.array(z.string()) }),
      eager: true,
      execute: ({ words }) => words.join(','),
      executeStreaming: async (input) => {
        const { words } = await input.arguments;
        return words.join(',');
      },
    });
    const args = { words: ['cat', 'dog'] };
    const stream = streamAgent({
      model: new GatedStreamModel([
        answerParts({ toolCalls: [call('m', 'lookup_many', args), call('s', 'save', { note: 'x' })] }),
        answerParts({ text: 'Done.' }),
      ]),
      tools: ToolRegistry.from([streamingLookup, ...tools({ started: [], aborted: [] }).list()]),
      task: 'Look up cat and dog.',
    });
    const seen: RunEvent[] = [];
    for await (const event of stream) seen.push(event);
    const complete = seen.filter((event) => event.type === 'tool-call-arguments-complete');
    expect(complete.map((event) => [event.toolCallId, event.toolName, event.arguments, event.step])).toEqual([
      ['m', 'lookup_many', JSON.stringify(args), 0],
      ['s', 'save', JSON.stringify({ note: 'x' }), 0],
    ]);
    // The call that started early was announced with the arguments known then; the complete ones follow, each after
    // its call's deltas.
    const order = seen
      .filter((event) => 'toolCallId' in event || event.type === 'tool-call-started')
      .map((event) =>
        event.type === 'tool-call-started'
          ? `${event.type}:${event.action.id}`
          : `${event.type}:${(event as { toolCallId: string }).toolCallId}`,
      );
    expect(order.indexOf('tool-call-arguments-complete:m')).toBeGreaterThan(
      order.lastIndexOf('tool-call-arguments-delta:m'),
    );
    expect(order.indexOf('tool-call-arguments-complete:s')).toBeLessThan(
      order.indexOf('tool-call-started:s'),
    );
  });

  it('keeps the reasoning of a turn in its assistant message, for the provider to send back', async () => {
    const reasoning = {
      type: 'reasoning',
      provider: 'gated',
      text: 'Think first.',
      signature: 'sig-1',
    } as const;
    const parts: StreamPart[] = [
      { type: 'reasoning-delta', delta: 'Think ' },
      { type: 'reasoning-delta', delta: 'first.' },
      { type: 'reasoning', reasoning },
      ...answerParts({ toolCalls: [call('a', 'save', { note: 'x' })] }).flatMap((part) =>
        part === 'gate' ? [] : [part],
      ),
    ];
    const model = new GatedStreamModel([parts, answerParts({ text: 'Saved.' })]);
    const events: RunEvent[] = [];
    const result = await runAgent({
      model,
      tools: tools({ started: [], aborted: [] }),
      task: 'Save x.',
      onEvent: (event) => events.push(event),
    });
    expect(result.messages[1]).toMatchObject({ role: 'assistant', reasoning: [reasoning] });
    expect(model.requests[1]?.messages.find((message) => message.role === 'assistant')).toMatchObject({
      reasoning: [reasoning],
    });
    expect(events.flatMap((event) => (event.type === 'reasoning-delta' ? [event.delta] : [])).join('')).toBe(
      'Think first.',
    );
  });
});
