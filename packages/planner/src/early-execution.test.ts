// The edges of early execution found in review: calls a stream begins and never completes, ids used twice, the loop
// guard, the concurrency limit, a retried model call, and long text without spaces.
import { ProviderError, type RunEvent, registerSecret, type StreamPart } from '@org/core';
import { createToolPlanTool } from '@org/plan-executor';
import { defineTool, ToolRegistry } from '@org/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answerParts, GatedStreamModel } from './__fixtures__/gated-stream-model.js';
import { inProcessRunEffects, runAgent, streamAgent } from './index.js';

function lookupTools(log: string[], delayMs = 5) {
  let running = 0;
  const peak = { value: 0 };
  const lookup = defineTool({
    name: 'lookup',
    description: 'Looks a word up.',
    input: z.object({ word: z.string() }),
    eager: true,
    execute: async ({ word }, { signal }) => {
      log.push(`lookup(${word})`);
      running++;
      peak.value = Math.max(peak.value, running);
      try {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delayMs);
          signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve();
          });
        });
        signal.throwIfAborted();
        return `${word}!`;
      } finally {
        running--;
      }
    },
  });
  const save = defineTool({
    name: 'save',
    description: 'Saves a note.',
    input: z.object({ note: z.string() }),
    execute: ({ note }) => {
      log.push(`save(${note})`);
      return 'saved';
    },
  });
  const tools = new ToolRegistry([lookup, save]);
  return {
    tools,
    withPlans: ToolRegistry.compose(tools, new ToolRegistry([createToolPlanTool({ tools })])),
    peak,
  };
}

const call = (id: string, toolName: string, args: object) => ({
  id,
  toolName,
  arguments: JSON.stringify(args),
});
const plan = JSON.stringify({ steps: { a: { lookup: { word: 'cat' } } } });

/** Every tool-call-started has exactly one tool-call-finished. */
function expectPaired(events: readonly RunEvent[]): void {
  const started = events.flatMap((event) => (event.type === 'tool-call-started' ? [event.action.id] : []));
  const finished = events.flatMap((event) =>
    event.type === 'tool-call-finished' ? [event.observation.actionId] : [],
  );
  for (const id of started)
    expect(
      finished.filter((end) => end === id),
      id,
    ).toHaveLength(1);
}

describe('early execution at its edges', () => {
  it('a call the stream begins and never completes is stopped and closed; the run does not hang', async () => {
    const log: string[] = [];
    const { withPlans } = lookupTools(log);
    const orphan: StreamPart[] = [
      { type: 'tool-call-start', toolCallId: 'p1', toolName: 'execute_tool_plan' },
      { type: 'tool-call-delta', toolCallId: 'p1', argumentsDelta: plan },
      ...answerParts({ toolCalls: [call('s1', 'save', { note: 'x' })] }).flatMap((part) =>
        part === 'gate' ? [] : [part],
      ),
    ];
    const events: RunEvent[] = [];
    const result = await runAgent({
      model: new GatedStreamModel([orphan, answerParts({ text: 'Done.' })]),
      tools: withPlans,
      task: 'Go.',
      onEvent: (event) => events.push(event),
    });
    expect(result.finishReason).toBe('final-answer');
    expect(result.observations.map((observation) => observation.actionId)).toEqual(['s1']);
    expectPaired(events);
  });

  it('a second call under an id already used in the answer is renamed and runs once, the first keeps its own result', async () => {
    const log: string[] = [];
    const { withPlans } = lookupTools(log);
    const parts = answerParts({
      toolCalls: [
        call('x', 'save', { note: 'n' }),
        { id: 'x', toolName: 'execute_tool_plan', arguments: plan },
      ],
    });
    const events: RunEvent[] = [];
    const result = await runAgent({
      model: new GatedStreamModel([parts, answerParts({ text: 'Done.' })]),
      tools: withPlans,
      task: 'Go.',
      onEvent: (event) => events.push(event),
    });
    expect(log.sort()).toEqual(['lookup(cat)', 'save(n)']);
    expect(result.observations.map((observation) => [observation.actionId, observation.status])).toEqual([
      ['x', 'success'],
      ['x_s0_1', 'success'],
    ]);
    expectPaired(events);
  });

  it('never starts early a call the loop guard would refuse', async () => {
    const log: string[] = [];
    const { tools } = lookupTools(log);
    const same = () => answerParts({ toolCalls: [call(`c${log.length}`, 'lookup', { word: 'same' })] });
    const result = await runAgent({
      model: new GatedStreamModel([
        answerParts({ toolCalls: [call('c1', 'lookup', { word: 'same' })] }),
        answerParts({ toolCalls: [call('c2', 'lookup', { word: 'same' })] }),
        same(),
      ]),
      tools,
      task: 'Go.',
      maxIdenticalToolCalls: 1,
    });
    expect(result.finishReason).toBe('loop-guard');
    expect(log).toEqual(['lookup(same)']);
  });

  it('calls started early count against maxConcurrency with the rest of the step', async () => {
    const log: string[] = [];
    const { tools, peak } = lookupTools(log, 20);
    const result = await runAgent({
      model: new GatedStreamModel([
        answerParts({ toolCalls: [call('a', 'lookup', { word: 'a' }), call('b', 'lookup', { word: 'b' })] }),
        answerParts({ text: 'Done.' }),
      ]),
      tools,
      task: 'Go.',
      maxConcurrency: 1,
    });
    expect(result.observations.map((observation) => observation.status)).toEqual(['success', 'success']);
    expect(peak.value).toBe(1);
  });

  it('a model call retried by the run effects aborts what the lost attempt started, and runs the new attempt once', async () => {
    const log: string[] = [];
    const { tools } = lookupTools(log, 20);
    const lost: StreamPart[] = [
      ...answerParts({ toolCalls: [call('a', 'lookup', { word: 'lost' })] }).flatMap((part) =>
        part === 'gate' || part.type === 'finish' ? [] : [part],
      ),
      {
        type: 'error',
        error: new ProviderError({ provider: 'gated', message: 'The connection was lost.', retryable: true }),
      },
    ];
    const events: RunEvent[] = [];
    const result = await runAgent({
      model: new GatedStreamModel([
        lost,
        answerParts({ toolCalls: [call('a', 'lookup', { word: 'kept' })] }),
        answerParts({ text: 'Done.' }),
      ]),
      tools,
      task: 'Go.',
      // A durable runtime retries a failed model call.
      effects: {
        ...inProcessRunEffects(),
        callModel: async (_info, run) => {
          try {
            return await run();
          } catch {
            return run();
          }
        },
      },
      onEvent: (event) => events.push(event),
    });
    expect(result.finishReason).toBe('final-answer');
    expect(result.observations.map((observation) => [observation.actionId, observation.status])).toEqual([
      ['a', 'success'],
    ]);
    expect(result.observations[0]?.output).toBe('kept!');
    expect(log).toEqual(['lookup(lost)', 'lookup(kept)']);
    // Each attempt's call is announced and closed in turn: the lost one aborted, the kept one answered.
    expect(
      events.flatMap((event) =>
        event.type === 'tool-call-started'
          ? ['started']
          : event.type === 'tool-call-finished'
            ? [`finished ${event.observation.status}`]
            : [],
      ),
    ).toEqual(['started', 'finished aborted', 'started', 'finished success']);
  });

  it('a secret at the end of a long text without spaces is never emitted in part', async () => {
    const secret = 'sk-abcdefghijklmnop';
    registerSecret(secret);
    const parts: StreamPart[] = [
      { type: 'text-delta', delta: `${'.'.repeat(8188)}sk-abc` },
      { type: 'text-delta', delta: 'defghijklmnop' },
      {
        type: 'finish',
        finishReason: 'stop',
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        adjustments: [],
      },
    ];
    const stream = streamAgent({ model: new GatedStreamModel([parts]), tools: [], task: 'Go.' });
    const deltas: string[] = [];
    for await (const event of stream) if (event.type === 'text-delta') deltas.push(event.delta);
    const joined = deltas.join('');
    expect(joined).not.toContain('sk-abc');
    expect(joined.startsWith('.'.repeat(7000))).toBe(true);
    expect(deltas.length).toBeGreaterThan(1);
  });
});
