import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseReActDecision } from './index.js';

describe('parseReActDecision: JSON form', () => {
  it('reads a call_tool decision, args as an object or as JSON text', () => {
    expect(
      parseReActDecision(
        '{"thought": "I need Paris", "type": "call_tool", "tool": "get_weather", "args": {"city": "Paris"}}',
      ),
    ).toEqual({
      ok: true,
      decision: {
        type: 'call_tool',
        thought: 'I need Paris',
        tool: 'get_weather',
        argumentsText: '{"city":"Paris"}',
        format: 'json',
      },
    });
    const asText = parseReActDecision(
      '{"type": "call_tool", "tool": "get_weather", "args": "{\\"city\\": \\"Rome\\"}"}',
    );
    expect(asText.ok && asText.decision.type === 'call_tool' && asText.decision.argumentsText).toBe(
      '{"city": "Rome"}',
    );
  });

  it('reads a final answer inside a code fence with prose around it', () => {
    const text =
      'Here is my decision:\n```json\n{"thought": "done", "type": "final_answer", "answer": "Rome is warmer."}\n```\nThanks!';
    expect(parseReActDecision(text)).toEqual({
      ok: true,
      decision: { type: 'final_answer', thought: 'done', answer: 'Rome is warmer.', format: 'json' },
    });
  });

  it('accepts type spellings models use, and infers the type from the fields', () => {
    const spelled = parseReActDecision('{"type": "Final Answer", "answer": 42}');
    expect(spelled).toMatchObject({ ok: true, decision: { type: 'final_answer', answer: '42' } });
    expect(parseReActDecision('{"tool": "search", "args": {"query": "x"}}')).toMatchObject({
      ok: true,
      decision: { type: 'call_tool', tool: 'search' },
    });
  });

  it('fails with a reason the model can act on', () => {
    const cases: Array<[string, RegExp]> = [
      ['', /empty/],
      ['I think it is sunny.', /No decision was found/],
      ['{"type": "call_tool", "args": {}}', /needs "tool"/],
      ['{"type": "final_answer"}', /needs "answer"/],
      ['{"type": "dance", "tool": "x"}', /"type" must be "call_tool" or "final_answer", got "dance"/],
    ];
    for (const [text, reason] of cases) {
      const result = parseReActDecision(text);
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.reason).toMatch(reason);
        expect(result.reason).toContain('"type": "call_tool"');
      }
    }
  });
});

describe('parseReActDecision: text form', () => {
  it('reads Thought / Action / Action Input, stopping at an Observation line', () => {
    const text =
      'Thought: I need the weather in Paris.\nAction: get_weather\nAction Input: {"city": "Paris"}\nObservation: (hallucinated)';
    expect(parseReActDecision(text)).toEqual({
      ok: true,
      decision: {
        type: 'call_tool',
        thought: 'I need the weather in Paris.',
        tool: 'get_weather',
        argumentsText: '{"city": "Paris"}',
        format: 'text',
      },
    });
  });

  it('reads Thought / Final Answer over several lines', () => {
    expect(
      parseReActDecision('Thought: I know now.\nFinal Answer: Rome is warmer:\n24°C against 18°C.'),
    ).toEqual({
      ok: true,
      decision: {
        type: 'final_answer',
        thought: 'I know now.',
        answer: 'Rome is warmer:\n24°C against 18°C.',
        format: 'text',
      },
    });
  });

  it('keeps broken Action Input text as is, for the argument parser to repair or reject', () => {
    const result = parseReActDecision("Action: get_weather\nAction Input: {city: 'Paris'");
    expect(result).toMatchObject({ ok: true, decision: { argumentsText: "{city: 'Paris'" } });
  });

  it('rejects a Final Answer followed by an Action, an Action without input, and an empty answer', () => {
    for (const text of [
      'Final Answer: done\nThought: wait\nAction: search\nAction Input: {}',
      'Thought: hmm\nAction: search',
      'Final Answer:   ',
      'Action:   \nAction Input: {}',
    ]) {
      expect(parseReActDecision(text).ok).toBe(false);
    }
  });
});

describe('parseReActDecision: answers that run ahead, and Markdown labels', () => {
  const call = (tool: string, argumentsText: string, thought: string) => ({
    ok: true,
    decision: { type: 'call_tool', thought, tool, argumentsText, format: 'text' },
  });

  it('takes the first complete action when the model writes two Thought / Action blocks', () => {
    const text = [
      'Thought: First the weather in Paris.',
      'Action: get_weather',
      'Action Input: {"city": "Paris"}',
      'Thought: Then Rome.',
      'Action: get_weather',
      'Action Input: {"city": "Rome"}',
    ].join('\n');
    expect(parseReActDecision(text)).toEqual(
      call('get_weather', '{"city": "Paris"}', 'First the weather in Paris.'),
    );
  });

  it('ignores an invented observation and a premature final answer after a complete action', () => {
    const text =
      'Thought: Search first.\nAction: search\nAction Input: {"q": "x"}\nObservation: 3 results\nFinal Answer: done';
    expect(parseReActDecision(text)).toEqual(call('search', '{"q": "x"}', 'Search first.'));
  });

  it.each([
    ['**Label:**', (label: string) => `**${label}:**`],
    ['**Label**:', (label: string) => `**${label}**:`],
    ['### Label:', (label: string) => `### ${label}:`],
    ['- Label:', (label: string) => `- ${label}:`],
    ['__Label:__', (label: string) => `__${label}:__`],
  ])('reads Markdown labels written as %s', (_style, label) => {
    const text = [
      `${label('Thought')} I need the weather.`,
      `${label('Action')} \`get_weather\``,
      `${label('Action Input')} {"city": "Paris"}`,
    ].join('\n');
    expect(parseReActDecision(text)).toEqual(call('get_weather', '{"city": "Paris"}', 'I need the weather.'));
    expect(parseReActDecision(`${label('Thought')} done\n${label('Final Answer')} 24°C`)).toEqual({
      ok: true,
      decision: { type: 'final_answer', thought: 'done', answer: '24°C', format: 'text' },
    });
  });

  it('keeps a tool name that ends in an underscore, and unwraps emphasis around a name', () => {
    expect(parseReActDecision('Action: a_\nAction Input: {}')).toMatchObject({ decision: { tool: 'a_' } });
    expect(parseReActDecision('Action: **get_weather**\nAction Input: {}')).toMatchObject({
      decision: { tool: 'get_weather' },
    });
  });

  it('reads a JSON decision with the strict reader: no duplicate key wins, no integer is rounded', () => {
    const duplicate = parseReActDecision(
      '{"type": "call_tool", "tool": "pay", "args": {"to": "alice", "to": "mallory"}}',
    );
    expect(duplicate.ok).toBe(false);
    const exact = parseReActDecision(
      '{"type": "call_tool", "tool": "pay", "args": {"account": 12345678901234567891}}',
    );
    expect(exact.ok).toBe(false);
  });

  it('reads a long hostile text in time linear in its length', () => {
    const unit = 'Thought:\n \n\t\n**Action**\n{"a":';
    const small = unit.repeat(2_000);
    const large = unit.repeat(20_000);
    const time = (text: string): number => {
      const started = performance.now();
      for (let round = 0; round < 3; round++) parseReActDecision(text);
      return performance.now() - started;
    };
    time(small);
    // Ten times the text may take ten times as long, and then some for noise; a quadratic scan takes a hundred.
    expect(time(large)).toBeLessThan(Math.max(1_000, time(small) * 40));
  });
});

describe('parseReActDecision: properties', () => {
  const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,20}$/);
  const args = fc.dictionary(
    fc.stringMatching(/^[a-z]{1,8}$/),
    fc.oneof(fc.string(), fc.integer(), fc.boolean()),
    {
      maxKeys: 4,
    },
  );
  const thought = fc.string().filter((text) => !/[\r\n]|```/.test(text));

  it('never throws, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        const result = parseReActDecision(text);
        expect(typeof result.ok).toBe('boolean');
      }),
      { numRuns: Number(process.env.FC_NUM_RUNS ?? 1000) },
    );
  });

  it('round-trips a call_tool decision written as JSON and as text', () => {
    fc.assert(
      fc.property(name, args, thought, (tool, value, reasoning) => {
        const json = parseReActDecision(
          JSON.stringify({ thought: reasoning, type: 'call_tool', tool, args: value }),
        );
        expect(json).toMatchObject({ ok: true, decision: { type: 'call_tool', tool } });
        if (json.ok && json.decision.type === 'call_tool')
          expect(JSON.parse(json.decision.argumentsText)).toEqual(value);
        const text = parseReActDecision(
          `Thought: x\nAction: ${tool}\nAction Input: ${JSON.stringify(value)}`,
        );
        expect(text).toMatchObject({ ok: true, decision: { type: 'call_tool', tool } });
        if (text.ok && text.decision.type === 'call_tool')
          expect(JSON.parse(text.decision.argumentsText)).toEqual(value);
      }),
      { numRuns: Number(process.env.FC_NUM_RUNS ?? 1000) },
    );
  });

  it('round-trips a final answer written as JSON', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), (answer) => {
        expect(parseReActDecision(JSON.stringify({ type: 'final_answer', answer }))).toMatchObject({
          ok: true,
          decision: { type: 'final_answer', answer },
        });
      }),
      { numRuns: Number(process.env.FC_NUM_RUNS ?? 1000) },
    );
  });
});

describe('code fences around a decision', () => {
  it('are whole lines: backticks inside a value are kept (counterexamples fast-check found)', () => {
    const answer = '{"thought":"done","type":"final_answer","answer":"```"}';
    expect(parseReActDecision(answer)).toMatchObject({
      ok: true,
      decision: { type: 'final_answer', answer: '```' },
    });
    const fenced = '```json\n{"thought":"t","type":"call_tool","tool":"a","args":{"a":"```"}}\n```';
    expect(parseReActDecision(fenced)).toMatchObject({
      ok: true,
      decision: { tool: 'a', argumentsText: '{"a":"```"}' },
    });
  });
});
