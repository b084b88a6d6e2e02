import { ProviderError, type StreamPart, type ToolCall } from '@org/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ResponsesStreamAssembler } from '../../src/responses/stream-assembler.js';

const RUNS = Number(process.env.FC_NUM_RUNS ?? 1000);

describe('ResponsesStreamAssembler', () => {
  it('any interleaving of argument deltas of parallel calls assembles the same calls', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify({ value })),
          { minLength: 1, maxLength: 4 },
        ),
        fc.array(fc.nat(), { maxLength: 60 }),
        fc.integer({ min: 1, max: 7 }),
        (argumentTexts, schedule, size) => {
          const calls: ToolCall[] = argumentTexts.map((text, index) => ({
            id: `call_${index}`,
            toolName: `tool_${index % 2}`,
            arguments: text,
          }));
          const queues = calls.map((call, index) => {
            const events: object[] = [
              {
                type: 'response.output_item.added',
                output_index: index,
                item: {
                  type: 'function_call',
                  id: `fc_${index}`,
                  call_id: call.id,
                  name: call.toolName,
                  arguments: '',
                },
              },
            ];
            for (let start = 0; start < call.arguments.length; start += size) {
              events.push({
                type: 'response.function_call_arguments.delta',
                item_id: `fc_${index}`,
                output_index: index,
                delta: call.arguments.slice(start, start + size),
              });
            }
            events.push({
              type: 'response.output_item.done',
              output_index: index,
              item: {
                type: 'function_call',
                id: `fc_${index}`,
                call_id: call.id,
                name: call.toolName,
                arguments: call.arguments,
              },
            });
            return events;
          });
          const assembler = new ResponsesStreamAssembler('openai');
          const parts = [];
          let step = 0;
          while (queues.some((queue) => queue.length > 0)) {
            const ready = queues.filter((queue) => queue.length > 0);
            parts.push(...assembler.push(ready[(schedule[step++] ?? 0) % ready.length]!.shift()));
          }
          // A completed event without the output list: the assembled calls are what the answer holds.
          assembler.push({ type: 'response.completed', response: { id: 'resp_1', status: 'completed' } });
          const answer = assembler.finish();
          expect([...answer.toolCalls].sort((a, b) => a.id.localeCompare(b.id))).toEqual(calls);
          expect(answer.finishReason).toBe('tool-calls');
          // Each call once: early at its item's done event, in the order the calls began, or by finish().
          const early = parts.flatMap((part) => (part.type === 'tool-call' ? [part.toolCall] : []));
          expect([...early, ...assembler.unemittedToolCalls()]).toEqual(answer.toolCalls);
          for (const call of early) {
            const at = parts.findIndex((part) => part.type === 'tool-call' && part.toolCall.id === call.id);
            const lastDelta = parts.findLastIndex(
              (part) => part.type === 'tool-call-delta' && part.toolCallId === call.id,
            );
            expect(at).toBeGreaterThan(lastDelta);
          }
          for (const call of calls) {
            const deltas = parts
              .filter((part) => part.type === 'tool-call-delta' && part.toolCallId === call.id)
              .map((part) => (part.type === 'tool-call-delta' ? part.argumentsDelta : ''))
              .join('');
            expect(deltas).toBe(call.arguments);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("each call goes out at its item's output_item.done, before the next call starts; the final response agrees", () => {
    const assembler = new ResponsesStreamAssembler('openai');
    const item = (index: number, status: string, text: string): object => ({
      type: 'function_call',
      id: `fc_${index}`,
      call_id: `call_${index}`,
      name: 'lookup',
      arguments: text,
      status,
    });
    const parts: StreamPart[] = [];
    for (const index of [0, 1]) {
      const text = `{"n":${index}}`;
      parts.push(
        ...assembler.push({
          type: 'response.output_item.added',
          output_index: index,
          item: item(index, 'in_progress', ''),
        }),
        ...assembler.push({
          type: 'response.function_call_arguments.delta',
          item_id: `fc_${index}`,
          output_index: index,
          delta: text,
        }),
        ...assembler.push({
          type: 'response.function_call_arguments.done',
          item_id: `fc_${index}`,
          output_index: index,
          arguments: text,
        }),
        ...assembler.push({
          type: 'response.output_item.done',
          output_index: index,
          item: item(index, 'completed', text),
        }),
      );
    }
    expect(parts.map((part) => (part.type === 'tool-call' ? `call ${part.toolCall.id}` : part.type))).toEqual(
      [
        'tool-call-start',
        'tool-call-delta',
        'call call_0',
        'tool-call-start',
        'tool-call-delta',
        'call call_1',
      ],
    );
    assembler.push({
      type: 'response.completed',
      response: {
        status: 'completed',
        output: [item(0, 'completed', '{"n":0}'), item(1, 'completed', '{"n":1}')],
      },
    });
    expect(assembler.finish().toolCalls.map((call) => call.id)).toEqual(['call_0', 'call_1']);
    expect(assembler.unemittedToolCalls()).toEqual([]);
  });

  it('a call whose item is done incomplete (cut off) waits for the end, and so do the calls after it', () => {
    const assembler = new ResponsesStreamAssembler('openai');
    const done = (index: number, status: string, text: string): StreamPart[] =>
      assembler.push({
        type: 'response.output_item.done',
        output_index: index,
        item: {
          type: 'function_call',
          id: `fc_${index}`,
          call_id: `call_${index}`,
          name: 'lookup',
          arguments: text,
          status,
        },
      });
    expect(done(0, 'incomplete', '{"n":').filter((part) => part.type === 'tool-call')).toEqual([]);
    expect(done(1, 'completed', '{"n":1}').filter((part) => part.type === 'tool-call')).toEqual([]);
    assembler.push({
      type: 'response.incomplete',
      response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
    });
    const answer = assembler.finish();
    expect(answer.finishReason).toBe('length');
    expect(assembler.unemittedToolCalls().map((call) => call.id)).toEqual(['call_0', 'call_1']);
  });

  it('a final response, done event or delta that would change an emitted call is a malformed stream', () => {
    const emitted = (): ResponsesStreamAssembler => {
      const assembler = new ResponsesStreamAssembler('openai');
      const parts = assembler.push({
        type: 'response.output_item.done',
        output_index: 0,
        item: { type: 'function_call', id: 'fc_0', call_id: 'call_0', name: 'lookup', arguments: '{"q":1}' },
      });
      expect(parts.filter((part) => part.type === 'tool-call')).toHaveLength(1);
      return assembler;
    };
    const failures: unknown[] = [];
    const attempt = (action: () => unknown): void => {
      try {
        action();
      } catch (error) {
        failures.push(error);
      }
    };
    attempt(() =>
      emitted().push({
        type: 'response.function_call_arguments.delta',
        item_id: 'fc_0',
        output_index: 0,
        delta: 'x',
      }),
    );
    attempt(() =>
      emitted().push({
        type: 'response.function_call_arguments.done',
        item_id: 'fc_0',
        output_index: 0,
        arguments: '{"q":2}',
      }),
    );
    attempt(() =>
      emitted().push({
        type: 'response.output_item.done',
        output_index: 0,
        item: { type: 'function_call', id: 'fc_0', call_id: 'call_0', name: 'lookup', arguments: '{"q":2}' },
      }),
    );
    attempt(() => {
      const assembler = emitted();
      assembler.push({
        type: 'response.completed',
        response: {
          status: 'completed',
          output: [
            { type: 'function_call', id: 'fc_0', call_id: 'call_0', name: 'lookup', arguments: '{"q":3}' },
          ],
        },
      });
      return assembler.finish();
    });
    expect(failures).toHaveLength(4);
    for (const failure of failures) {
      expect(ProviderError.isInstance(failure)).toBe(true);
      expect(failure).toMatchObject({ providerCode: 'invalid_stream_event' });
      expect((failure as Error).message).toContain("'call_0'");
    }
    // The same arguments again change nothing.
    const same = emitted();
    expect(
      same.push({
        type: 'response.function_call_arguments.done',
        item_id: 'fc_0',
        output_index: 0,
        arguments: '{"q":1}',
      }),
    ).toEqual([]);
  });

  it('a call never completed is not in the answer', () => {
    const assembler = new ResponsesStreamAssembler('openai');
    assembler.push({
      type: 'response.output_item.added',
      output_index: 0,
      item: { type: 'function_call', id: 'fc_0', call_id: 'call_0', name: 'get_weather', arguments: '' },
    });
    assembler.push({
      type: 'response.function_call_arguments.delta',
      item_id: 'fc_0',
      output_index: 0,
      delta: '{"ci',
    });
    expect(assembler.ended).toBe(false);
    assembler.push({
      type: 'response.incomplete',
      response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
    });
    const answer = assembler.finish();
    expect(answer.toolCalls).toEqual([]);
    expect(answer.finishReason).toBe('length');
  });

  it('any fragmentation of reasoning summaries: the deltas add up to the text of the one reasoning part per item', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.string({ minLength: 1, maxLength: 20 }), { maxLength: 3 }), {
          minLength: 1,
          maxLength: 3,
        }),
        fc.integer({ min: 1, max: 6 }),
        (summariesPerItem, size) => {
          const assembler = new ResponsesStreamAssembler('openai');
          const parts: StreamPart[] = [];
          const items = summariesPerItem.map((summaries, index) => ({
            type: 'reasoning',
            id: `rs_${index}`,
            summary: summaries.map((text) => ({ type: 'summary_text', text })),
            encrypted_content: `enc_${index}`,
          }));
          items.forEach((item, outputIndex) => {
            parts.push(
              ...assembler.push({
                type: 'response.output_item.added',
                output_index: outputIndex,
                item: { type: 'reasoning', id: item.id, summary: [] },
              }),
            );
            item.summary.forEach((summary, summaryIndex) => {
              for (let start = 0; start < summary.text.length; start += size) {
                parts.push(
                  ...assembler.push({
                    type: 'response.reasoning_summary_text.delta',
                    item_id: item.id,
                    output_index: outputIndex,
                    summary_index: summaryIndex,
                    delta: summary.text.slice(start, start + size),
                  }),
                );
              }
            });
            parts.push(
              ...assembler.push({ type: 'response.output_item.done', output_index: outputIndex, item }),
            );
          });
          parts.push(
            ...assembler.push({
              type: 'response.completed',
              response: { status: 'completed', output: items },
            }),
          );
          const answer = assembler.finish();
          expect(assembler.unemittedReasoning()).toEqual([]);
          let pending = '';
          const completed: string[] = [];
          for (const part of parts) {
            if (part.type === 'reasoning-delta') pending += part.delta;
            if (part.type === 'reasoning') {
              expect(pending).toBe(part.reasoning.text);
              completed.push(part.reasoning.text);
              pending = '';
            }
          }
          const texts = summariesPerItem.map((summaries) => summaries.join('\n\n'));
          expect(completed).toEqual(texts);
          expect(answer.reasoning?.map((part) => [part.id, part.text, part.encryptedContent])).toEqual(
            items.map((item, index) => [item.id, texts[index], `enc_${index}`]),
          );
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('reasoning whose done event never came is completed from the final response, before finish', () => {
    const assembler = new ResponsesStreamAssembler('openai');
    assembler.push({
      type: 'response.reasoning_summary_text.delta',
      item_id: 'rs_late',
      output_index: 0,
      summary_index: 0,
      delta: 'Thinking',
    });
    assembler.push({
      type: 'response.completed',
      response: {
        status: 'completed',
        output: [{ type: 'reasoning', id: 'rs_late', summary: [{ type: 'summary_text', text: 'Thinking' }] }],
      },
    });
    const answer = assembler.finish();
    const late = { type: 'reasoning', provider: 'openai', text: 'Thinking', id: 'rs_late' };
    expect(answer.reasoning).toEqual([late]);
    expect(assembler.unemittedReasoning()).toEqual([late]);
  });
});
