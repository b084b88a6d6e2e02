import { IncompleteToolCallError, LimitExceededError } from '@org/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MalformedToolArgumentsError, parseToolArguments } from './index.js';
import { repairJsonText } from './repair-json-text.js';

const numRuns = Number(process.env.FC_NUM_RUNS ?? 1000);

function ok(text: string, finishReason?: string) {
  const result = parseToolArguments(text, finishReason === undefined ? {} : { finishReason });
  if (!result.ok) throw new Error(`expected success, got ${result.error.message}`);
  return result;
}

describe('parseToolArguments', () => {
  it('reads valid JSON unchanged, with no repairs', () => {
    expect(ok('{"city": "Paris", "days": 3}')).toEqual({
      ok: true,
      value: { city: 'Paris', days: 3 },
      repairs: [],
    });
  });

  it('reads "" (a tool without parameters) as {}', () => {
    expect(ok('').value).toEqual({});
    expect(ok('  \n').value).toEqual({});
  });

  it('removes a Markdown code fence', () => {
    const result = ok('```json\n{"city": "Paris"}\n```');
    expect(result.value).toEqual({ city: 'Paris' });
    expect(result.repairs).toEqual(['removed a Markdown code fence around the arguments']);
  });

  it('removes trailing commas, outside strings only', () => {
    const result = ok('{"tags": ["a", "b",], "note": "x,}",}');
    expect(result.value).toEqual({ tags: ['a', 'b'], note: 'x,}' });
    expect(result.repairs).toEqual(['removed 2 trailing commas']);
  });

  it('removes prose around the object', () => {
    const result = ok('Sure! Here are the arguments: {"city": "Paris"} Let me know if you need more.');
    expect(result.value).toEqual({ city: 'Paris' });
    expect(result.repairs).toEqual(['removed text around the JSON object']);
  });

  it('adds a missing final brace only after a normal stop', () => {
    expect(ok('{"city": "Paris"', 'stop').value).toEqual({ city: 'Paris' });
    expect(ok('{"city": "Paris"', 'tool-calls').repairs).toEqual([
      'added the missing closing brace at the end',
    ]);
    const unknown = parseToolArguments('{"city": "Paris"');
    expect(unknown.ok).toBe(false);
    // Never more than the one final brace, and never after a dangling comma or colon.
    expect(parseToolArguments('{"a": {"b": 1', { finishReason: 'stop' }).ok).toBe(false);
    expect(parseToolArguments('{"a": 1,', { finishReason: 'stop' }).ok).toBe(false);
    expect(parseToolArguments('{"a": ', { finishReason: 'stop' }).ok).toBe(false);
  });

  it('refuses arguments cut off by a token limit, whatever the repair could do', () => {
    for (const finishReason of ['length', 'max_tokens', 'MAX_TOKENS']) {
      const result = parseToolArguments('{"city": "Par', {
        finishReason,
        toolName: 'get_weather',
        toolCallId: 'c1',
      });
      expect(result.ok).toBe(false);
      if (result.ok) continue;
      expect(IncompleteToolCallError.isInstance(result.error)).toBe(true);
      expect(result.error.code).toBe('incomplete_tool_call');
      expect((result.error as IncompleteToolCallError).partialArguments).toBe('{"city": "Par');
      expect((result.error as IncompleteToolCallError).toolCallId).toBe('c1');
    }
    expect(parseToolArguments('{"city": "Paris"', { finishReason: 'length' }).ok).toBe(false);
    expect(parseToolArguments('{"city": "Paris",}', { finishReason: 'length' }).ok).toBe(false);
    expect(parseToolArguments('', { finishReason: 'length' }).ok).toBe(false);
    // Complete JSON is complete, even in a response that later hit the limit.
    expect(parseToolArguments('{"city": "Paris"}', { finishReason: 'length' }).ok).toBe(true);
  });

  it('decodes an object sent as a JSON string', () => {
    const result = ok(JSON.stringify(JSON.stringify({ city: 'Paris' })));
    expect(result.value).toEqual({ city: 'Paris' });
    expect(result.repairs).toContain('decoded arguments sent as a JSON string');
  });

  it('refuses a top level that is not an object, and broken JSON, with the position', () => {
    for (const text of ['[1, 2]', '42', 'null', '"just text"']) {
      const result = parseToolArguments(text);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(MalformedToolArgumentsError.isInstance(result.error)).toBe(true);
    }
    const broken = parseToolArguments("{'city': 'Paris'}");
    expect(broken.ok).toBe(false);
    if (!broken.ok) {
      expect(broken.error.code).toBe('malformed_tool_arguments');
      expect((broken.error as MalformedToolArgumentsError).position).toBe(1);
    }
  });

  it('refuses numbers that do not fit instead of rounding them', () => {
    const huge = parseToolArguments('{"n": 1e400}');
    expect(!huge.ok && huge.error.message).toMatch(/1e400 in 'n' is out of range/);
    const long = parseToolArguments('{"id": 12345678901234567890}');
    expect(!long.ok && long.error.message).toMatch(/send it as a string/);
    expect(ok('{"n": -0}').value.n).toBe(-0);
    expect(ok('{"n": 9007199254740991}').value.n).toBe(9007199254740991);
  });

  it('names the field of a number that does not fit, in the message and in the error path', () => {
    const cases: Array<[string, string]> = [
      ['{"count": 1, "ratio": 1e400}', 'ratio'],
      ['{"items": [{"value": 1}, {"value": 2}, {"value": -1e400}]}', 'items[2].value'],
      ['{"matrix": [[1, 2], [3, 1E999]]}', 'matrix[1][1]'],
      ['{"odd key": {"id": 123456789012345678901234}}', '["odd key"].id'],
    ];
    for (const [text, path] of cases) {
      const result = parseToolArguments(text);
      expect(result.ok).toBe(false);
      if (result.ok) continue;
      expect(result.error.code).toBe('malformed_tool_arguments');
      expect(result.error.message).toContain(`'${path}'`);
      expect((result.error as MalformedToolArgumentsError).path).toBe(path);
    }
    const nestedDuplicate = parseToolArguments('{"items": [{"value": 1, "value": 2}]}');
    expect(!nestedDuplicate.ok && (nestedDuplicate.error as MalformedToolArgumentsError).path).toBe(
      'items[0].value',
    );
    const topLevel = parseToolArguments('1e400');
    expect(!topLevel.ok && (topLevel.error as MalformedToolArgumentsError).path).toBeUndefined();
  });

  it('accepts a repeated key with the same value, refuses one with a different value', () => {
    const same = ok('{"a": 1, "a": 1}');
    expect(same.value).toEqual({ a: 1 });
    expect(same.repairs).toEqual(['ignored a repeated property "a" with the same value']);
    const different = parseToolArguments('{"a": 1, "a": 2}');
    expect(!different.ok && different.error.message).toMatch(/"a" appears twice with different values/);
  });

  it('keeps __proto__, constructor and prototype as plain data', () => {
    const result = ok('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}');
    expect(Object.getPrototypeOf(result.value)).toBe(Object.prototype);
    expect(Object.hasOwn(result.value, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((result.value as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('enforces the size limit (1 MiB by default) before parsing', () => {
    const big = `{"text": "${'x'.repeat(1024 * 1024)}"}`;
    const result = parseToolArguments(big);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(LimitExceededError.isInstance(result.error)).toBe(true);
      expect((result.error as LimitExceededError).limit).toBe('argumentsBytes');
    }
    expect(parseToolArguments('{"text": "ééé"}', { limits: { maxBytes: 14 } }).ok).toBe(false);
    expect(parseToolArguments('{"text": "ééé"}', { limits: { maxBytes: 20 } }).ok).toBe(true);
  });

  it('enforces the depth limit (64 by default) before any recursive walk', () => {
    const deep = (depth: number) => `{"a": ${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    expect(parseToolArguments(deep(64)).ok).toBe(true);
    const tooDeep = parseToolArguments(deep(65));
    expect(!tooDeep.ok && (tooDeep.error as LimitExceededError).limit).toBe('jsonDepth');
    // A million brackets would overflow a recursive parser; the scan stops it first.
    const hostile = parseToolArguments(`{"a": ${'['.repeat(500_000)}`);
    expect(!hostile.ok && hostile.error.code).toBe('limit_exceeded');
    // Brackets inside strings do not count.
    expect(parseToolArguments(`{"a": "${'['.repeat(1000)}"}`).ok).toBe(true);
  });
});

describe('parseToolArguments properties', () => {
  const jsonObject = fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 6 });

  it('passes any valid JSON object through unchanged, without repairs', () => {
    fc.assert(
      fc.property(jsonObject, fc.constantFrom(undefined, 'stop', 'length'), (object, finishReason) => {
        const text = JSON.stringify(object);
        const result = parseToolArguments(text, finishReason === undefined ? {} : { finishReason });
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        expect(result.repairs).toEqual([]);
        expect(result.value).toStrictEqual(JSON.parse(text));
        for (const allowCloseBrace of [false, true]) {
          expect(repairJsonText(text, { allowCloseBrace })).toEqual({ text, repairs: [] });
        }
      }),
      { numRuns },
    );
  });

  it('repairs are idempotent: repairing repaired text changes nothing more', () => {
    const noisy = fc
      .tuple(
        jsonObject,
        fc.constantFrom('', '```json\n', 'Here you go: '),
        fc.constantFrom('', '\n```', ' thanks'),
        fc.boolean(),
      )
      .map(([object, before, after, dropBrace]) => {
        let text = JSON.stringify(object, null, 1).replace(/\n(\s*)([}\]])/g, ',\n$1$2');
        if (dropBrace) text = text.slice(0, -1);
        return `${before}${text}${after}`;
      });
    fc.assert(
      fc.property(fc.oneof(noisy, fc.string()), fc.boolean(), (text, allowCloseBrace) => {
        const once = repairJsonText(text, { allowCloseBrace });
        const twice = repairJsonText(once.text, { allowCloseBrace });
        expect(twice.text).toBe(once.text);
        const parsedOnce = parseToolArguments(text, { finishReason: allowCloseBrace ? 'stop' : 'other' });
        if (parsedOnce.ok) {
          const again = parseToolArguments(JSON.stringify(parsedOnce.value));
          expect(again.ok && again.value).toStrictEqual(parsedOnce.value);
        }
      }),
      { numRuns },
    );
  });

  it('only returns results or typed errors, and never touches Object.prototype', () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          jsonObject.map((object) => JSON.stringify(object).replace(/^\{/, '{"__proto__":{"polluted":1},')),
        ),
        fc.constantFrom(undefined, 'stop', 'length'),
        (text, finishReason) => {
          const result = parseToolArguments(text, finishReason === undefined ? {} : { finishReason });
          if (!result.ok)
            expect(['malformed_tool_arguments', 'incomplete_tool_call', 'limit_exceeded']).toContain(
              result.error.code,
            );
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        },
      ),
      { numRuns },
    );
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
  });
});

describe('parseToolArguments on hostile text', { timeout: 120_000 }, () => {
  it('stays linear on long runs of backticks, spaces, braces and quotes', () => {
    const size = 400_000;
    const inputs = [
      `\`\`\`${' '.repeat(size)}x`,
      '```\n'.repeat(size / 4),
      `Here: ${'{'.repeat(60)}${' '.repeat(size)}`,
      `{"a": "${'\\"'.repeat(size / 2)}`,
      `${','.repeat(size)}}`,
      `{${'"a":1,'.repeat(size / 6)}`,
    ];
    for (const text of inputs) {
      for (const finishReason of ['stop', 'length', undefined]) {
        const result = parseToolArguments(text, finishReason === undefined ? {} : { finishReason });
        expect(typeof result.ok).toBe('boolean');
      }
    }
  });
});
