import type { ModelResponse } from '@org/core';
import { describe, expect, it } from 'vitest';
import { CONFORMANCE_TOOLS, HISTORY_WITH_TOOL_CALLS } from './conformance-fixtures.js';
import { expectToolCalls, expectWireHistory, expectWireTools } from './expectations.js';
import { projectModelRequest } from './project-model-request.js';

const RESPONSE: ModelResponse = {
  text: '',
  toolCalls: [],
  finishReason: 'stop',
  usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  adjustments: [],
};

// The suite is only worth something if its checks fail on the faults adapters make; these pin that down.
describe('the suite catches broken adapters', () => {
  it('a call whose arguments changed fails, while re-serialised but equal arguments pass', () => {
    const expected = [
      { id: 'call_1', toolName: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
    ];
    expect(() =>
      expectToolCalls(
        [{ id: 'call_1', toolName: 'get_weather', arguments: '{ "unit": "celsius", "city": "Paris" }' }],
        expected,
      ),
    ).not.toThrow();
    expect(() =>
      expectToolCalls([{ id: 'call_1', toolName: 'get_weather', arguments: '{"city":"Pari' }], expected),
    ).toThrow();
    expect(() => expectToolCalls([], expected)).toThrow();
    expect(() => expectToolCalls([...expected, ...expected], expected)).toThrow();
  });

  it('a history whose tool result was dropped or moved fails', () => {
    const wire = projectModelRequest({ messages: HISTORY_WITH_TOOL_CALLS }, { stream: false });
    expect(() => expectWireHistory(wire, HISTORY_WITH_TOOL_CALLS, RESPONSE)).not.toThrow();
    const dropped = {
      ...wire,
      messages: wire.messages.filter((message) => message.toolCallId !== 'call_hist_search'),
    };
    expect(() => expectWireHistory(dropped, HISTORY_WITH_TOOL_CALLS, RESPONSE)).toThrow();
    const [system, user, assistant, firstResult, secondResult, ...rest] = wire.messages;
    const moved = { ...wire, messages: [system!, user!, firstResult!, assistant!, secondResult!, ...rest] };
    expect(() => expectWireHistory(moved, HISTORY_WITH_TOOL_CALLS, RESPONSE)).toThrow();
  });

  it('a history rewrite is accepted only when reported as an Adjustment', () => {
    const wire = {
      ...projectModelRequest({ messages: HISTORY_WITH_TOOL_CALLS }, { stream: false }),
      messages: [],
    };
    expect(() => expectWireHistory(wire, HISTORY_WITH_TOOL_CALLS, RESPONSE)).toThrow();
    const reported: ModelResponse = {
      ...RESPONSE,
      adjustments: [{ kind: 'history-rewritten', message: 'Tool blocks sent as text.' }],
    };
    expect(() => expectWireHistory(wire, HISTORY_WITH_TOOL_CALLS, reported)).not.toThrow();
  });

  it('tools missing from the wire, or with renamed arguments, fail', () => {
    const wire = projectModelRequest({ messages: [], tools: CONFORMANCE_TOOLS }, { stream: true });
    expect(() => expectWireTools(wire, CONFORMANCE_TOOLS, RESPONSE)).not.toThrow();
    expect(() =>
      expectWireTools({ ...wire, tools: wire.tools.slice(1) }, CONFORMANCE_TOOLS, RESPONSE),
    ).toThrow();
    const renamed = wire.tools.map((tool) => ({
      ...tool,
      inputSchema: { type: 'object' as const, properties: { q: {} } },
    }));
    expect(() => expectWireTools({ ...wire, tools: renamed }, CONFORMANCE_TOOLS, RESPONSE)).toThrow();
  });
});
