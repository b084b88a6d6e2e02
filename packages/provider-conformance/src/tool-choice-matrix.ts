import {
  InvalidToolChoiceError,
  type Message,
  type ModelRequest,
  type ToolCall,
  ToolChoice,
  type ToolChoiceMode,
  UnsupportedToolChoiceError,
} from '@org/core';
import { describe, expect, it } from 'vitest';
import {
  CONFORMANCE_TOOLS,
  HISTORY_WITH_TOOL_CALLS,
  HISTORY_WITHOUT_TOOL_CALLS,
} from './conformance-fixtures.js';
import { type CallMode, callModel, errorOfCall } from './drive-model.js';
import { expectToolCalls, expectWireHistory, expectWireTools, hasAdjustment } from './expectations.js';
import type { ConformanceHarness, ResponseReply } from './harness.js';
import { withFixture } from './with-fixture.js';

const MODES: readonly ToolChoiceMode[] = ['auto', 'required', 'none', 'tool'];
const CALL_MODES: readonly CallMode[] = ['generate', 'stream'];

function choiceFor(mode: ToolChoiceMode): ToolChoice {
  switch (mode) {
    case 'auto':
      return ToolChoice.auto();
    case 'required':
      return ToolChoice.required();
    case 'none':
      return ToolChoice.none();
    case 'tool':
      return ToolChoice.tool('get_weather');
  }
}

/** The answer a well-behaved model gives under each mode: calls when allowed, one or two of them. */
function replyFor(mode: ToolChoiceMode, parallel: boolean): ResponseReply {
  if (mode === 'none') {
    return {
      type: 'response',
      text: 'Paris is sunny; the docs do not mention rain.',
      usage: { inputTokens: 40, outputTokens: 12 },
    };
  }
  const weather: ToolCall = {
    id: 'call_paris',
    toolName: 'get_weather',
    arguments: '{"city":"Paris","unit":"celsius"}',
  };
  const second: ToolCall =
    mode === 'tool'
      ? { id: 'call_lyon', toolName: 'get_weather', arguments: '{"city":"Lyon","unit":"celsius"}' }
      : { id: 'call_docs', toolName: 'search_docs', arguments: '{"query":"rain policy","limit":5}' };
  return {
    type: 'response',
    ...(mode === 'auto' ? { text: 'Let me check.' } : {}),
    toolCalls: parallel ? [weather, second] : [weather],
    usage: { inputTokens: 40, outputTokens: 25 },
  };
}

/**
 * The matrix: every tool-choice mode × parallel calls on / off × a history with and without tool calls ×
 * `generate()` and `stream()`. Each case checks what went on the wire and that the scripted calls come back intact.
 */
export function registerToolChoiceMatrix(harness: ConformanceHarness): void {
  describe('tool choice matrix', () => {
    for (const mode of MODES) {
      for (const parallel of [true, false]) {
        for (const [historyName, history] of [
          ['plain history', HISTORY_WITHOUT_TOOL_CALLS],
          ['history with tool calls', HISTORY_WITH_TOOL_CALLS],
        ] as const) {
          for (const callMode of CALL_MODES) {
            it(`${mode} · parallel ${parallel ? 'on' : 'off'} · ${historyName} · ${callMode}`, async () => {
              await withFixture(harness, async (fixture) => {
                await runMatrixCase(fixture, { mode, parallel, history, callMode });
              });
            });
          }
        }
      }
    }

    for (const callMode of CALL_MODES) {
      it(`no tools offered: none on the wire, and no tool choice · ${callMode}`, async () => {
        await withFixture(harness, async (fixture) => {
          fixture.enqueue({ type: 'response', text: 'Hello!', usage: { inputTokens: 8, outputTokens: 2 } });
          const response = await callModel(fixture.model, { messages: HISTORY_WITHOUT_TOOL_CALLS }, callMode);
          expect(response.text).toBe('Hello!');
          expect(response.toolCalls).toEqual([]);
          const [wire] = fixture.requests();
          expect(wire?.tools, 'no tools on the wire').toEqual([]);
          expect(wire?.toolChoice, 'no tool choice on the wire').toBeUndefined();
        });
      });

      it(`a named tool that is not offered is refused before sending · ${callMode}`, async () => {
        await withFixture(harness, async (fixture) => {
          const error = await errorOfCall(
            fixture.model,
            {
              messages: HISTORY_WITHOUT_TOOL_CALLS,
              tools: CONFORMANCE_TOOLS,
              toolChoice: ToolChoice.tool('get_wether'),
            },
            callMode,
          );
          expect(
            InvalidToolChoiceError.isInstance(error),
            `InvalidToolChoiceError, got ${String(error)}`,
          ).toBe(true);
          expect(fixture.requests(), 'nothing sent').toHaveLength(0);
        });
      });
    }
  });
}

async function runMatrixCase(
  fixture: Parameters<Parameters<typeof withFixture>[1]>[0],
  options: { mode: ToolChoiceMode; parallel: boolean; history: readonly Message[]; callMode: CallMode },
): Promise<void> {
  const { mode, parallel, history, callMode } = options;
  const { model } = fixture;
  const support = model.capabilities.toolChoice[mode];
  const request: ModelRequest = {
    messages: history,
    tools: CONFORMANCE_TOOLS,
    toolChoice: choiceFor(mode),
    parallelToolCalls: parallel,
  };

  if (support === 'unsupported') {
    const error = await errorOfCall(model, request, callMode);
    expect(
      UnsupportedToolChoiceError.isInstance(error),
      `UnsupportedToolChoiceError, got ${String(error)}`,
    ).toBe(true);
    expect(fixture.requests(), 'nothing sent for an unsupported mode').toHaveLength(0);
    return;
  }

  const reply = replyFor(mode, parallel && model.capabilities.parallelToolCalls);
  fixture.enqueue(reply);
  const response = await callModel(model, request, callMode);

  expect(response.text).toBe(reply.text ?? '');
  expectToolCalls(response.toolCalls, reply.toolCalls ?? []);
  expect(response.finishReason).toBe((reply.toolCalls?.length ?? 0) > 0 ? 'tool-calls' : 'stop');

  const requests = fixture.requests();
  expect(requests, 'one request on the wire').toHaveLength(1);
  const wire = requests[0]!;
  expect(wire.stream, 'stream flag on the wire').toBe(callMode === 'stream');

  if (support === 'native') {
    if (mode === 'auto') expect([undefined, 'auto'], 'wire tool choice').toContain(wire.toolChoice?.type);
    else expect(wire.toolChoice, 'wire tool choice').toEqual(request.toolChoice);
  } else {
    expect(
      hasAdjustment(response.adjustments, 'tool-choice-emulated', 'tools-dropped'),
      `an emulated '${mode}' is reported as an Adjustment`,
    ).toBe(true);
  }

  if (mode !== 'none') {
    if (model.capabilities.parallelToolCalls) {
      if (parallel) expect(wire.parallelToolCalls, 'parallel calls not disabled').not.toBe(false);
      else expect(wire.parallelToolCalls, 'parallel calls disabled on the wire').toBe(false);
    } else if (!parallel) {
      expect(
        hasAdjustment(response.adjustments, 'setting-ignored'),
        'turning parallel calls off on a model that cannot is reported',
      ).toBe(true);
    }
  }

  expectWireTools(wire, CONFORMANCE_TOOLS, response);
  expectWireHistory(wire, history, response);
}
