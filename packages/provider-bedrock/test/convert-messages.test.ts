import type { Message } from '@org/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { convertMessages, type ToolHistoryMode } from '../src/convert-messages.js';
import { createToolNameMap } from '../src/tool-names.js';

/** A conversation whose tool calls are all answered, with runs of same-role messages and system messages. */
const conversationArbitrary = fc
  .array(
    fc.oneof(
      fc.record({ kind: fc.constant('system' as const), text: fc.string({ minLength: 1, maxLength: 8 }) }),
      fc.record({ kind: fc.constant('user' as const), text: fc.string({ minLength: 1, maxLength: 8 }) }),
      fc.record({
        kind: fc.constant('assistant' as const),
        text: fc.string({ maxLength: 8 }),
        calls: fc.nat({ max: 3 }),
        failed: fc.boolean(),
      }),
    ),
    { minLength: 1, maxLength: 12 },
  )
  .map((steps) => {
    const messages: Message[] = [{ role: 'user', content: 'start' }];
    let counter = 0;
    for (const step of steps) {
      if (step.kind !== 'assistant') {
        messages.push({ role: step.kind, content: step.text });
        continue;
      }
      const toolCalls = Array.from({ length: step.calls }, () => ({
        id: `call_${counter++}`,
        toolName: 'lookup',
        arguments: `{"n":${counter}}`,
      }));
      messages.push({ role: 'assistant', content: step.text || 'x', toolCalls });
      for (const call of toolCalls) {
        messages.push({
          role: 'tool',
          toolCallId: call.id,
          toolName: 'lookup',
          content: 'r',
          isError: step.failed,
        });
      }
    }
    return messages;
  });

describe('convertMessages', () => {
  it('property: turns alternate, every call is answered in the next user turn, nothing is lost (native)', () => {
    fc.assert(
      fc.property(conversationArbitrary, (messages) => {
        const converted = convertMessages(messages, {
          names: createToolNameMap(['lookup']),
          toolHistory: 'native',
        });
        const roles = converted.messages.map((message) => message.role);
        roles.forEach((role, index) => {
          if (index > 0) expect(role).not.toBe(roles[index - 1]);
        });
        expect(roles[0]).toBe('user');
        const blocks = converted.messages.flatMap((message) => message.content ?? []);
        const uses = blocks.flatMap((block) => (block.toolUse ? [block.toolUse.toolUseId] : []));
        const results = blocks.flatMap((block) => (block.toolResult ? [block.toolResult.toolUseId] : []));
        const calls = messages.flatMap((message) =>
          message.role === 'assistant' ? (message.toolCalls ?? []).map((call) => call.id) : [],
        );
        expect(uses).toEqual(calls);
        expect(results).toEqual(calls);
        converted.messages.forEach((message, index) => {
          for (const block of message.content ?? []) {
            if (!block.toolUse) continue;
            const next = converted.messages[index + 1]?.content ?? [];
            expect(
              next.some((candidate) => candidate.toolResult?.toolUseId === block.toolUse?.toolUseId),
            ).toBe(true);
          }
        });
        const texts = blocks.flatMap((block) => (block.text === undefined ? [] : [block.text]));
        const expected = messages.flatMap((message) =>
          message.role === 'user' || (message.role === 'assistant' && message.content !== '')
            ? [message.content]
            : [],
        );
        expect(texts).toEqual(expected);
        expect(converted.system.map((block) => block.text)).toEqual(
          messages.flatMap((message) => (message.role === 'system' ? [message.content] : [])),
        );
      }),
      { numRuns: Number(process.env.FC_NUM_RUNS ?? 1000) },
    );
  });

  it.each<ToolHistoryMode>(['as-text', 'drop'])(
    'property: %s leaves no tool block and still alternates',
    (mode) => {
      fc.assert(
        fc.property(conversationArbitrary, (messages) => {
          const converted = convertMessages(messages, {
            names: createToolNameMap(['lookup']),
            toolHistory: mode,
          });
          const blocks = converted.messages.flatMap((message) => message.content ?? []);
          expect(blocks.some((block) => block.toolUse !== undefined || block.toolResult !== undefined)).toBe(
            false,
          );
          const roles = converted.messages.map((message) => message.role);
          roles.forEach((role, index) => {
            if (index > 0) expect(role).not.toBe(roles[index - 1]);
          });
          const hadTools = messages.some((message) => message.role === 'tool');
          expect(converted.adjustments.some((adjustment) => adjustment.details?.mode === mode)).toBe(
            hadTools,
          );
        }),
        { numRuns: Number(process.env.FC_NUM_RUNS ?? 1000) },
      );
    },
  );
});
