import type { BaseEvent } from '@ag-ui/core';
import type { RunEvent } from '@org/core';
import { describe, expect, it } from 'vitest';
import { eventOrderProblems } from './__fixtures__/event-order.js';
import { AgUiEventMapper } from './event-mapper.js';

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
const at = { timestamp: 0, runId: 'r' };

/** Maps loop events between a RUN_STARTED and a RUN_FINISHED, and checks the stream's order. */
function mapAll(events: readonly RunEvent[], frontEndToolNames: readonly string[] = []): BaseEvent[] {
  const mapper = new AgUiEventMapper({ runId: 'r', frontEndToolNames: new Set(frontEndToolNames) });
  const out: BaseEvent[] = [{ type: 'RUN_STARTED', threadId: 't', runId: 'r' } as BaseEvent];
  for (const event of events) out.push(...(mapper.map(event) as BaseEvent[]));
  out.push(...(mapper.closeAll() as BaseEvent[]), {
    type: 'RUN_FINISHED',
    threadId: 't',
    runId: 'r',
  } as BaseEvent);
  expect(eventOrderProblems(out)).toEqual([]);
  return out;
}

const inferenceStarted: RunEvent = {
  ...at,
  type: 'inference-started',
  step: 0,
  modelId: 'm',
  provider: 'p',
  messageCount: 1,
  toolCount: 1,
  toolChoice: { type: 'auto' },
};
const inferenceFinished = (toolCalls: { id: string; toolName: string; arguments: string }[]): RunEvent => ({
  ...at,
  type: 'inference-finished',
  step: 0,
  finishReason: 'tool-calls',
  usage,
  toolCalls,
  adjustments: [],
  durationMs: 1,
});

describe('AgUiEventMapper', () => {
  it('renders calls that name a parent call (code mode) as nested calls of it, generically', () => {
    const events = mapAll([
      inferenceStarted,
      inferenceFinished([{ id: 'code_1', toolName: 'run_code', arguments: '{"code":"..."}' }]),
      { ...at, type: 'tool-call-started', action: { id: 'code_1', toolName: 'run_code', args: {} } },
      {
        ...at,
        type: 'tool-call-started',
        action: { id: 'code_1/call-1', toolName: 'get_weather', args: { city: 'Paris' } },
        parentToolCallId: 'code_1',
      } as RunEvent,
      {
        ...at,
        type: 'tool-call-finished',
        observation: {
          actionId: 'code_1/call-1',
          toolName: 'get_weather',
          status: 'success',
          output: 18,
          durationMs: 1,
        },
        parentToolCallId: 'code_1',
      } as RunEvent,
      {
        ...at,
        type: 'tool-call-finished',
        observation: {
          actionId: 'code_1',
          toolName: 'run_code',
          status: 'success',
          output: 'done',
          durationMs: 2,
        },
      },
    ]);
    const starts = events.filter((event) => event.type === 'TOOL_CALL_START') as unknown as Record<
      string,
      unknown
    >[];
    expect(starts[1]).toMatchObject({
      toolCallId: 'code_1/call-1',
      toolCallName: 'get_weather',
      parentMessageId: starts[0]?.parentMessageId,
      metadata: { parentToolCallId: 'code_1' },
    });
    const results = events.filter((event) => event.type === 'TOOL_CALL_RESULT') as unknown as Record<
      string,
      unknown
    >[];
    expect(results.map((event) => [event.toolCallId, event.content])).toEqual([
      ['code_1/call-1', '18'],
      ['code_1', 'done'],
    ]);
  });

  it('holds the result of an eager call that finished while its model call streamed until the call ends', () => {
    const events = mapAll([
      inferenceStarted,
      { ...at, type: 'tool-call-streaming-started', step: 0, toolCallId: 'c1', toolName: 'lookup' },
      { ...at, type: 'tool-call-arguments-delta', step: 0, toolCallId: 'c1', delta: '{"word":"cat"}' },
      { ...at, type: 'tool-call-started', action: { id: 'c1', toolName: 'lookup', args: { word: 'cat' } } },
      {
        ...at,
        type: 'tool-call-finished',
        observation: {
          actionId: 'c1',
          toolName: 'lookup',
          status: 'success',
          output: 'a cat',
          durationMs: 1,
        },
      },
      { ...at, type: 'text-delta', step: 0, delta: 'Looked it up.' },
      inferenceFinished([{ id: 'c1', toolName: 'lookup', arguments: '{"word":"cat"}' }]),
    ]);
    const types: string[] = events.map((event) => event.type);
    expect(types.indexOf('TOOL_CALL_RESULT')).toBe(types.indexOf('TOOL_CALL_END') + 1);
  });

  it('announces a call no model call streamed (a ReAct decision) with its whole arguments', () => {
    const events = mapAll([
      inferenceStarted,
      { ...inferenceFinished([]), text: '{"type":"call_tool"}' } as RunEvent,
      {
        ...at,
        type: 'tool-call-started',
        action: { id: 'react_1', toolName: 'lookup', args: { word: 'dog' } },
      },
      {
        ...at,
        type: 'tool-call-finished',
        observation: {
          actionId: 'react_1',
          toolName: 'lookup',
          status: 'success',
          output: 'a dog',
          durationMs: 1,
        },
      },
    ]);
    const args = events.find((event) => event.type === 'TOOL_CALL_ARGS') as unknown as { delta: string };
    expect(JSON.parse(args.delta)).toEqual({ word: 'dog' });
  });

  it('leaves a front-end call without a result, and sends what AG-UI has no word for as CUSTOM events', () => {
    const events = mapAll(
      [
        inferenceStarted,
        inferenceFinished([{ id: 'fe_1', toolName: 'confirm', arguments: '{}' }]),
        {
          ...at,
          type: 'tool-call-finished',
          observation: {
            actionId: 'fe_1',
            toolName: 'confirm',
            status: 'success',
            output: {},
            durationMs: 0,
          },
        },
        {
          ...at,
          type: 'adjustment',
          adjustment: { kind: 'tool-choice-emulated', message: 'emulated' },
        } as RunEvent,
      ],
      ['confirm'],
    );
    expect(events.some((event) => event.type === 'TOOL_CALL_RESULT')).toBe(false);
    // Mapped events carry the run event's time, as the integer milliseconds AG-UI requires.
    expect(events.slice(1, -1).every((event) => event.timestamp === 0)).toBe(true);
    expect(events.find((event) => event.type === 'CUSTOM')).toMatchObject({ name: 'adjustment' });
  });

  it('closes what a failed model call left open', () => {
    const events = mapAll([
      inferenceStarted,
      { ...at, type: 'reasoning-delta', step: 0, delta: 'Hmm.' },
      { ...at, type: 'text-delta', step: 0, delta: 'Partial' },
      { ...at, type: 'tool-call-streaming-started', step: 0, toolCallId: 'c1', toolName: 'lookup' },
      {
        ...at,
        type: 'inference-failed',
        step: 0,
        durationMs: 1,
        error: { code: 'stream_interrupted', message: 'x' },
      },
    ]);
    expect(events.map((event) => event.type).slice(-5)).toEqual([
      'TOOL_CALL_START',
      'TEXT_MESSAGE_END',
      'TOOL_CALL_END',
      'STEP_FINISHED',
      'RUN_FINISHED',
    ]);
  });
});
