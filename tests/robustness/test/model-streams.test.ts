// Case 21: hostile model streams through the streaming loop. The loop drives `model.stream()` and starts `eager`
// tools while the answer is still coming; whatever a stream holds (duplicate, empty or prototype-named ids, unknown
// tools, broken arguments, parts for calls never announced, reasoning, an error mid-answer), a streamed run must
// end as the same answer read whole would (`generate`), run each call at most once, and answer every call once.
import {
  collectStream,
  createUsage,
  type LanguageModel,
  type ModelRequest,
  ProviderError,
  type RunEvent,
  redactSecrets,
  registerSecret,
  SPECIFICATION_VERSION,
  type StreamPart,
  type ToolCall,
} from '@org/core';
import { runAgent, streamAgent } from '@org/planner';
import { defineTool, ToolRegistry } from '@org/tools';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { assertEveryCallAnsweredOnce, eventLog, NUM_RUNS, propertyTimeout } from './support/run-helpers.js';

/** A model answering from fixed part lists: streamed as they are, or collected whole for `generate`. */
function partsModel(answers: readonly (readonly StreamPart[])[], streaming: boolean): LanguageModel {
  const queue = [...answers];
  const next = (): readonly StreamPart[] => queue.shift() ?? [finish('stop')];
  async function* stream(parts: readonly StreamPart[]): AsyncGenerator<StreamPart> {
    for (const part of parts) {
      await Promise.resolve();
      yield part;
    }
  }
  return {
    specificationVersion: SPECIFICATION_VERSION,
    provider: 'hostile',
    modelId: 'hostile-stream',
    capabilities: {
      toolCalls: true,
      toolChoice: { auto: 'native', none: 'native', required: 'native', tool: 'native' },
      parallelToolCalls: true,
      strictSchemas: false,
      streaming,
    },
    generate: (_request: ModelRequest) => collectStream(stream(next())),
    stream: (_request: ModelRequest) => stream(next()),
  };
}

const finish = (finishReason: 'stop' | 'tool-calls' | 'length'): StreamPart => ({
  type: 'finish',
  finishReason,
  usage: createUsage({ inputTokens: 3, outputTokens: 2 }),
  adjustments: [],
});

function tools(executions: string[]): ToolRegistry {
  return ToolRegistry.from([
    defineTool({
      name: 'lookup',
      description: 'Looks a word up.',
      input: z.object({ word: z.string() }),
      eager: true,
      execute: async ({ word }, { signal }) => {
        executions.push(`lookup(${word})`);
        await new Promise((resolve) => setTimeout(resolve, 1));
        signal.throwIfAborted();
        return `${word}!`;
      },
    }),
    defineTool({
      name: 'save',
      description: 'Saves a note.',
      input: z.object({ note: z.string() }),
      execute: ({ note }) => {
        executions.push(`save(${note})`);
        return 'saved';
      },
    }),
  ]);
}

const ids = fc.constantFrom('c1', 'c2', 'c1', '', '__proto__', 'constructor', 'toString');
const names = fc.constantFrom('lookup', 'lookup', 'save', 'unknown_tool', '__proto__', 'hasOwnProperty');
const argumentTexts = fc.oneof(
  fc.string({ maxLength: 6 }).map((word) => JSON.stringify({ word, note: word })),
  fc.constantFrom('{"word":', '{"word":"a"', 'not json', '{}', '{"__proto__":{"x":1},"word":"p"}', '[1,2]'),
);
const call = fc.record({ id: ids, toolName: names, arguments: argumentTexts });

/** One answer's parts: optional text and reasoning, calls written start → deltas → complete, in stream order. */
const answer = fc
  .record({
    text: fc.option(fc.string({ maxLength: 12 }), { nil: undefined }),
    reasoning: fc.boolean(),
    calls: fc.array(call, { maxLength: 4 }),
    strayDelta: fc.boolean(),
    end: fc.constantFrom('finish', 'finish', 'finish', 'error', 'length'),
  })
  .map(({ text, reasoning, calls, strayDelta, end }) => {
    const parts: StreamPart[] = [];
    if (reasoning) {
      parts.push({ type: 'reasoning-delta', delta: 'hmm' });
      parts.push({ type: 'reasoning', reasoning: { type: 'reasoning', provider: 'hostile', text: 'hmm' } });
    }
    if (text !== undefined) parts.push({ type: 'text-delta', delta: text });
    if (strayDelta)
      parts.push({ type: 'tool-call-delta', toolCallId: 'never-started', argumentsDelta: '{"a' });
    for (const toolCall of calls as ToolCall[]) {
      parts.push({ type: 'tool-call-start', toolCallId: toolCall.id, toolName: toolCall.toolName });
      const cut = Math.floor(toolCall.arguments.length / 2);
      parts.push({
        type: 'tool-call-delta',
        toolCallId: toolCall.id,
        argumentsDelta: toolCall.arguments.slice(0, cut),
      });
      parts.push({
        type: 'tool-call-delta',
        toolCallId: toolCall.id,
        argumentsDelta: toolCall.arguments.slice(cut),
      });
      parts.push({ type: 'tool-call', toolCall });
    }
    if (end === 'error') {
      parts.push({
        type: 'error',
        error: new ProviderError({ provider: 'hostile', message: 'The stream broke.' }),
      });
    } else {
      parts.push(finish(end === 'length' ? 'length' : calls.length > 0 ? 'tool-calls' : 'stop'));
    }
    return { parts, errors: end === 'error', text, reasoning, calls: calls.length };
  });

describe('21. hostile model streams through the streaming loop', () => {
  it(
    'property: a streamed run ends as the answer read whole would; each call runs at most once and is answered once',
    async () => {
      await fc.assert(
        fc.asyncProperty(answer, async ({ parts, errors, text, reasoning }) => {
          const streamedRuns: string[] = [];
          const log = eventLog();
          const streamed = await runAgent({
            model: partsModel([parts, [{ type: 'text-delta', delta: 'Done.' }, finish('stop')]], true),
            tools: tools(streamedRuns),
            task: 'Go.',
            onEvent: log.listener,
          });
          const wholeRuns: string[] = [];
          const whole = await runAgent({
            model: partsModel([parts, [{ type: 'text-delta', delta: 'Done.' }, finish('stop')]], false),
            tools: tools(wholeRuns),
            task: 'Go.',
          });
          expect(streamed.finishReason).toBe(whole.finishReason);
          assertEveryCallAnsweredOnce(streamed);
          // Order: what the model wrote before its calls (reasoning, then text) reaches listeners before any event
          // of a call, whole (the redaction hold-back is released at the boundary, not at the answer's end).
          const firstStep = log.events.filter((event) => 'step' in event && event.step === 0);
          const firstCallEvent = firstStep.findIndex((event) => event.type.startsWith('tool-call-'));
          const beforeCalls = firstCallEvent === -1 ? firstStep : firstStep.slice(0, firstCallEvent);
          const written = (type: 'text-delta' | 'reasoning-delta', events: readonly RunEvent[]): string =>
            events.flatMap((event) => (event.type === type ? [event.delta] : [])).join('');
          if (firstCallEvent !== -1) {
            expect(written('text-delta', beforeCalls)).toBe(redactSecrets(text ?? ''));
            expect(written('reasoning-delta', beforeCalls)).toBe(reasoning ? 'hmm' : '');
            expect(written('text-delta', firstStep.slice(firstCallEvent))).toBe('');
          }
          const lastReasoning = beforeCalls.findLastIndex((event) => event.type === 'reasoning-delta');
          const firstText = beforeCalls.findIndex((event) => event.type === 'text-delta');
          if (lastReasoning !== -1 && firstText !== -1) expect(lastReasoning).toBeLessThan(firstText);
          // Every tool call that started ended, once.
          const started = log.ofType('tool-call-started').map((event) => event.action.id);
          const ended = log.ofType('tool-call-finished').map((event) => event.observation.actionId);
          expect(new Set(started).size).toBe(started.length);
          for (const id of started) expect(ended.filter((end) => end === id)).toHaveLength(1);
          if (errors) {
            // The answer was lost: what started early was aborted, nothing was recorded for it.
            expect(streamed.finishReason).toBe('error');
            expect(streamed.messages).toEqual(whole.messages);
            return;
          }
          expect(streamed.messages).toEqual(whole.messages);
          expect(streamed.observations.map((observation) => observation.status)).toEqual(
            whole.observations.map((observation) => observation.status),
          );
          expect([...streamedRuns].sort()).toEqual([...wholeRuns].sort());
        }),
        { numRuns: Math.max(1, Math.floor(NUM_RUNS / 5)) },
      );
    },
    propertyTimeout(5),
  );

  it(
    'property: a registered secret split across text deltas anywhere in an answer with tool calls never reaches a listener, and the text before each call comes before its events',
    async () => {
      const secret = 'sk-streamed-property-0123456789abcdef';
      registerSecret(secret);
      const runText = fc
        .tuple(
          fc.constantFrom('', 'The key ', 'Note: '),
          fc.boolean(),
          fc.constantFrom('', ' and more.', ' ok'),
        )
        .map(([before, withSecret, after]) => `${before}${withSecret ? secret : ''}${after}`);
      const cuts = fc.array(fc.integer({ min: 1, max: 60 }), { maxLength: 6 });
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(runText, cuts, fc.boolean()), { minLength: 1, maxLength: 3 }),
          async (runs) => {
            // Each run of text is cut into deltas at arbitrary places; a call (or reasoning) follows some runs.
            const parts: StreamPart[] = [];
            const calls: string[] = [];
            runs.forEach(([text, at, thenCall], index) => {
              let rest = text;
              for (const cut of at) {
                if (rest === '') break;
                parts.push({ type: 'text-delta', delta: rest.slice(0, cut) });
                rest = rest.slice(cut);
              }
              if (rest !== '') parts.push({ type: 'text-delta', delta: rest });
              if (thenCall) {
                const id = `c${index}`;
                calls.push(id);
                parts.push({ type: 'tool-call-start', toolCallId: id, toolName: 'lookup' });
                parts.push({ type: 'tool-call-delta', toolCallId: id, argumentsDelta: '{"word":"a"}' });
                parts.push({
                  type: 'tool-call',
                  toolCall: { id, toolName: 'lookup', arguments: '{"word":"a"}' },
                });
              } else {
                parts.push({ type: 'reasoning-delta', delta: 'thinking' });
              }
            });
            parts.push(finish(calls.length > 0 ? 'tool-calls' : 'stop'));
            const stream = streamAgent({
              model: partsModel([parts, [{ type: 'text-delta', delta: 'Done.' }, finish('stop')]], true),
              tools: tools([]),
              task: 'Go.',
            });
            const events: RunEvent[] = [];
            for await (const event of stream) events.push(event);
            const firstStep = events.filter((event) => 'step' in event && event.step === 0);
            const shown = firstStep.flatMap((event) =>
              event.type === 'text-delta' || event.type === 'reasoning-delta' ? [event.delta] : [],
            );
            expect(shown.join('')).not.toContain('0123456789');
            for (const delta of shown) expect(delta).not.toContain('0123456789');
            // Each run's text, redacted whole, arrives before the call that follows it in the stream (and a run
            // followed by reasoning before that reasoning: the text is released there too).
            let position = 0;
            let expected = '';
            runs.forEach(([text, , thenCall], index) => {
              expected += redactSecrets(text);
              if (!thenCall) return;
              const boundary = firstStep.findIndex(
                (event) => event.type === 'tool-call-streaming-started' && event.toolCallId === `c${index}`,
              );
              expect(boundary).toBeGreaterThanOrEqual(position);
              const between = firstStep
                .slice(position, boundary)
                .flatMap((event) => (event.type === 'text-delta' ? [event.delta] : []))
                .join('');
              expect(between).toBe(expected);
              expected = '';
              position = boundary + 1;
            });
            expect((await stream.result).finishReason).toBe('final-answer');
          },
        ),
        { numRuns: Math.max(1, Math.floor(NUM_RUNS / 5)) },
      );
    },
    propertyTimeout(5),
  );
});
