import { ProviderError, type StreamPart, type ToolCall } from '@org/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChatStreamAssembler } from '../../src/chat/stream-assembler.js';

const RUNS = Number(process.env.FC_NUM_RUNS ?? 1000);

const callsArbitrary = fc
  .uniqueArray(
    fc.record({
      name: fc.constantFrom('get_weather', 'search_docs', 'send_email'),
      args: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify({ value })),
    }),
    { minLength: 1, maxLength: 4, selector: (call) => call.args },
  )
  .map((calls) =>
    calls.map(
      (call, index): ToolCall => ({ id: `call_${index}_x`, toolName: call.name, arguments: call.args }),
    ),
  );

/** Splits text at the given cut points (each taken modulo the length). */
function split(text: string, cuts: readonly number[]): string[] {
  const points = [...new Set(cuts.map((cut) => (text.length === 0 ? 0 : cut % text.length)))]
    .filter((point) => point > 0)
    .sort((a, b) => a - b);
  const pieces: string[] = [];
  let start = 0;
  for (const point of points) {
    pieces.push(text.slice(start, point));
    start = point;
  }
  pieces.push(text.slice(start));
  return pieces;
}

function chunk(toolCall: object): object {
  return {
    id: 'chatcmpl-1',
    choices: [{ index: 0, delta: { tool_calls: [toolCall] }, finish_reason: null }],
  };
}

/** The parts of the chunks, the answer's calls, and the calls `finish()` left to emit. */
function run(chunks: readonly object[]): {
  parts: StreamPart[];
  calls: readonly ToolCall[];
  late: readonly ToolCall[];
} {
  const assembler = new ChatStreamAssembler('openai');
  const parts = chunks.flatMap((item) => assembler.push(item));
  parts.push(
    ...assembler.push({ id: 'chatcmpl-1', choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }),
  );
  return { parts, calls: assembler.finish().toolCalls, late: assembler.unemittedToolCalls() };
}

const toolCallsOf = (parts: readonly StreamPart[]): ToolCall[] =>
  parts.flatMap((part) => (part.type === 'tool-call' ? [part.toolCall] : []));

/**
 * One start per call, deltas adding up to its arguments; each call emitted once, early or by `finish()`, in the order
 * of the answer, an early one after all its deltas and only while a later call had begun.
 */
function expectConsistent(
  parts: readonly StreamPart[],
  calls: readonly ToolCall[],
  late: readonly ToolCall[],
): void {
  const early = toolCallsOf(parts);
  expect([...early, ...late]).toEqual(calls);
  for (const call of calls) {
    expect(
      parts.filter((part) => part.type === 'tool-call-start' && part.toolCallId === call.id),
    ).toHaveLength(1);
    const deltas = parts
      .filter((part) => part.type === 'tool-call-delta' && part.toolCallId === call.id)
      .map((part) => (part.type === 'tool-call-delta' ? part.argumentsDelta : ''))
      .join('');
    expect(deltas).toBe(call.arguments);
  }
  for (const call of early) {
    const emittedAt = parts.findIndex((part) => part.type === 'tool-call' && part.toolCall.id === call.id);
    const lastDelta = parts.findLastIndex(
      (part) => part.type === 'tool-call-delta' && part.toolCallId === call.id,
    );
    expect(emittedAt).toBeGreaterThan(lastDelta);
    const laterStart = parts.findIndex(
      (part) => part.type === 'tool-call-start' && part.toolCallId === calls[calls.indexOf(call) + 1]?.id,
    );
    expect(laterStart).toBeGreaterThanOrEqual(0);
  }
  expect(late.at(-1)).toEqual(calls.at(-1));
}

describe('ChatStreamAssembler', () => {
  it('any interleaving and fragmentation of parallel calls assembles the same calls (by index, id on the first fragment)', () => {
    fc.assert(
      fc.property(
        callsArbitrary,
        fc.array(fc.array(fc.nat(), { maxLength: 6 }), { minLength: 4, maxLength: 4 }),
        fc.array(fc.nat(), { maxLength: 40 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (calls, cutsPerCall, schedule, emptyChunkSlots) => {
          const queues = calls.map((call, index) => {
            const [first, ...rest] = split(call.arguments, cutsPerCall[index] ?? []);
            return [
              { index, id: call.id, type: 'function', function: { name: call.toolName, arguments: first } },
              ...rest.map((piece) => ({ index, function: { arguments: piece } })),
            ] as object[];
          });
          const merged: object[] = [];
          let step = 0;
          while (queues.some((queue) => queue.length > 0)) {
            const ready = queues.filter((queue) => queue.length > 0);
            const queue = ready[(schedule[step++] ?? 0) % ready.length]!;
            merged.push(chunk(queue.shift()!));
          }
          // Empty fragments (some servers send one after a call is complete) anywhere after the first chunk.
          for (const slot of emptyChunkSlots) {
            const at = 1 + (slot % merged.length);
            merged.splice(
              at,
              0,
              chunk({ index: slot % calls.length, id: '', type: 'function', function: { arguments: '' } }),
            );
          }
          const { parts, calls: assembled, late } = run(merged);
          expect([...assembled].sort((a, b) => a.id.localeCompare(b.id))).toEqual(calls);
          expectConsistent(parts, assembled, late);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('servers that send the id on every fragment and no index assemble the same calls', () => {
    fc.assert(
      fc.property(callsArbitrary, fc.array(fc.nat(), { maxLength: 30 }), (calls, schedule) => {
        const queues = calls.map((call) =>
          split(call.arguments, [3, 7, 11]).map((piece, position) => ({
            id: call.id,
            function: { ...(position === 0 ? { name: call.toolName } : {}), arguments: piece },
          })),
        );
        const merged: object[] = [];
        let step = 0;
        while (queues.some((queue) => queue.length > 0)) {
          const ready = queues.filter((queue) => queue.length > 0);
          merged.push(chunk(ready[(schedule[step++] ?? 0) % ready.length]!.shift()!));
        }
        const { parts, calls: assembled, late } = run(merged);
        expect([...assembled].sort((a, b) => a.id.localeCompare(b.id))).toEqual(calls);
        expectConsistent(parts, assembled, late);
      }),
      { numRuns: RUNS },
    );
  });

  it('calls streamed one after the other: each complete call goes out as the next begins, before its start', () => {
    const { parts, calls, late } = run([
      chunk({ index: 0, id: 'call_a', function: { name: 'get_weather', arguments: '' } }),
      chunk({ index: 0, function: { arguments: '{"city":' } }),
      chunk({ index: 0, function: { arguments: '"Paris"}' } }),
      chunk({ index: 1, id: 'call_b', function: { name: 'search_docs', arguments: '{"q":' } }),
      chunk({ index: 1, function: { arguments: '"rain"}' } }),
    ]);
    expect(parts.map((part) => (part.type === 'tool-call' ? `call ${part.toolCall.id}` : part.type))).toEqual(
      [
        'tool-call-start',
        'tool-call-delta',
        'tool-call-delta',
        'call call_a',
        'tool-call-start',
        'tool-call-delta',
        'tool-call-delta',
      ],
    );
    expect(toolCallsOf(parts)).toEqual([calls[0]]);
    // The last call has no later one to say it is complete: it comes from finish(), once the stream ended.
    expect(late).toEqual([{ id: 'call_b', toolName: 'search_docs', arguments: '{"q":"rain"}' }]);
  });

  it('a call completed after a later one began (an interleaving server) goes out then, and calls keep their order', () => {
    const assembler = new ChatStreamAssembler('openai');
    const call = (index: number, text: string, id?: string): StreamPart[] =>
      assembler.push(
        chunk({ index, ...(id === undefined ? {} : { id }), function: { name: 'lookup', arguments: text } }),
      );
    expect(toolCallsOf(call(0, '{"a":{"b":1}', 'call_0'))).toEqual([]);
    expect(toolCallsOf(call(1, '{"c":2}', 'call_1'))).toEqual([]);
    // Call 1 is complete, but call 0 is not: nothing goes out of order.
    expect(toolCallsOf(call(2, '{"d":', 'call_2'))).toEqual([]);
    expect(toolCallsOf(call(0, '}'))).toEqual([
      { id: 'call_0', toolName: 'lookup', arguments: '{"a":{"b":1}}' },
      { id: 'call_1', toolName: 'lookup', arguments: '{"c":2}' },
    ]);
    call(2, '3}');
    expect(assembler.finish().toolCalls.map((toolCall) => toolCall.id)).toEqual([
      'call_0',
      'call_1',
      'call_2',
    ]);
    expect(assembler.unemittedToolCalls().map((toolCall) => toolCall.id)).toEqual(['call_2']);
  });

  it('arguments that close but are not strict JSON, or not an object, wait for the end of the stream', () => {
    for (const text of ['{"a":1,}', '{"n":12345678901234567891}', '{"a":1,"a":2}', '[1,2]', '"text"']) {
      const { parts, late } = run([
        chunk({ index: 0, id: 'call_x', function: { name: 'lookup', arguments: text } }),
        chunk({ index: 1, id: 'call_y', function: { name: 'lookup', arguments: '{}' } }),
      ]);
      expect(toolCallsOf(parts), text).toEqual([]);
      expect(late.map((call) => call.arguments)).toEqual([text, '{}']);
    }
  });

  it('more argument text for a call already emitted is a malformed stream, never a changed call', () => {
    const assembler = new ChatStreamAssembler('openai');
    assembler.push(chunk({ index: 0, id: 'call_a', function: { name: 'lookup', arguments: '{"q":1}' } }));
    const emitted = assembler.push(
      chunk({ index: 1, id: 'call_b', function: { name: 'lookup', arguments: '{' } }),
    );
    expect(toolCallsOf(emitted)).toEqual([{ id: 'call_a', toolName: 'lookup', arguments: '{"q":1}' }]);
    // Whitespace and empty fragments change nothing.
    expect(assembler.push(chunk({ index: 0, function: { arguments: ' \n' } }))).toEqual([]);
    expect(assembler.push(chunk({ index: 0, id: '', function: { arguments: '' } }))).toEqual([]);
    let thrown: unknown;
    try {
      assembler.push(chunk({ index: 0, function: { arguments: ',"r":2}' } }));
    } catch (error) {
      thrown = error;
    }
    expect(ProviderError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({ providerCode: 'invalid_stream_event' });
    expect((thrown as Error).message).toMatch(/call_a.*after its arguments were a complete JSON object/);
  });

  it('a server numbering every call 0 still gets one call per id', () => {
    const { parts, calls } = run([
      chunk({ index: 0, id: 'call_a', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }),
      chunk({ index: 0, id: 'call_b', function: { name: 'get_weather', arguments: '{"city":' } }),
      chunk({ index: 0, function: { arguments: '"Oslo"}' } }),
    ]);
    expect(calls).toEqual([
      { id: 'call_a', toolName: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call_b', toolName: 'get_weather', arguments: '{"city":"Oslo"}' },
    ]);
    expect(toolCallsOf(parts)).toEqual([calls[0]]);
  });

  it('the recorded alibaba pattern (an empty fragment after the call) yields one start and one call', () => {
    const { parts, calls } = run([
      chunk({ index: 0, id: 'call_e', type: 'function', function: { name: 'weather', arguments: '' } }),
      chunk({ index: 0, id: '', type: 'function', function: { arguments: '{"location": "SF' } }),
      chunk({ index: 0, id: '', type: 'function', function: { arguments: '"}' } }),
      chunk({ function: { arguments: '' }, index: 0, id: '', type: 'function' }),
    ]);
    expect(calls).toEqual([{ id: 'call_e', toolName: 'weather', arguments: '{"location": "SF"}' }]);
    expect(parts.map((part) => part.type)).toEqual(['tool-call-start', 'tool-call-delta', 'tool-call-delta']);
  });

  it('arguments sent as an object by a compatible server are kept as JSON text', () => {
    const { calls } = run([
      chunk({ index: 0, id: 'c', function: { name: 'get_weather', arguments: { city: 'Paris' } } }),
    ]);
    expect(calls[0]?.arguments).toBe('{"city":"Paris"}');
  });

  it('a fragment with arguments but no call ever named is a typed error at the end, not a call', () => {
    const assembler = new ChatStreamAssembler('openai');
    assembler.push(chunk({ index: 3, function: { arguments: '{"x":1}' } }));
    expect(() => assembler.finish()).toThrow(/without a function name/);
  });

  it('reasoning_content in any fragmentation: deltas first, one reasoning part when the answer begins', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 60 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.constantFrom('reasoning_content', 'reasoning'),
        (reasoning, cuts, field) => {
          const assembler = new ChatStreamAssembler('deepseek');
          const delta = (fields: object): object => ({ id: 'c', choices: [{ index: 0, delta: fields }] });
          const parts = [
            ...split(reasoning, cuts).flatMap((piece) => assembler.push(delta({ [field]: piece }))),
            ...assembler.push(delta({ content: 'Answer.' })),
          ];
          const deltas = parts.flatMap((part) => (part.type === 'reasoning-delta' ? [part.delta] : []));
          expect(deltas.join('')).toBe(reasoning);
          const types = parts.map((part) => part.type);
          expect(types.filter((type) => type === 'reasoning')).toHaveLength(1);
          expect(types.indexOf('reasoning')).toBe(types.indexOf('text-delta') - 1);
          expect(assembler.finish().reasoning).toEqual([
            { type: 'reasoning', provider: 'deepseek', text: reasoning },
          ]);
          expect(assembler.unemittedReasoning()).toEqual([]);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('reasoning still open when the stream ends is completed by finish()', () => {
    const assembler = new ChatStreamAssembler('deepseek');
    assembler.push({ id: 'c', choices: [{ index: 0, delta: { reasoning_content: 'Only thoughts' } }] });
    const answer = assembler.finish();
    const part = { type: 'reasoning', provider: 'deepseek', text: 'Only thoughts' };
    expect(answer.reasoning).toEqual([part]);
    expect(assembler.unemittedReasoning()).toEqual([part]);
  });
});
