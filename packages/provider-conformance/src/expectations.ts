import type { Adjustment, AdjustmentKind, Message, ModelResponse, ToolCall, ToolSpec } from '@org/core';
import { expect } from 'vitest';
import type { WireRequest } from './harness.js';

/** Whether the response reports an adjustment of one of the kinds. */
export function hasAdjustment(adjustments: readonly Adjustment[], ...kinds: AdjustmentKind[]): boolean {
  return adjustments.some((adjustment) => kinds.includes(adjustment.kind));
}

/**
 * The id a history tool call went on the wire with: the call's own id, or the one a `history-rewritten` adjustment
 * with `details.reason: 'tool-call-ids-mapped'` says it was sent as (`details.toolCallIds`, own id → wire id), for a
 * provider that takes back only ids of its own form (Mistral: nine letters or digits).
 */
export function wireToolCallId(adjustments: readonly Adjustment[], toolCallId: string): string {
  for (const adjustment of adjustments) {
    const details = adjustment.details;
    if (adjustment.kind !== 'history-rewritten' || details?.reason !== 'tool-call-ids-mapped') continue;
    const ids = details.toolCallIds;
    if (typeof ids !== 'object' || ids === null || !Object.hasOwn(ids, toolCallId)) continue;
    const mapped = (ids as Readonly<Record<string, unknown>>)[toolCallId];
    if (typeof mapped === 'string') return mapped;
  }
  return toolCallId;
}

/** The returned calls are the scripted ones: same ids, names, and arguments that parse to the same value. */
export function expectToolCalls(actual: readonly ToolCall[], expected: readonly ToolCall[]): void {
  expect(
    actual.map((call) => call.id),
    'tool call ids',
  ).toEqual(expected.map((call) => call.id));
  expect(
    actual.map((call) => call.toolName),
    'tool call names',
  ).toEqual(expected.map((call) => call.toolName));
  actual.forEach((call, index) => {
    expect(() => JSON.parse(call.arguments), `arguments of ${call.id} parse as JSON`).not.toThrow();
    expect(JSON.parse(call.arguments), `arguments of ${call.id}`).toEqual(
      JSON.parse(expected[index]?.arguments ?? 'null'),
    );
  });
}

/** The wire offered the request's tools (unless an adjustment says otherwise), with the same argument names. */
export function expectWireTools(
  wire: WireRequest,
  tools: readonly ToolSpec[],
  response: ModelResponse,
): void {
  if (hasAdjustment(response.adjustments, 'tools-dropped', 'tool-names-mapped')) return;
  expect(
    wire.tools.map((tool) => tool.name),
    'tool names on the wire',
  ).toEqual(tools.map((tool) => tool.name));
  for (const tool of tools) {
    const sent = wire.tools.find((candidate) => candidate.name === tool.name);
    expect(Object.keys(sent?.inputSchema.properties ?? {}).sort(), `argument names of ${tool.name}`).toEqual(
      Object.keys(tool.inputSchema.properties ?? {}).sort(),
    );
  }
}

/**
 * The wire history keeps the request's shape: the same number of user and tool messages, a system message first
 * when the request had one, and every tool call of the history answered by its result after the call and before
 * the next assistant turn.
 */
export function expectWireHistory(
  wire: WireRequest,
  messages: readonly Message[],
  response: ModelResponse,
): void {
  // Call ids mapped to the provider's form keep the history's shape: checked with the ids as sent.
  const rewritten = response.adjustments.filter((adjustment) => adjustment.kind === 'history-rewritten');
  if (rewritten.some((adjustment) => adjustment.details?.reason !== 'tool-call-ids-mapped')) return;
  const count = (list: readonly { role: string }[], role: string): number =>
    list.filter((message) => message.role === role).length;
  expect(count(wire.messages, 'user'), 'user messages on the wire').toBe(count(messages, 'user'));
  expect(count(wire.messages, 'tool'), 'tool results on the wire').toBe(count(messages, 'tool'));
  if (messages[0]?.role === 'system') expect(wire.messages[0]?.role, 'system message first').toBe('system');
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const call of message.toolCalls ?? []) {
      const sentId = wireToolCallId(response.adjustments, call.id);
      const callIndex = wire.messages.findIndex(
        (candidate) => candidate.role === 'assistant' && (candidate.toolCallIds ?? []).includes(sentId),
      );
      expect(callIndex, `assistant tool call ${call.id} on the wire`).toBeGreaterThanOrEqual(0);
      const resultIndex = wire.messages.findIndex(
        (candidate) => candidate.role === 'tool' && candidate.toolCallId === sentId,
      );
      expect(resultIndex, `tool result for ${call.id} after its call`).toBeGreaterThan(callIndex);
      const between = wire.messages.slice(callIndex + 1, resultIndex);
      expect(
        between.some((candidate) => candidate.role === 'assistant' || candidate.role === 'user'),
        `nothing but tool results between call ${call.id} and its result`,
      ).toBe(false);
    }
  }
}
