import type { AssistantMessage, Message, ReasoningPart, ToolCall } from '@org/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { convertMessages } from '../src/convert-messages.js';

// 1,000 runs in CI; `pnpm test:stress` sets FC_NUM_RUNS=100000. fast-check prints the seed of a failure.
const numRuns = Number(process.env.FC_NUM_RUNS ?? 1000);

type WireBlock = { type: string; id?: string; tool_use_id?: string; [field: string]: unknown };

const toolCall = fc.record({
  id: fc.uuid().map((uuid) => `toolu_${uuid}`),
  toolName: fc.constantFrom('get_weather', 'search'),
  arguments: fc.oneof(
    fc
      .dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }))
      .map((value) => JSON.stringify(value)),
    fc.constantFrom(
      '',
      '{"a": 1',
      '[1,2]',
      '{"__proto__": {"polluted": true}}',
      '{"constructor": {"prototype": {"x": 1}}}',
    ),
  ),
});

const reasoningPart: fc.Arbitrary<ReasoningPart> = fc.oneof(
  fc.record({
    type: fc.constant('reasoning' as const),
    provider: fc.constantFrom('anthropic', 'openai', 'bedrock'),
    text: fc.string({ maxLength: 8 }),
    signature: fc.base64String({ minLength: 4, maxLength: 12 }),
  }),
  fc.record({
    type: fc.constant('reasoning' as const),
    provider: fc.constant('anthropic'),
    text: fc.constant(''),
    redactedData: fc.base64String({ minLength: 4, maxLength: 12 }),
  }),
);
const reasoningParts = fc.array(reasoningPart, { maxLength: 3 });

/** A valid history: user/assistant text, assistant tool calls each answered by one tool message, some reasoning. */
const history: fc.Arbitrary<Message[]> = fc
  .array(
    fc.oneof(
      fc.string({ minLength: 1, maxLength: 10 }).map((content): Message[] => [{ role: 'user', content }]),
      fc
        .tuple(fc.string({ maxLength: 10 }), reasoningParts)
        .map(([content, reasoning]): Message[] => [{ role: 'assistant', content, reasoning }]),
      fc.string({ minLength: 1, maxLength: 10 }).map((content): Message[] => [{ role: 'system', content }]),
      fc
        .tuple(
          fc.string({ maxLength: 10 }),
          fc.uniqueArray(toolCall, { minLength: 1, maxLength: 3, selector: (call) => call.id }),
          fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
          reasoningParts,
        )
        .map(([content, calls, errors, reasoning]): Message[] => [
          { role: 'assistant', content, toolCalls: calls as ToolCall[], reasoning },
          ...calls.map(
            (call, index): Message => ({
              role: 'tool',
              toolCallId: call.id,
              toolName: call.toolName,
              content: `result ${index}`,
              isError: errors[index] ?? false,
            }),
          ),
        ]),
    ),
    { maxLength: 8 },
  )
  .map((groups) => groups.flat())
  // Tool call ids must be unique across the whole history.
  .filter((messages) => {
    const ids = messages.flatMap((message) =>
      message.role === 'assistant' ? (message.toolCalls ?? []).map((call) => call.id) : [],
    );
    return new Set(ids).size === ids.length;
  });

describe('convertMessages', () => {
  it('always produces alternating turns, every tool_use answered in the next user turn, results first', () => {
    fc.assert(
      fc.property(history, (messages) => {
        const { messages: wire, system } = convertMessages(messages);
        for (let index = 1; index < wire.length; index++)
          expect(wire[index]?.role).not.toBe(wire[index - 1]?.role);
        wire.forEach((turn, index) => {
          const blocks = (
            typeof turn.content === 'string' ? [{ type: 'text' }] : turn.content
          ) as WireBlock[];
          expect(blocks.length).toBeGreaterThan(0);
          if (turn.role !== 'assistant') {
            const firstOther = blocks.findIndex((block) => block.type !== 'tool_result');
            const lastResult = blocks.map((block) => block.type).lastIndexOf('tool_result');
            if (firstOther !== -1) expect(lastResult).toBeLessThan(firstOther);
            return;
          }
          const uses = blocks.filter((block) => block.type === 'tool_use').map((block) => block.id);
          if (uses.length === 0) return;
          const next = wire[index + 1];
          const answers = (typeof next?.content === 'string' ? [] : ((next?.content ?? []) as WireBlock[]))
            .filter((block) => block.type === 'tool_result')
            .map((block) => block.tool_use_id);
          expect(answers).toEqual(uses);
        });
        const kept = messages.filter(
          (message): message is AssistantMessage =>
            message.role === 'assistant' && (message.content !== '' || (message.toolCalls ?? []).length > 0),
        );
        const own = kept.flatMap((message) =>
          (message.reasoning ?? []).filter((part) => part.provider === 'anthropic'),
        );
        const sent = wire.flatMap((turn) =>
          typeof turn.content === 'string'
            ? []
            : (turn.content as WireBlock[]).filter(
                (block) => block.type === 'thinking' || block.type === 'redacted_thinking',
              ),
        );
        expect(sent).toEqual(
          own.map((part) =>
            part.redactedData === undefined
              ? { type: 'thinking', thinking: part.text, signature: part.signature }
              : { type: 'redacted_thinking', data: part.redactedData },
          ),
        );
        for (const turn of wire) {
          if (turn.role !== 'assistant' || typeof turn.content === 'string') continue;
          // A message's reasoning precedes its text and tool calls, so no thinking block follows a tool_use.
          const types = (turn.content as WireBlock[]).map((block) => block.type);
          const firstToolUse = types.indexOf('tool_use');
          if (firstToolUse !== -1) {
            expect(types.slice(firstToolUse).some((type) => type.endsWith('thinking'))).toBe(false);
          }
        }
        const systemCount = messages.filter(
          (message) => message.role === 'system' && message.content !== '',
        ).length;
        expect(system?.length ?? 0).toBe(systemCount);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns },
    );
  });

  it('reports every rewrite: merges, moved system messages, replaced arguments, dropped empty turns', () => {
    fc.assert(
      fc.property(history, (messages) => {
        const { adjustments } = convertMessages(messages);
        const reasons = adjustments.map((adjustment) => adjustment.details?.reason);
        const brokenArguments = messages.some(
          (message) =>
            message.role === 'assistant' &&
            (message.toolCalls ?? []).some(
              (call) => call.arguments !== '' && !/^\{/.test(call.arguments.trim()),
            ),
        );
        if (brokenArguments) expect(reasons).toContain('tool-arguments-replaced');
        const emptyAssistant = messages.some(
          (message) =>
            message.role === 'assistant' && message.content === '' && (message.toolCalls ?? []).length === 0,
        );
        expect(reasons.includes('empty-assistant-message-dropped')).toBe(emptyAssistant);
        const foreign = messages.some(
          (message) =>
            message.role === 'assistant' &&
            (message.content !== '' || (message.toolCalls ?? []).length > 0) &&
            (message.reasoning ?? []).some((part) => part.provider !== 'anthropic'),
        );
        expect(reasons.includes('foreign-reasoning-dropped')).toBe(foreign);
        for (const adjustment of adjustments) expect(adjustment.kind).toBe('history-rewritten');
      }),
      { numRuns },
    );
  });

  it('keeps __proto__ and constructor keys of arguments as plain data', () => {
    const { messages } = convertMessages([
      { role: 'user', content: 'x' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          {
            id: 't1',
            toolName: 'search',
            arguments: '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"y": 1}}}',
          },
        ],
      },
      { role: 'tool', toolCallId: 't1', toolName: 'search', content: 'r' },
    ]);
    const blocks = (messages[1]?.content ?? []) as { input?: Record<string, unknown> }[];
    const input = blocks[0]?.input ?? {};
    expect(Object.keys(input)).toEqual(['__proto__', 'constructor']);
    expect(JSON.stringify(input)).toBe('{"__proto__":{"polluted":true},"constructor":{"prototype":{"y":1}}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
