import { describe, expect, it } from 'vitest';
import {
  applyToolCallPolicy,
  isToolCallAccepted,
  reportToolCallPolicy,
  type ToolCall,
  ToolCallPolicy,
  ToolChoice,
} from './index.js';

const context = { provider: 'test-provider' };
const call = (id: string, toolName: string): ToolCall => ({ id, toolName, arguments: '{"q":1}' });
const weather = call('call_1', 'get_weather');
const time = call('call_2', 'get_time');

describe('ToolCallPolicy', () => {
  it('maps each emulated tool choice onto the check its answer needs', () => {
    expect(ToolCallPolicy.forEmulatedChoice(ToolChoice.auto())).toEqual({ kind: 'accept-all' });
    expect(ToolCallPolicy.forEmulatedChoice(ToolChoice.none())).toEqual({ kind: 'reject-all' });
    expect(ToolCallPolicy.forEmulatedChoice(ToolChoice.required())).toEqual({ kind: 'expect-any' });
    expect(ToolCallPolicy.forEmulatedChoice(ToolChoice.tool('get_weather'))).toEqual({
      kind: 'expect-tool',
      toolName: 'get_weather',
    });
  });

  it('decides per tool name whether a call gets through', () => {
    expect(isToolCallAccepted(ToolCallPolicy.acceptAll(), 'x')).toBe(true);
    expect(isToolCallAccepted(ToolCallPolicy.expectAny(), 'x')).toBe(true);
    expect(isToolCallAccepted(ToolCallPolicy.rejectAll(), 'x')).toBe(false);
    expect(isToolCallAccepted(ToolCallPolicy.expectTool('get_weather'), 'get_weather')).toBe(true);
    expect(isToolCallAccepted(ToolCallPolicy.expectTool('get_weather'), 'get_time')).toBe(false);
  });
});

describe('applyToolCallPolicy', () => {
  it('lets every call through unreported under accept-all', () => {
    expect(applyToolCallPolicy(ToolCallPolicy.acceptAll(), [weather, time], context)).toEqual({
      toolCalls: [weather, time],
      adjustments: [],
    });
  });

  it("rejects every call under an emulated 'none', reporting ids, names and raw arguments", () => {
    const checked = applyToolCallPolicy(ToolCallPolicy.rejectAll(), [weather], context);
    expect(checked.toolCalls).toEqual([]);
    expect(checked.adjustments).toEqual([
      {
        kind: 'tool-calls-rejected',
        message: expect.stringContaining("'get_weather'"),
        details: {
          provider: 'test-provider',
          reason: 'tool-choice-none',
          toolCalls: [{ id: 'call_1', toolName: 'get_weather', arguments: '{"q":1}' }],
        },
      },
    ]);
  });

  it('keeps the named tool and rejects the others under an emulated named choice', () => {
    const checked = applyToolCallPolicy(ToolCallPolicy.expectTool('get_weather'), [time, weather], context);
    expect(checked.toolCalls).toEqual([weather]);
    expect(checked.adjustments.map((adjustment) => adjustment.kind)).toEqual(['tool-calls-rejected']);
    expect(checked.adjustments[0]?.details).toMatchObject({ reason: 'not-the-named-tool' });
    expect(checked.adjustments[0]?.message).toContain("only allows 'get_weather'");
  });

  it('reports an emulated named choice the model ignored, as well as the call it made instead', () => {
    const checked = applyToolCallPolicy(ToolCallPolicy.expectTool('get_weather'), [time], context);
    expect(checked.toolCalls).toEqual([]);
    expect(checked.adjustments.map((adjustment) => adjustment.kind)).toEqual([
      'tool-calls-rejected',
      'tool-choice-emulated',
    ]);
    expect(checked.adjustments[1]?.details).toEqual({
      provider: 'test-provider',
      mode: 'tool',
      toolName: 'get_weather',
      honoured: false,
    });
  });

  it("reports an emulated 'required' answered without a call, and nothing when a call came", () => {
    expect(applyToolCallPolicy(ToolCallPolicy.expectAny(), [], context).adjustments).toEqual([
      {
        kind: 'tool-choice-emulated',
        message: expect.stringContaining("'required' was not honoured"),
        details: { provider: 'test-provider', mode: 'required', honoured: false },
      },
    ]);
    expect(applyToolCallPolicy(ToolCallPolicy.expectAny(), [time], context).adjustments).toEqual([]);
  });
});

describe('reportToolCallPolicy', () => {
  it('reports calls a stream assembler already sorted, the same way as applyToolCallPolicy', () => {
    const policy = ToolCallPolicy.expectTool('get_weather');
    expect(reportToolCallPolicy(policy, [weather], [time], context)).toEqual(
      applyToolCallPolicy(policy, [weather, time], context).adjustments,
    );
  });
});
