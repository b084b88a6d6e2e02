import { describe, expect, it } from 'vitest';
import { InvalidMessageHistoryError } from './errors.js';
import { assertToolCallPairing, type Message } from './message.js';

const call = (id: string, toolName = 'get_weather') => ({ id, toolName, arguments: '{}' });
const result = (toolCallId: string, toolName = 'get_weather'): Message => ({
  role: 'tool',
  toolCallId,
  toolName,
  content: '18°C',
});

function pairingError(messages: Message[]): InvalidMessageHistoryError {
  try {
    assertToolCallPairing(messages);
  } catch (error) {
    if (InvalidMessageHistoryError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected an InvalidMessageHistoryError');
}

describe('assertToolCallPairing', () => {
  it('accepts histories without tools, and with every call answered once', () => {
    expect(() => assertToolCallPairing([])).not.toThrow();
    expect(() =>
      assertToolCallPairing([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris and Rome?' },
        { role: 'assistant', content: '', toolCalls: [call('a'), call('b')] },
        result('b'),
        result('a'),
        { role: 'assistant', content: 'Paris 18°C, Rome 22°C.' },
        { role: 'user', content: 'And Oslo?' },
        { role: 'assistant', content: 'Checking.', toolCalls: [call('c')] },
        result('c'),
      ]),
    ).not.toThrow();
  });

  it('names a call left without a result before the next turn', () => {
    const error = pairingError([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: '', toolCalls: [call('a'), call('b')] },
      result('a'),
      { role: 'user', content: 'next' },
    ]);
    expect(error.toolCallId).toBe('b');
    expect(error.messageIndex).toBe(1);
    expect(error.message).toBe(
      "Tool call 'b' (get_weather) in message 1 has no tool result before message 3. Every tool call must be answered by exactly one tool message.",
    );
  });

  it('names a call left without a result at the end of the history', () => {
    const error = pairingError([{ role: 'assistant', content: '', toolCalls: [call('a')] }]);
    expect(error.message).toContain("Tool call 'a' (get_weather) in message 0 has no tool result.");
  });

  it('rejects a result answered twice, an orphan result and a result for an older turn', () => {
    expect(
      pairingError([{ role: 'assistant', content: '', toolCalls: [call('a')] }, result('a'), result('a')])
        .message,
    ).toContain('answered more than once');
    expect(pairingError([{ role: 'user', content: 'q' }, result('zzz')]).message).toContain(
      'not a call of the preceding assistant turn',
    );
  });

  it('rejects duplicate tool call ids in one turn or across turns', () => {
    expect(
      pairingError([{ role: 'assistant', content: '', toolCalls: [call('a'), call('a')] }]).message,
    ).toContain('used twice');
    expect(
      pairingError([
        { role: 'assistant', content: '', toolCalls: [call('a')] },
        result('a'),
        { role: 'assistant', content: '', toolCalls: [call('a')] },
      ]).message,
    ).toContain('used twice');
  });

  it('treats prototype-like ids as plain ids', () => {
    expect(() =>
      assertToolCallPairing([
        { role: 'assistant', content: '', toolCalls: [call('__proto__'), call('constructor')] },
        result('constructor'),
        result('__proto__'),
      ]),
    ).not.toThrow();
  });
});
