import type { Message, ToolSpec } from '@org/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  countContentTokens,
  countMessageTokens,
  countOutputTokens,
  countReasoningTokens,
  countRequestTokens,
  countTokens,
  countToolSpecTokens,
  FILE_PART_TOKENS,
  IMAGE_PART_TOKENS,
  MESSAGE_OVERHEAD_TOKENS,
  REQUEST_OVERHEAD_TOKENS,
  renderResponseFormat,
  renderToolSpec,
  TOOL_CALL_OVERHEAD_TOKENS,
} from './index.js';

const weatherTool: ToolSpec = {
  name: 'get_weather',
  description: 'Current weather for a city.',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('token counting (o200k_base)', () => {
  it('counts known texts like the o200k_base tokenizer', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('hello world')).toBe(2);
    // Special-token text in user content is ordinary text, not a control token.
    expect(countTokens('<|endoftext|>')).toBeGreaterThan(1);
  });

  it('counts a message as framing + content + each tool call (name and raw arguments)', () => {
    const message: Message = {
      role: 'assistant',
      content: 'Checking.',
      toolCalls: [{ id: 'call_1', toolName: 'get_weather', arguments: '{"city":"Paris"}' }],
    };
    expect(countMessageTokens(message)).toBe(
      MESSAGE_OVERHEAD_TOKENS +
        countTokens('Checking.') +
        TOOL_CALL_OVERHEAD_TOKENS +
        countTokens('get_weather') +
        countTokens('{"city":"Paris"}'),
    );
  });

  it('counts a tool as the JSON a provider receives', () => {
    expect(JSON.parse(renderToolSpec(weatherTool))).toEqual({
      name: 'get_weather',
      description: 'Current weather for a city.',
      parameters: weatherTool.inputSchema,
    });
    expect(countToolSpecTokens(weatherTool)).toBe(countTokens(renderToolSpec(weatherTool)));
  });

  it('counts a request as the sum of its parts, tools optional', () => {
    const messages: Message[] = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Weather in Paris?' },
    ];
    const withTools = countRequestTokens({ messages, tools: [weatherTool] });
    const withoutTools = countRequestTokens({ messages, tools: [weatherTool] }, { includeTools: false });
    expect(withoutTools).toBe(
      REQUEST_OVERHEAD_TOKENS +
        countMessageTokens(messages[0] as Message) +
        countMessageTokens(messages[1] as Message),
    );
    expect(withTools - withoutTools).toBe(countToolSpecTokens(weatherTool));
  });

  it('counts output as text plus tool names and arguments', () => {
    expect(
      countOutputTokens({
        text: 'ok',
        toolCalls: [{ toolName: 'get_weather', arguments: '{"city":"Rome"}' }],
      }),
    ).toBe(countTokens('ok') + countTokens('get_weather') + countTokens('{"city":"Rome"}'));
  });

  it('counts content parts as their texts plus a fixed cost per image and per file', () => {
    const data = 'iVBORw0KGgo=';
    expect(countContentTokens('Weather in Paris?')).toBe(countTokens('Weather in Paris?'));
    expect(countContentTokens([{ type: 'text', text: 'Weather in Paris?' }])).toBe(
      countTokens('Weather in Paris?'),
    );
    expect(
      countContentTokens([
        { type: 'text', text: 'What is this?' },
        { type: 'image', mediaType: 'image/png', data },
        { type: 'image', url: 'https://example.com/a.png' },
        { type: 'file', mediaType: 'application/pdf', data, filename: 'a-long-report-name.pdf' },
        { type: 'text', text: 'And this?' },
      ]),
    ).toBe(
      countTokens('What is this?') + 2 * IMAGE_PART_TOKENS + FILE_PART_TOKENS + countTokens('And this?'),
    );
    expect(
      countMessageTokens({
        role: 'tool',
        toolCallId: 'call_1',
        toolName: 'radar',
        content: [{ type: 'image', mediaType: 'image/png', data }],
      }),
    ).toBe(MESSAGE_OVERHEAD_TOKENS + IMAGE_PART_TOKENS);
  });

  it('counts the reasoning text of an assistant message, not its opaque fields', () => {
    const message: Message = {
      role: 'assistant',
      content: 'Done.',
      reasoning: [
        { type: 'reasoning', provider: 'scripted', text: 'Think it through.', signature: 'c2lnbmF0dXJl' },
        { type: 'reasoning', provider: 'scripted', text: '', redactedData: 'cmVkYWN0ZWQ=' },
      ],
    };
    expect(countReasoningTokens(message.reasoning ?? [])).toBe(countTokens('Think it through.'));
    expect(countMessageTokens(message)).toBe(
      MESSAGE_OVERHEAD_TOKENS + countTokens('Think it through.') + countTokens('Done.'),
    );
    expect(countOutputTokens({ text: 'Done.', toolCalls: [], reasoning: message.reasoning })).toBe(
      countTokens('Think it through.') + countTokens('Done.'),
    );
  });

  it('counts a response format as the JSON a provider receives', () => {
    const responseFormat = { type: 'json', name: 'answer', schema: { type: 'object' } } as const;
    expect(JSON.parse(renderResponseFormat(responseFormat))).toEqual({
      name: 'answer',
      schema: { type: 'object' },
    });
    const messages: Message[] = [{ role: 'user', content: 'Answer in JSON.' }];
    expect(countRequestTokens({ messages, responseFormat }) - countRequestTokens({ messages })).toBe(
      countTokens(renderResponseFormat(responseFormat)),
    );
  });

  it('property: a request count is additive over its messages', () => {
    const messageArbitrary: fc.Arbitrary<Message> = fc.oneof(
      fc.record({ role: fc.constant('user' as const), content: fc.string({ maxLength: 40 }) }),
      fc.record({ role: fc.constant('system' as const), content: fc.string({ maxLength: 40 }) }),
    );
    fc.assert(
      fc.property(
        fc.array(messageArbitrary, { maxLength: 6 }),
        fc.array(messageArbitrary, { maxLength: 6 }),
        (a, b) => {
          const whole = countRequestTokens({ messages: [...a, ...b] });
          const parts =
            countRequestTokens({ messages: a }) + b.reduce((sum, m) => sum + countMessageTokens(m), 0);
          expect(whole).toBe(parts);
        },
      ),
      { numRuns: 50 },
    );
  });
});

describe('token counting stays linear on pathological text', () => {
  it('counts ordinary text exactly as the tokenizer does, however long', async () => {
    const { Tiktoken } = await import('js-tiktoken/lite');
    const { default: ranks } = await import('js-tiktoken/ranks/o200k_base');
    const reference = new Tiktoken(ranks);
    const word = fc.stringMatching(/^[A-Za-z0-9]{1,12}$/);
    const separator = fc.constantFrom(' ', ', ', '. ', '\n', '": "', '","', '{"', '"}');
    fc.assert(
      fc.property(fc.array(fc.tuple(word, separator), { minLength: 1, maxLength: 120 }), (parts) => {
        const text = parts.map(([w, s]) => w + s).join('');
        expect(countTokens(text)).toBe(reference.encode(text, [], []).length);
      }),
      { numRuns: Math.min(Number(process.env.FC_NUM_RUNS ?? 1000), 300) },
    );
  });

  it('counts any text without over-long pieces exactly as the tokenizer does (piece by piece)', async () => {
    const { Tiktoken } = await import('js-tiktoken/lite');
    const { default: ranks } = await import('js-tiktoken/ranks/o200k_base');
    const reference = new Tiktoken(ranks);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 64 }),
          fc.string({ unit: 'grapheme', maxLength: 64 }),
          fc
            .array(fc.string({ unit: 'grapheme', maxLength: 12 }), { maxLength: 40 })
            .map((words) => words.join(' ')),
        ),
        (text) => {
          expect(countTokens(text)).toBe(reference.encode(text, [], []).length);
        },
      ),
      { numRuns: Math.min(Number(process.env.FC_NUM_RUNS ?? 1000), 1000) },
    );
  });

  it('finishes on a 10^5-character run of one character class (a deeply nested argument)', () => {
    const nested = '['.repeat(100_000) + ']'.repeat(100_000);
    const count = countTokens(nested);
    // One bracket token covers several characters; slicing may add a token per 64-character slice at most.
    expect(count).toBeGreaterThan(0);
    expect(count).toBeLessThanOrEqual(nested.length);
    expect(countTokens('a'.repeat(8_000))).toBeGreaterThan(0);
  });
});
