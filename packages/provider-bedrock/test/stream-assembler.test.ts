import type { ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import { RateLimitError, StreamInterruptedError, type StreamPart, type ToolCallPolicy } from '@org/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPropertyNames } from '../src/property-names.js';
import { StreamAssembler, type StreamAssemblerContext } from '../src/stream-assembler.js';
import { createToolNameMap } from '../src/tool-names.js';

interface PlannedCall {
  id: string;
  name: string;
  fragments: string[];
}

function assemble(
  events: readonly ConverseStreamOutput[],
  policy: ToolCallPolicy = { kind: 'accept-all' },
): StreamPart[] {
  const assembler = new StreamAssembler({
    modelId: 'model',
    names: createToolNameMap([]),
    callPolicy: policy,
    adjustments: [],
  });
  const parts: StreamPart[] = [];
  for (const event of events) {
    parts.push(...assembler.push(event));
    if (assembler.failed) return parts;
  }
  parts.push(assembler.end());
  return parts;
}

interface PlannedReasoning {
  texts: string[];
  signatures: string[];
  redacted: Uint8Array[];
}

/**
 * Events of one answer: a text block 0 with no contentBlockStart, tool blocks 1..n, then reasoning blocks (text,
 * signature and redacted deltas, no contentBlockStart, as Bedrock sends them), interleaved by `order`.
 */
function eventsFor(
  textPieces: readonly string[],
  calls: readonly PlannedCall[],
  order: readonly number[],
  metadataFirst: boolean,
  reasoning: readonly PlannedReasoning[] = [],
): ConverseStreamOutput[] {
  const events: ConverseStreamOutput[] = [];
  const reasoningQueues = reasoning.map((block, offset): ConverseStreamOutput[] => {
    const contentBlockIndex = calls.length + 1 + offset;
    const delta = (reasoningContent: object): ConverseStreamOutput => ({
      contentBlockDelta: { contentBlockIndex, delta: { reasoningContent } as never },
    });
    return [
      ...block.texts.map((text) => delta({ text })),
      ...block.signatures.map((signature) => delta({ signature })),
      ...block.redacted.map((redactedContent) => delta({ redactedContent })),
      { contentBlockStop: { contentBlockIndex } },
    ];
  });
  const queues: ConverseStreamOutput[][] = [
    textPieces.map((text) => ({ contentBlockDelta: { contentBlockIndex: 0, delta: { text } } })),
    ...calls.map((call, offset) => [
      {
        contentBlockStart: {
          contentBlockIndex: offset + 1,
          start: { toolUse: { toolUseId: call.id, name: call.name } },
        },
      },
      ...call.fragments.map((input) => ({
        contentBlockDelta: { contentBlockIndex: offset + 1, delta: { toolUse: { input } } },
      })),
      { contentBlockStop: { contentBlockIndex: offset + 1 } },
    ]),
    ...reasoningQueues,
  ];
  // `order` picks which block's next event comes next: any interleaving that keeps each block's own order.
  for (const pick of order) {
    const nonEmpty = queues.filter((queue) => queue.length > 0);
    if (nonEmpty.length === 0) break;
    const event = nonEmpty[pick % nonEmpty.length]?.shift();
    if (event !== undefined) events.push(event);
  }
  for (const queue of queues) events.push(...queue.splice(0));
  const stop: ConverseStreamOutput = {
    messageStop: { stopReason: calls.length > 0 ? 'tool_use' : 'end_turn' },
  };
  const metadata: ConverseStreamOutput = {
    metadata: { usage: { inputTokens: 3, outputTokens: 5, totalTokens: 8 }, metrics: { latencyMs: 1 } },
  };
  events.push(...(metadataFirst ? [metadata, stop] : [stop, metadata]));
  return events;
}

const callArbitrary = fc.record({
  id: fc.stringMatching(/^tooluse_[A-Za-z0-9]{1,12}$/),
  name: fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_-]{0,20}$/),
  fragments: fc.array(fc.string({ maxLength: 12 }), { maxLength: 6 }),
});
const answerArbitrary = fc.record({
  textPieces: fc.array(fc.string({ minLength: 1, maxLength: 10 }), { maxLength: 6 }),
  calls: fc.uniqueArray(callArbitrary, { maxLength: 4, selector: (call) => call.id }),
  order: fc.array(fc.nat(), { maxLength: 60 }),
  metadataFirst: fc.boolean(),
});

describe('StreamAssembler', () => {
  it('property: for every interleaving of blocks and fragments, the calls and text come out intact', () => {
    fc.assert(
      fc.property(answerArbitrary, ({ textPieces, calls, order, metadataFirst }) => {
        const parts = assemble(eventsFor(textPieces, calls, order, metadataFirst));
        const last = parts.at(-1);
        expect(last?.type).toBe('finish');
        expect(parts.filter((part) => part.type === 'finish' || part.type === 'error')).toHaveLength(1);
        const text = parts.map((part) => (part.type === 'text-delta' ? part.delta : '')).join('');
        expect(text).toBe(textPieces.join(''));
        const toolCalls = parts.flatMap((part) => (part.type === 'tool-call' ? [part.toolCall] : []));
        expect(toolCalls).toEqual(
          calls.map((call) => ({
            id: call.id,
            toolName: call.name,
            arguments: call.fragments.join('') || '{}',
          })),
        );
        for (const call of calls) {
          const deltas = parts
            .flatMap((part) =>
              part.type === 'tool-call-delta' && part.toolCallId === call.id ? [part.argumentsDelta] : [],
            )
            .join('');
          expect(deltas).toBe(call.fragments.join(''));
          const start = parts.findIndex(
            (part) => part.type === 'tool-call-start' && part.toolCallId === call.id,
          );
          const done = parts.findIndex((part) => part.type === 'tool-call' && part.toolCall.id === call.id);
          expect(start).toBeGreaterThanOrEqual(0);
          expect(done).toBeGreaterThan(start);
        }
        expect(last).toMatchObject({
          finishReason: calls.length > 0 ? 'tool-calls' : 'stop',
          usage: { inputTokens: 3, outputTokens: 5, totalTokens: 8 },
        });
      }),
      { numRuns: Number(process.env.FC_NUM_RUNS ?? 1000) },
    );
  });

  it('property: a stream cut anywhere before messageStop surfaces only calls known complete, in order, and keeps the partial text', () => {
    fc.assert(
      fc.property(answerArbitrary, fc.nat(), ({ textPieces, calls, order }, cutSeed) => {
        const events = eventsFor(textPieces, calls, order, false);
        const stopIndex = events.findIndex((event) => event.messageStop !== undefined);
        const cut = events.slice(0, cutSeed % (stopIndex + 1));
        const parts = assemble(cut);
        const surfaced = parts.flatMap((part) => (part.type === 'tool-call' ? [part.toolCall] : []));
        // The calls that went out are the first ones, whole: each block stopped, and a later block began.
        expect(surfaced).toEqual(
          calls.slice(0, surfaced.length).map((call) => ({
            id: call.id,
            toolName: call.name,
            arguments: call.fragments.join('') || '{}',
          })),
        );
        surfaced.forEach((_, position) => {
          const index = position + 1;
          expect(cut.some((event) => event.contentBlockStop?.contentBlockIndex === index)).toBe(true);
          expect(
            cut.some(
              (event) =>
                (event.contentBlockStart?.contentBlockIndex ??
                  event.contentBlockDelta?.contentBlockIndex ??
                  -1) > index,
            ),
          ).toBe(true);
        });
        const last = parts.at(-1);
        expect(last?.type).toBe('error');
        const error = (last as { error: Error }).error;
        expect(StreamInterruptedError.isInstance(error)).toBe(true);
        const text = parts.map((part) => (part.type === 'text-delta' ? part.delta : '')).join('');
        expect((error as StreamInterruptedError).partialText).toBe(text);
      }),
      { numRuns: Number(process.env.FC_NUM_RUNS ?? 1000) },
    );
  });

  it('property: under tool choice none (reject-all) no tool part is ever emitted and every call is reported', () => {
    fc.assert(
      fc.property(answerArbitrary, ({ textPieces, calls, order, metadataFirst }) => {
        const parts = assemble(eventsFor(textPieces, calls, order, metadataFirst), { kind: 'reject-all' });
        expect(parts.filter((part) => part.type.startsWith('tool-call'))).toEqual([]);
        const finish = parts.at(-1);
        expect(finish?.type).toBe('finish');
        if (finish?.type !== 'finish') return;
        expect(finish.finishReason).toBe('stop');
        const rejected = finish.adjustments.find((adjustment) => adjustment.kind === 'tool-calls-rejected');
        if (calls.length === 0) expect(rejected).toBeUndefined();
        else
          expect((rejected?.details as { toolCalls?: unknown[] } | undefined)?.toolCalls).toHaveLength(
            calls.length,
          );
      }),
      { numRuns: Number(process.env.FC_NUM_RUNS ?? 1000) },
    );
  });

  it('an in-stream throttlingException member maps to RateLimitError', () => {
    const parts = assemble([
      { contentBlockDelta: { contentBlockIndex: 0, delta: { text: 'a' } } },
      { throttlingException: { message: 'slow down' } } as ConverseStreamOutput,
    ]);
    const last = parts.at(-1);
    expect(last?.type === 'error' && RateLimitError.isInstance(last.error)).toBe(true);
  });

  it('property: reasoning blocks interleaved with text and tool blocks come out whole, one part per block', () => {
    const reasoningArbitrary = fc.record({
      texts: fc.array(fc.string({ maxLength: 10 }), { minLength: 1, maxLength: 5 }),
      signatures: fc.array(fc.base64String({ minLength: 4, maxLength: 12 }), { maxLength: 2 }),
      redacted: fc.array(fc.uint8Array({ maxLength: 6 }), { maxLength: 3 }),
    });
    fc.assert(
      fc.property(
        answerArbitrary,
        fc.array(reasoningArbitrary, { maxLength: 3 }),
        ({ textPieces, calls, order, metadataFirst }, reasoning) => {
          const events = eventsFor(textPieces, calls, order, metadataFirst, reasoning);
          const parts = assemble(events);
          expect(parts.at(-1)?.type).toBe('finish');
          expect(parts.map((part) => (part.type === 'text-delta' ? part.delta : '')).join('')).toBe(
            textPieces.join(''),
          );
          expect(parts.filter((part) => part.type === 'tool-call')).toHaveLength(calls.length);
          // One reasoning part per block, in the order the blocks stopped.
          const stopOrder = events.flatMap((event) => {
            const index = event.contentBlockStop?.contentBlockIndex;
            return index === undefined || index <= calls.length ? [] : [index - calls.length - 1];
          });
          const expected = stopOrder.map((offset) => {
            const block = reasoning[offset] as PlannedReasoning;
            const redacted = Buffer.concat(block.redacted);
            return {
              type: 'reasoning',
              reasoning: {
                type: 'reasoning',
                provider: 'bedrock',
                text: block.texts.join(''),
                ...(block.signatures.length === 0 ? {} : { signature: block.signatures.join('') }),
                ...(block.redacted.length === 0 ? {} : { redactedData: redacted.toString('base64') }),
              },
            };
          });
          expect(parts.filter((part) => part.type === 'reasoning')).toEqual(expected);
          const deltas = parts.map((part) => (part.type === 'reasoning-delta' ? part.delta : '')).join('');
          expect(deltas.length).toBe(
            reasoning.reduce((total, block) => total + block.texts.join('').length, 0),
          );
          expect(parts.some((part) => part.type === 'reasoning-delta' && part.delta === '')).toBe(false);
        },
      ),
      { numRuns: Number(process.env.FC_NUM_RUNS ?? 1000) },
    );
  });

  it('a reasoning block that never stops is emitted at messageStop, before the tool calls', () => {
    const parts = assemble([
      { contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { text: 'hmm' } } } },
      {
        contentBlockStart: { contentBlockIndex: 1, start: { toolUse: { toolUseId: 't1', name: 'lookup' } } },
      },
      { contentBlockDelta: { contentBlockIndex: 1, delta: { toolUse: { input: '{}' } } } },
      { contentBlockStop: { contentBlockIndex: 1 } },
      { messageStop: { stopReason: 'tool_use' } },
    ]);
    expect(parts.map((part) => part.type)).toEqual([
      'reasoning-delta',
      'tool-call-start',
      'tool-call-delta',
      'reasoning',
      'tool-call',
      'finish',
    ]);
  });

  it('reasoning for a tool block, or after its block stopped, is a malformed stream', () => {
    const intoTool = assemble([
      {
        contentBlockStart: { contentBlockIndex: 0, start: { toolUse: { toolUseId: 't1', name: 'lookup' } } },
      },
      { contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { text: 'x' } } } },
    ]);
    expect(intoTool.at(-1)).toMatchObject({
      type: 'error',
      error: { providerCode: 'malformed_event_stream' },
    });
    const afterStop = assemble([
      { contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { text: 'x' } } } },
      { contentBlockStop: { contentBlockIndex: 0 } },
      { contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { signature: 'late' } } } },
    ]);
    expect(afterStop.at(-1)).toMatchObject({
      type: 'error',
      error: { providerCode: 'malformed_event_stream' },
    });
    const toolAfterReasoning = assemble([
      { contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { text: 'x' } } } },
      {
        contentBlockStart: { contentBlockIndex: 0, start: { toolUse: { toolUseId: 't1', name: 'lookup' } } },
      },
    ]);
    expect(toolAfterReasoning.at(-1)).toMatchObject({
      type: 'error',
      error: { providerCode: 'malformed_event_stream' },
    });
  });

  it('reasoning deltas are not text', () => {
    const parts = assemble([
      { contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { text: 'thinking' } } } },
      { contentBlockDelta: { contentBlockIndex: 1, delta: { text: 'answer' } } },
      { messageStop: { stopReason: 'end_turn' } },
    ]);
    expect(parts.filter((part) => part.type === 'text-delta')).toEqual([
      { type: 'text-delta', delta: 'answer' },
    ]);
  });
});

describe('max_tokens stops', () => {
  const call = (index: number): ConverseStreamOutput[] => [
    {
      contentBlockStart: {
        contentBlockIndex: index,
        start: { toolUse: { toolUseId: `t${index}`, name: 'lookup' } },
      },
    },
    { contentBlockDelta: { contentBlockIndex: index, delta: { toolUse: { input: '{"q":1}' } } } },
    { contentBlockStop: { contentBlockIndex: index } },
  ];

  it('a tool call that is the last block when max_tokens hits is incomplete', () => {
    const parts = assemble([...call(0), { messageStop: { stopReason: 'max_tokens' } }]);
    expect(parts.some((part) => part.type === 'tool-call')).toBe(false);
    expect(parts.at(-1)).toMatchObject({ type: 'error', error: { code: 'incomplete_tool_call' } });
  });

  it('a tool call followed by text was complete; the stop is a length finish', () => {
    const parts = assemble([
      ...call(0),
      { contentBlockDelta: { contentBlockIndex: 1, delta: { text: 'and then' } } },
      { messageStop: { stopReason: 'max_tokens' } },
    ]);
    expect(parts.filter((part) => part.type === 'tool-call')).toHaveLength(1);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'length' });
  });
});

describe('tool calls go out as soon as the stream shows them complete', () => {
  const start = (index: number, id: string, name: string): ConverseStreamOutput => ({
    contentBlockStart: { contentBlockIndex: index, start: { toolUse: { toolUseId: id, name } } },
  });
  const input = (index: number, text: string): ConverseStreamOutput => ({
    contentBlockDelta: { contentBlockIndex: index, delta: { toolUse: { input: text } } },
  });
  const stop = (index: number): ConverseStreamOutput => ({ contentBlockStop: { contentBlockIndex: index } });
  const call = (index: number, id: string, name: string, text: string): ConverseStreamOutput[] => [
    start(index, id, name),
    input(index, text),
    stop(index),
  ];
  /** `start t1`, `call t1`, ... for the tool parts, the other part types as they are (deltas left out). */
  const outline = (parts: readonly StreamPart[]): string[] =>
    parts.flatMap((part) => {
      if (part.type === 'tool-call-start') return [`start ${part.toolCallId}`];
      if (part.type === 'tool-call') return [`call ${part.toolCall.id}`];
      return part.type === 'tool-call-delta' ? [] : [part.type];
    });
  const assembleWith = (
    context: Partial<StreamAssemblerContext>,
    events: readonly ConverseStreamOutput[],
  ): StreamPart[] => {
    const assembler = new StreamAssembler({
      modelId: 'model',
      names: createToolNameMap([]),
      callPolicy: { kind: 'accept-all' },
      adjustments: [],
      ...context,
    });
    return [...events.flatMap((event) => assembler.push(event)), assembler.end()];
  };

  it("a call goes out when the next block begins, before that block's first part; the last at messageStop", () => {
    const parts = assemble([
      { contentBlockDelta: { contentBlockIndex: 0, delta: { text: 'Checking.' } } },
      { contentBlockStop: { contentBlockIndex: 0 } },
      ...call(1, 't1', 'lookup', '{"q":1}'),
      ...call(2, 't2', 'lookup', '{"q":2}'),
      { messageStop: { stopReason: 'tool_use' } },
    ]);
    expect(outline(parts)).toEqual(['text-delta', 'start t1', 'call t1', 'start t2', 'call t2', 'finish']);
  });

  it('a max_tokens stop: the calls before the last went out early, the cut-off last one is an error', () => {
    const parts = assemble([
      ...call(0, 't0', 'lookup', '{"q":1}'),
      ...call(1, 't1', 'lookup', '{"q":'),
      { messageStop: { stopReason: 'max_tokens' } },
    ]);
    expect(outline(parts)).toEqual(['start t0', 'call t0', 'start t1', 'error']);
    expect(parts.at(-1)).toMatchObject({
      type: 'error',
      error: { code: 'incomplete_tool_call', toolCallId: 't1' },
    });
  });

  it('a block that began out of index order waits, so the calls keep the order of their indexes', () => {
    const parts = assemble([
      { contentBlockDelta: { contentBlockIndex: 0, delta: { text: 'Hi.' } } },
      ...call(2, 't2', 'lookup', '{"q":2}'),
      { contentBlockDelta: { contentBlockIndex: 3, delta: { text: 'then' } } },
      ...call(1, 't1', 'lookup', '{"q":1}'),
      { messageStop: { stopReason: 'tool_use' } },
    ]);
    expect(outline(parts)).toEqual([
      'text-delta',
      'start t2',
      'text-delta',
      'start t1',
      'call t1',
      'call t2',
      'finish',
    ]);
  });

  it('a call the policy rejects never shows, and the accepted calls after it still go out early', () => {
    const parts = assembleWith({ callPolicy: { kind: 'expect-tool', toolName: 'lookup' } }, [
      ...call(0, 't_other', 'search', '{"q":0}'),
      ...call(1, 't1', 'lookup', '{"q":1}'),
      ...call(2, 't2', 'lookup', '{"q":2}'),
      { messageStop: { stopReason: 'tool_use' } },
    ]);
    expect(outline(parts)).toEqual(['start t1', 'call t1', 'start t2', 'call t2', 'finish']);
    expect(JSON.stringify(parts.slice(0, -1))).not.toContain('t_other');
    const finish = parts.at(-1);
    expect(finish?.type === 'finish' ? finish.adjustments.map((item) => item.kind) : []).toEqual([
      'tool-calls-rejected',
    ]);
  });

  it("a call emitted early carries the caller's tool name and property names, mapped back from the wire", () => {
    const tool = {
      name: 'math.quote',
      description: 'Quotes.',
      inputSchema: { type: 'object' as const, properties: { año: { type: 'integer' as const } } },
    };
    const names = createToolNameMap([tool.name]);
    const propertyNames = createPropertyNames([tool]);
    const wireArguments = propertyNames.argumentsToWire(tool.name, '{"año":2021}');
    expect(names.toWire(tool.name)).toBe('math_quote');
    expect(wireArguments).not.toContain('año');
    const parts = assembleWith({ names, propertyNames }, [
      ...call(0, 't0', 'math_quote', wireArguments),
      start(1, 't1', 'math_quote'),
    ]);
    expect(parts.find((part) => part.type === 'tool-call')).toEqual({
      type: 'tool-call',
      toolCall: { id: 't0', toolName: 'math.quote', arguments: '{"año":2021}' },
    });
    // The stream then breaks: the call that went out stays out, and the error part still ends the stream.
    expect(outline(parts)).toEqual(['start t0', 'call t0', 'start t1', 'error']);
  });
});
