import { IncompleteToolCallError, type ReasoningPart, type StreamPart, ToolCallPolicy } from '@org/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MalformedStreamError } from '../src/malformed-stream-error.js';
import { createPropertyNames } from '../src/property-names.js';
import { StreamAssembler, type StreamEvent } from '../src/stream-assembler.js';

// 1,000 runs in CI; `pnpm test:stress` sets FC_NUM_RUNS=100000. fast-check prints the seed of a failure.
const numRuns = Number(process.env.FC_NUM_RUNS ?? 1000);

type Block =
  | { kind: 'text'; text: string }
  | { kind: 'tool'; id: string; name: string; args: string }
  | { kind: 'thinking'; text: string; signature: string }
  | { kind: 'redacted'; data: string };

const jsonObject = fc
  .dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 })
  .map((value) => JSON.stringify(value));
const block: fc.Arbitrary<Block> = fc.oneof(
  fc.record({ kind: fc.constant('text' as const), text: fc.string({ minLength: 1, maxLength: 30 }) }),
  fc.record({
    kind: fc.constant('tool' as const),
    id: fc.uuid().map((uuid) => `toolu_${uuid}`),
    name: fc.constantFrom('get_weather', 'search', 'lookup'),
    args: jsonObject,
  }),
  fc.record({
    kind: fc.constant('thinking' as const),
    text: fc.string({ maxLength: 30 }),
    signature: fc.base64String({ minLength: 4, maxLength: 24 }),
  }),
  fc.record({
    kind: fc.constant('redacted' as const),
    data: fc.base64String({ minLength: 4, maxLength: 24 }),
  }),
);

/** The reasoning parts a block list must produce, in order. */
function expectedReasoning(blocks: readonly Block[]): ReasoningPart[] {
  return blocks.flatMap((item): ReasoningPart[] => {
    if (item.kind === 'thinking') {
      return [{ type: 'reasoning', provider: 'anthropic', text: item.text, signature: item.signature }];
    }
    if (item.kind === 'redacted')
      return [{ type: 'reasoning', provider: 'anthropic', text: '', redactedData: item.data }];
    return [];
  });
}

/** Splits `text` at the given cut points (positions modulo its length). */
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

function render(
  blocks: readonly Block[],
  cuts: readonly number[],
  noise: readonly number[],
  stopReason: string,
): StreamEvent[] {
  const events: StreamEvent[] = [
    {
      type: 'message_start',
      message: { id: 'msg_p', content: [], usage: { input_tokens: 3, output_tokens: 1 } },
    },
  ];
  blocks.forEach((item, index) => {
    if (item.kind === 'text') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const piece of split(item.text, cuts))
        events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
    } else if (item.kind === 'thinking') {
      events.push({
        type: 'content_block_start',
        index,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      });
      for (const piece of split(item.text, cuts))
        events.push({
          type: 'content_block_delta',
          index,
          delta: { type: 'thinking_delta', thinking: piece },
        });
      events.push({
        type: 'content_block_delta',
        index,
        delta: { type: 'signature_delta', signature: item.signature },
      });
    } else if (item.kind === 'redacted') {
      events.push({
        type: 'content_block_start',
        index,
        content_block: { type: 'redacted_thinking', data: item.data },
      });
    } else {
      events.push({
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: item.id, name: item.name, input: {} },
      });
      for (const piece of split(item.args, cuts))
        events.push({
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: piece },
        });
    }
    events.push({ type: 'content_block_stop', index });
  });
  events.push({ type: 'message_delta', delta: { stop_reason: stopReason }, usage: { output_tokens: 9 } });
  events.push({ type: 'message_stop' });
  // Pings and unknown events anywhere after message_start.
  for (const position of noise) {
    const at = 1 + (position % events.length);
    events.splice(
      at,
      0,
      position % 2 === 0 ? { type: 'ping' } : { type: 'future_event', index: 0, delta: { x: 1 } },
    );
  }
  return events;
}

function run(events: readonly StreamEvent[]): StreamPart[] {
  const assembler = new StreamAssembler({ policy: ToolCallPolicy.acceptAll(), adjustments: [] });
  const parts: StreamPart[] = [];
  for (const event of events) {
    parts.push(...assembler.push(event));
    if (assembler.isDone()) break;
  }
  if (!assembler.isDone()) parts.push({ type: 'error', error: assembler.endedEarly() });
  return parts;
}

const cutsArbitrary = fc.array(fc.nat(200), { maxLength: 6 });
const noiseArbitrary = fc.array(fc.nat(500), { maxLength: 5 });

describe('StreamAssembler', () => {
  it('yields the same text and calls for every chunking, with pings and unknown events anywhere', () => {
    fc.assert(
      fc.property(fc.array(block, { maxLength: 5 }), cutsArbitrary, noiseArbitrary, (blocks, cuts, noise) => {
        const hasCalls = blocks.some((item) => item.kind === 'tool');
        const parts = run(render(blocks, cuts, noise, hasCalls ? 'tool_use' : 'end_turn'));
        const text = parts.flatMap((part) => (part.type === 'text-delta' ? [part.delta] : [])).join('');
        expect(text).toBe(blocks.flatMap((item) => (item.kind === 'text' ? [item.text] : [])).join(''));
        const calls = parts.flatMap((part) => (part.type === 'tool-call' ? [part.toolCall] : []));
        expect(calls).toEqual(
          blocks.flatMap((item) =>
            item.kind === 'tool' ? [{ id: item.id, toolName: item.name, arguments: item.args }] : [],
          ),
        );
        for (const call of calls) {
          const deltas = parts.flatMap((part) =>
            part.type === 'tool-call-delta' && part.toolCallId === call.id ? [part.argumentsDelta] : [],
          );
          expect(deltas.join('')).toBe(call.arguments);
        }
        const reasoning = parts.flatMap((part) => (part.type === 'reasoning' ? [part.reasoning] : []));
        expect(reasoning).toEqual(expectedReasoning(blocks));
        // The reasoning deltas add up to the thinking text, block after block.
        const thinking = parts
          .flatMap((part) => (part.type === 'reasoning-delta' ? [part.delta] : []))
          .join('');
        expect(thinking).toBe(
          blocks.flatMap((item) => (item.kind === 'thinking' ? [item.text] : [])).join(''),
        );
        const last = parts[parts.length - 1];
        expect(last).toMatchObject({
          type: 'finish',
          finishReason: hasCalls ? 'tool-calls' : 'stop',
          usage: { inputTokens: 3, outputTokens: 9 },
        });
        expect(parts.filter((part) => part.type === 'finish' || part.type === 'error')).toHaveLength(1);
      }),
      { numRuns },
    );
  });

  it('never emits the call a max_tokens stop cut off, and emits every call before it', () => {
    fc.assert(
      fc.property(
        fc.array(block, { maxLength: 4 }),
        block,
        cutsArbitrary,
        fc.nat(),
        (before, last, cuts, cutAt) => {
          const cutBlock: Block =
            last.kind === 'tool'
              ? { ...last, args: last.args.slice(0, cutAt % (last.args.length + 1)) }
              : last;
          const parts = run(render([...before, cutBlock], cuts, [], 'max_tokens'));
          const calls = parts.flatMap((part) => (part.type === 'tool-call' ? [part.toolCall.id] : []));
          expect(calls).toEqual(before.flatMap((item) => (item.kind === 'tool' ? [item.id] : [])));
          const end = parts[parts.length - 1];
          if (cutBlock.kind === 'tool') {
            expect(end?.type).toBe('error');
            const error = (end as { error: unknown }).error;
            expect(IncompleteToolCallError.isInstance(error)).toBe(true);
            expect(error).toMatchObject({
              toolCallId: cutBlock.id,
              partialArguments: cutBlock.args === '' ? '{}' : cutBlock.args,
            });
          } else {
            expect(end).toMatchObject({ type: 'finish', finishReason: 'length' });
          }
        },
      ),
      { numRuns },
    );
  });

  it('a stream cut at any event: no call that was not known complete, the text so far as partialText', () => {
    fc.assert(
      fc.property(
        fc.array(block, { minLength: 1, maxLength: 5 }),
        cutsArbitrary,
        fc.nat(),
        (blocks, cuts, cutAt) => {
          const events = render(blocks, cuts, [], 'tool_use');
          const prefix = events.slice(0, cutAt % events.length);
          const parts = run(prefix);
          const end = parts[parts.length - 1];
          const error = (end as { error: unknown }).error;
          expect(MalformedStreamError.isInstance(error)).toBe(true);
          const text = parts.flatMap((part) => (part.type === 'text-delta' ? [part.delta] : [])).join('');
          expect((error as MalformedStreamError).partialText).toBe(text);
          // A call is emitted only once a later block started or message_delta gave the stop reason.
          const emitted = new Set(
            parts.flatMap((part) => (part.type === 'tool-call' ? [part.toolCall.id] : [])),
          );
          const startedIndexes = prefix
            .filter((event) => event.type === 'content_block_start')
            .map((event) => event.index as number);
          const lastStarted = blocks[startedIndexes[startedIndexes.length - 1] ?? -1];
          const stopped = prefix.some((event) => event.type === 'message_delta');
          if (lastStarted?.kind === 'tool' && !stopped) expect(emitted.has(lastStarted.id)).toBe(false);
          for (const call of parts.flatMap((part) => (part.type === 'tool-call' ? [part.toolCall] : []))) {
            expect(() => JSON.parse(call.arguments)).not.toThrow();
          }
        },
      ),
      { numRuns },
    );
  });

  it('ignores a repeated message_start of the same message and refuses a spliced one', () => {
    const start = {
      type: 'message_start',
      message: { id: 'msg_a', content: [], usage: { input_tokens: 1 } },
    };
    const assembler = new StreamAssembler({ policy: ToolCallPolicy.acceptAll(), adjustments: [] });
    expect(assembler.push(start)).toEqual([]);
    expect(assembler.push(start)).toEqual([]);
    expect(() =>
      assembler.push({ type: 'message_start', message: { id: 'msg_b', content: [] } }),
    ).toThrowError(/msg_b/);
    expect(assembler.isDone()).toBe(true);
  });

  it('reads blocks carried in message_start like streamed ones', () => {
    const parts = run([
      {
        type: 'message_start',
        message: {
          id: 'msg_c',
          content: [
            { type: 'text', text: 'Hi. ' },
            { type: 'tool_use', id: 'toolu_c', name: 'search', input: { q: 1 } },
          ],
        },
      },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 2 } },
      { type: 'message_stop' },
    ]);
    expect(parts.filter((part) => part.type === 'text-delta' || part.type === 'tool-call')).toEqual([
      { type: 'text-delta', delta: 'Hi. ' },
      { type: 'tool-call', toolCall: { id: 'toolu_c', toolName: 'search', arguments: '{"q":1}' } },
    ]);
  });

  it('leaves out blocks the server handled (server tools, MCP, code execution callers), keeps thinking', () => {
    const parts = run([
      { type: 'message_start', message: { id: 'msg_d', content: [] } },
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hmm' } },
      { type: 'content_block_stop', index: 0 },
      {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} },
      },
      {
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'input_json_delta', partial_json: '{"query":"x"}' },
      },
      { type: 'content_block_stop', index: 1 },
      {
        type: 'content_block_start',
        index: 2,
        content_block: {
          type: 'tool_use',
          id: 'toolu_e',
          name: 'rollDie',
          input: { p: 1 },
          caller: { type: 'code_execution_20250825', tool_id: 'srvtoolu_1' },
        },
      },
      { type: 'content_block_stop', index: 2 },
      { type: 'content_block_start', index: 3, content_block: { type: 'brand_new_block', data: 1 } },
      { type: 'content_block_stop', index: 3 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: {} },
      { type: 'message_stop' },
    ]);
    expect(parts).toEqual([
      { type: 'reasoning-delta', delta: 'hmm' },
      // No signature_delta arrived: the part has no signature (never an empty one).
      { type: 'reasoning', reasoning: { type: 'reasoning', provider: 'anthropic', text: 'hmm' } },
      {
        type: 'finish',
        finishReason: 'other',
        rawFinishReason: 'tool_use',
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        adjustments: [],
        responseId: 'msg_d',
      },
    ]);
  });
});

/** `start toolu_a`, `call toolu_a`, ... for the tool parts, the other part types as they are (deltas left out). */
const outline = (parts: readonly StreamPart[]): string[] =>
  parts.flatMap((part) => {
    if (part.type === 'tool-call-start') return [`start ${part.toolCallId}`];
    if (part.type === 'tool-call') return [`call ${part.toolCall.id}`];
    return part.type === 'tool-call-delta' ? [] : [part.type];
  });

const MESSAGE_START: StreamEvent = {
  type: 'message_start',
  message: { id: 'msg_e', content: [], usage: { input_tokens: 2 } },
};
const toolStart = (index: number, id: string, name: string): StreamEvent => ({
  type: 'content_block_start',
  index,
  content_block: { type: 'tool_use', id, name, input: {} },
});
const inputDelta = (index: number, partial_json: string): StreamEvent => ({
  type: 'content_block_delta',
  index,
  delta: { type: 'input_json_delta', partial_json },
});
const stop = (index: number): StreamEvent => ({ type: 'content_block_stop', index });
const messageEnd = (stopReason: string): StreamEvent[] => [
  { type: 'message_delta', delta: { stop_reason: stopReason }, usage: { output_tokens: 7 } },
  { type: 'message_stop' },
];

describe('tool calls go out as soon as the stream shows them complete', () => {
  it("a call goes out when the next block starts, before that block's first part; the last at the stop reason", () => {
    const parts = run([
      MESSAGE_START,
      toolStart(0, 'toolu_a', 'get_weather'),
      inputDelta(0, '{"city":"Paris"}'),
      stop(0),
      toolStart(1, 'toolu_b', 'search'),
      inputDelta(1, '{"q":"rain"}'),
      stop(1),
      ...messageEnd('tool_use'),
    ]);
    expect(outline(parts)).toEqual([
      'start toolu_a',
      'call toolu_a',
      'start toolu_b',
      'call toolu_b',
      'finish',
    ]);
  });

  it('blocks interleaved by a server: each call goes out once, complete, in the order the blocks started', () => {
    const parts = run([
      MESSAGE_START,
      toolStart(0, 'toolu_a', 'get_weather'),
      toolStart(1, 'toolu_b', 'search'),
      inputDelta(0, '{"city":'),
      inputDelta(1, '{"q":'),
      inputDelta(0, '"Paris"}'),
      stop(0),
      inputDelta(1, '"rain"}'),
      stop(1),
      ...messageEnd('tool_use'),
    ]);
    // toolu_a is complete at its stop: a later block had started already.
    expect(outline(parts)).toEqual([
      'start toolu_a',
      'start toolu_b',
      'call toolu_a',
      'call toolu_b',
      'finish',
    ]);
    expect(parts.flatMap((part) => (part.type === 'tool-call' ? [part.toolCall.arguments] : []))).toEqual([
      '{"city":"Paris"}',
      '{"q":"rain"}',
    ]);
  });

  it('a tool block the server never stopped ends with the message; nothing is dropped', () => {
    const parts = run([
      MESSAGE_START,
      toolStart(0, 'toolu_a', 'get_weather'),
      toolStart(1, 'toolu_b', 'search'),
      inputDelta(0, '{"city":"Paris"}'),
      inputDelta(1, '{"q":"rain"}'),
      stop(1),
      ...messageEnd('tool_use'),
    ]);
    expect(outline(parts)).toEqual([
      'start toolu_a',
      'start toolu_b',
      'call toolu_a',
      'call toolu_b',
      'finish',
    ]);
  });

  it('a max_tokens stop: the calls before the last went out early, the cut-off last one is an error', () => {
    const parts = run([
      MESSAGE_START,
      toolStart(0, 'toolu_a', 'get_weather'),
      inputDelta(0, '{"city":"Paris"}'),
      stop(0),
      toolStart(1, 'toolu_b', 'search'),
      inputDelta(1, '{"q":"ra'),
      stop(1),
      ...messageEnd('max_tokens'),
    ]);
    expect(outline(parts)).toEqual(['start toolu_a', 'call toolu_a', 'start toolu_b', 'error']);
    const last = parts.at(-1);
    expect(IncompleteToolCallError.isInstance(last?.type === 'error' ? last.error : undefined)).toBe(true);
  });

  it('a call the policy rejects never shows, and the accepted calls after it still go out early', () => {
    const assembler = new StreamAssembler({
      policy: ToolCallPolicy.expectTool('get_weather'),
      adjustments: [],
    });
    const parts = [
      MESSAGE_START,
      toolStart(0, 'toolu_other', 'search'),
      inputDelta(0, '{"q":"umbrella"}'),
      stop(0),
      toolStart(1, 'toolu_paris', 'get_weather'),
      inputDelta(1, '{"city":"Paris"}'),
      stop(1),
      toolStart(2, 'toolu_oslo', 'get_weather'),
      inputDelta(2, '{"city":"Oslo"}'),
      stop(2),
      ...messageEnd('tool_use'),
    ].flatMap((event) => assembler.push(event));
    expect(outline(parts)).toEqual([
      'start toolu_paris',
      'call toolu_paris',
      'start toolu_oslo',
      'call toolu_oslo',
      'finish',
    ]);
    expect(JSON.stringify(parts.slice(0, -1))).not.toContain('toolu_other');
    const finish = parts.at(-1);
    expect(finish?.type === 'finish' ? finish.adjustments.map((item) => item.kind) : []).toEqual([
      'tool-calls-rejected',
    ]);
  });

  it("a call emitted early carries the tool's own property names, restored from the names sent", () => {
    const propertyNames = createPropertyNames([
      {
        name: 'cotizar',
        description: 'Cotiza.',
        inputSchema: { type: 'object', properties: { año: { type: 'integer' }, marca: { type: 'string' } } },
      },
    ]);
    const wire = propertyNames.argumentsToWire('cotizar', '{"año":2021,"marca":"Seat"}');
    expect(wire).not.toContain('año');
    const assembler = new StreamAssembler({
      policy: ToolCallPolicy.acceptAll(),
      adjustments: [],
      propertyNames,
    });
    const parts = [
      MESSAGE_START,
      toolStart(0, 'toolu_q', 'cotizar'),
      inputDelta(0, wire.slice(0, 4)),
      inputDelta(0, wire.slice(4)),
      stop(0),
      toolStart(1, 'toolu_r', 'cotizar'),
    ].flatMap((event) => assembler.push(event));
    expect(outline(parts)).toEqual(['start toolu_q', 'call toolu_q', 'start toolu_r']);
    expect(parts.find((part) => part.type === 'tool-call')).toMatchObject({
      toolCall: { arguments: '{"año":2021,"marca":"Seat"}' },
    });
  });
});
