import type { RunEvent } from '@org/core';
import { createToolPlanTool } from '@org/plan-executor';
import { runAgent } from '@org/planner';
import {
  createScriptedModel,
  createVirtualClock,
  LATENCY_PROFILES,
  type ScriptedTurn,
} from '@org/provider-scripted';
import { defineTool } from '@org/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLiveTrace } from './index.js';

/** A run of a streaming scripted model: two eager lookups in one answer, then `answer` as text. */
async function traceOf(answer: ScriptedTurn, inline: boolean): Promise<string> {
  const clock = createVirtualClock();
  const lookup = defineTool({
    name: 'lookup',
    description: 'Looks a key up.',
    input: z.object({ key: z.string() }),
    eager: true,
    execute: async ({ key }, context) => {
      await clock.sleep(300, context.signal);
      return { key, found: true };
    },
  });
  const model = createScriptedModel({
    clock,
    latency: LATENCY_PROFILES.typical,
    script: [
      {
        toolCalls: [
          { id: 'first', toolName: 'lookup', arguments: { key: 'a first key, long enough to stream' } },
          { id: 'second', toolName: 'lookup', arguments: { key: 'b' } },
        ],
      },
      answer,
    ],
  });
  let output = '';
  const trace = createLiveTrace({
    startedAt: clock.now(),
    inline,
    write: (text) => {
      output += text;
    },
  });
  const result = await runAgent({
    model,
    tools: [lookup],
    task: 'Look up a and b.',
    clock,
    onEvent: trace.onEvent,
  });
  trace.end();
  expect(result.finishReason).toBe('final-answer');
  return output;
}

const STAMP = String.raw`  \[\+ +(\d+\.\d{3}) s\]`;

describe('createLiveTrace', () => {
  it('in a log, prints each stretch of streamed text once, stamped with when it started and ended', async () => {
    const output = await traceOf({ text: 'Both keys were found, and here is why.' }, false);
    const lines = output.split('\n');
    expect(output.endsWith('\n')).toBe(true);
    const written = lines.filter((line) => line.includes('wrote'));
    expect(written).toHaveLength(1);
    const match = new RegExp(
      `^${STAMP} model call 2 wrote, streamed from \\+(\\d+\\.\\d{3}) s: Both keys were found, and here is why\\.$`,
    ).exec(written[0] ?? '');
    expect(match).not.toBeNull();
    // It began streaming before it ended.
    expect(Number(match?.[2])).toBeLessThan(Number(match?.[1]));
    // Right before the line that closes the call.
    expect(lines[lines.indexOf(written[0] as string) + 1]).toMatch(/model call 2 ← answered with text/);
  });

  it('marks the call that started while the model was still writing, and not the one that ended the answer', async () => {
    const output = await traceOf({ text: 'Done.' }, false);
    const lines = output.split('\n');
    expect(lines.filter((line) => line.includes('… writing a call to lookup'))).toHaveLength(2);
    expect(lines).toContainEqual(
      expect.stringMatching(
        /tool lookup \{"key":"a first key, long enough to stream"\} started early, while model call 1 was still writing$/,
      ),
    );
    // `second` is complete in the very instant the answer is: it starts then, which is not early.
    expect(lines).toContainEqual(expect.stringMatching(/tool lookup \{"key":"b"\} started$/));
    const early = lines.findIndex((line) => line.includes('started early'));
    const secondWriting = lines.findLastIndex((line) => line.includes('… writing a call to lookup'));
    const finished = lines.findIndex((line) => line.includes('model call 1 ←'));
    // In time order: the early start comes before the model went on to write the second call.
    expect(early).toBeLessThan(secondWriting);
    expect(secondWriting).toBeLessThan(finished);
  });

  it('prints a streamed plan call with its arguments once complete, never as `execute_tool_plan {}`', async () => {
    const clock = createVirtualClock();
    const lookup = defineTool({
      name: 'lookup',
      description: 'Looks a key up.',
      input: z.object({ key: z.string() }),
      eager: true,
      execute: async ({ key }, context) => {
        await clock.sleep(300, context.signal);
        return { key, found: true };
      },
    });
    const plan = { steps: [{ id: 'a', tool: 'lookup', arguments: { key: 'a key long enough to stream' } }] };
    const model = createScriptedModel({
      clock,
      latency: LATENCY_PROFILES.typical,
      script: [
        { toolCalls: [{ id: 'plan', toolName: 'execute_tool_plan', arguments: plan }] },
        { text: 'Done.' },
      ],
    });
    let output = '';
    const trace = createLiveTrace({ startedAt: clock.now(), write: (text) => (output += text) });
    const result = await runAgent({
      model,
      tools: [lookup, createToolPlanTool({ tools: [lookup] })],
      task: 'Look up a.',
      clock,
      onEvent: trace.onEvent,
    });
    trace.end();
    expect(result.finishReason).toBe('final-answer');
    const lines = output.split('\n');
    expect(lines).toContainEqual(
      expect.stringMatching(/tool execute_tool_plan \(its arguments still streaming\) started early/),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        /tool execute_tool_plan arguments complete: \{"steps":\[\{"id":"a","tool":"lookup","arguments":\{"key":"a key long enough to stream"\}\}\]\}$/,
      ),
    );
    expect(output).not.toContain('execute_tool_plan {}');
  });

  it('on a terminal, prints the text as it streams on the line the model is writing', async () => {
    const output = await traceOf({ text: 'Both keys were found, and here is why.' }, true);
    expect(output).toMatch(
      new RegExp(
        `${STAMP} model call 2 writes: Both keys were found, and here is why\\.\\n${STAMP} model call 2 ←`,
      ),
    );
    expect(output).not.toContain('wrote, streamed from');
  });

  it('escapes control and bidirectional characters of model text, in a log and on a terminal', async () => {
    const hostile = 'Red \u001b[31malert\u001b[0m \u202eevil\nsecond line';
    const log = await traceOf({ text: hostile }, false);
    const terminal = await traceOf({ text: hostile }, true);
    for (const output of [log, terminal]) {
      expect(output).not.toContain('\u001b');
      expect(output).not.toContain('\u202e');
      expect(output).toContain('\\u001b[31malert\\u001b[0m \\u202eevil');
    }
    // A log keeps one line per event; a terminal shows the line break, indented under the text.
    expect(log).toContain('evil\\nsecond line');
    expect(terminal).toMatch(/evil\n {16}second line/);
  });

  it('counts what it does not show of a long text', async () => {
    const output = await traceOf({ text: 'word '.repeat(200).trim() }, false);
    expect(output).toMatch(/wrote, streamed from \+\d+\.\d{3} s: (word ){80}… \(599 more characters\)\n/);
  });

  it('says a call started before its own arguments were complete, and prints them once complete (a tool that reads them as they stream)', () => {
    let output = '';
    const trace = createLiveTrace({ startedAt: 0, write: (text) => (output += text) });
    const events: RunEvent[] = [
      {
        type: 'inference-started',
        timestamp: 0,
        step: 0,
        modelId: 'm',
        provider: 'p',
        messageCount: 2,
        toolCount: 1,
        toolChoice: { type: 'auto' },
      },
      {
        type: 'tool-call-streaming-started',
        timestamp: 500,
        step: 0,
        toolCallId: 'plan',
        toolName: 'execute_tool_plan',
      },
      {
        type: 'tool-call-arguments-delta',
        timestamp: 510,
        step: 0,
        toolCallId: 'plan',
        delta: '{"steps":[{"id"',
      },
      {
        type: 'tool-call-started',
        timestamp: 510,
        action: { id: 'plan', toolName: 'execute_tool_plan', args: {} },
      },
      { type: 'plan-step-started', timestamp: 700, planId: 'plan', stepId: 'a', toolName: 'lookup' },
      { type: 'tool-call-arguments-delta', timestamp: 800, step: 0, toolCallId: 'plan', delta: ':"b"}]}' },
      {
        type: 'tool-call-arguments-complete',
        timestamp: 800,
        step: 0,
        toolCallId: 'plan',
        toolName: 'execute_tool_plan',
        arguments: '{"steps":[{"id":"b"}]}',
      },
      {
        type: 'inference-finished',
        timestamp: 900,
        step: 0,
        finishReason: 'tool-calls',
        usage: { inputTokens: 10, outputTokens: 20, totalTokens: 30 },
        toolCalls: [{ id: 'plan', toolName: 'execute_tool_plan', arguments: '{"steps":[]}' }],
        adjustments: [],
        durationMs: 900,
      },
      { type: 'plan-step-started', timestamp: 950, planId: 'plan', stepId: 'b', toolName: 'lookup' },
    ];
    for (const event of events) trace.onEvent(event);
    trace.end();
    expect(output.split('\n')).toEqual([
      '  [+  0.000 s] model call 1 → 2 messages, 1 tools, tool choice auto',
      '  [+  0.500 s] model call 1 … writing a call to execute_tool_plan',
      '  [+  0.510 s] tool execute_tool_plan (its arguments still streaming) started early, while model call 1 was still writing',
      '  [+  0.700 s]     plan step a (lookup) started early, while model call 1 was still writing',
      '  [+  0.800 s] tool execute_tool_plan arguments complete: {"steps":[{"id":"b"}]}',
      '  [+  0.900 s] model call 1 ← asked for 1 tool call: execute_tool_plan (10 in / 20 out tokens, 900 ms)',
      '  [+  0.950 s]     plan step b (lookup) started',
      '',
    ]);
  });
});
