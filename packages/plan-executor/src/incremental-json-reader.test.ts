import { parseJsonStrict, readStrictJson } from '@org/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IncrementalJsonReader, type IncrementalJsonValue } from './index.js';

const numRuns = Number(process.env.FC_NUM_RUNS ?? 1000);
const timeout = Math.max(60_000, numRuns * 20);

/** Splits a text at the given points (any UTF-16 index, inside a surrogate pair too). */
function split(text: string, points: readonly number[]): string[] {
  const cuts = [...new Set(points.map((point) => point % (text.length + 1)))].sort((a, b) => a - b);
  const fragments: string[] = [];
  let last = 0;
  for (const cut of cuts) {
    fragments.push(text.slice(last, cut));
    last = cut;
  }
  fragments.push(text.slice(last));
  return fragments;
}

function read(
  fragments: readonly string[],
  paths: readonly string[],
  limits: { maxBytes?: number; maxDepth?: number } = {},
) {
  const values: IncrementalJsonValue[] = [];
  const reader = new IncrementalJsonReader({
    paths,
    maxBytes: limits.maxBytes ?? 1 << 24,
    maxDepth: limits.maxDepth ?? 1000,
    onValue: (value) => values.push(value),
  });
  for (const fragment of fragments) reader.write(fragment);
  const whole = reader.end();
  return { values, whole, failure: reader.failure };
}

/** JSON text of a value, compact or indented. */
const jsonText = fc
  .tuple(fc.jsonValue({ maxDepth: 5 }), fc.constantFrom(undefined, 0, 1, 2, '\t'))
  .map(([value, indent]) => JSON.stringify(value, null, indent));

/** A string with raw (unescaped) surrogate pairs, lone surrogates and multi-byte characters. */
const rawString = fc
  .array(
    fc.oneof(
      fc.constantFrom('a', 'é', '€', '😀', '\ud800', '\udfff', '\ud83d', ' ', '$'),
      fc.string({ unit: 'binary', maxLength: 4 }),
    ),
    { maxLength: 12 },
  )
  .map((pieces) =>
    Array.from(pieces.join(''))
      // Quotes, backslashes and control characters would end or break the string they are put in.
      .filter((character) => character !== '"' && character !== '\\' && character.charCodeAt(0) >= 0x20)
      .join(''),
  );

describe('IncrementalJsonReader', () => {
  it(
    'property: JSON split anywhere reads back equal to JSON.parse and parseJsonStrict, each selected value as soon as it closes',
    () => {
      fc.assert(
        fc.property(jsonText, fc.array(fc.nat(), { maxLength: 12 }), (text, points) => {
          const { values, whole, failure } = read(split(text, points), ['$.*']);
          expect(failure).toBeUndefined();
          const expected = JSON.parse(text) as unknown;
          expect(whole).toEqual({ ok: true, value: expected });
          expect(whole.ok && whole.value).toEqual(parseJsonStrict(text));
          // Every object or array member of a root container is reported once, equal to its value in the whole.
          const members =
            expected !== null && typeof expected === 'object'
              ? Object.entries(expected).filter(([, member]) => member !== null && typeof member === 'object')
              : [];
          const sorted = (keys: string[]): string[] => keys.sort();
          expect(sorted(values.map((value) => String(value.path[0])))).toEqual(
            sorted(members.map(([key]) => key)),
          );
          for (const value of values) {
            expect(value.ok).toBe(true);
            if (!value.ok) continue;
            const key = value.path[0]!;
            expect(value.value).toEqual((expected as Record<string, unknown>)[key]);
            expect(JSON.parse(value.text)).toEqual(value.value);
          }
        }),
        { numRuns },
      );
    },
    timeout,
  );

  it(
    'property: raw surrogate pairs, lone surrogates and multi-byte characters, split inside them: equal to JSON.parse',
    () => {
      fc.assert(
        fc.property(
          fc.array(fc.tuple(rawString, rawString), { maxLength: 4 }),
          fc.array(fc.nat(), { maxLength: 16 }),
          (entries, points) => {
            const members = entries.map(([key, value], index) => `"${index}${key}":{"v":"${value}"}`);
            const text = `{"steps":{${members.join(',')}}}`;
            const { values, whole } = read(split(text, points), ['$.steps.*']);
            const expected = JSON.parse(text) as { steps: Record<string, unknown> };
            expect(whole).toEqual({ ok: true, value: expected });
            // In the order they were written (an object's integer-like keys come first in Object.keys).
            const written = entries.map(([key], index) => `${index}${key}`);
            expect(values.map((value) => value.path)).toEqual(written.map((key) => ['steps', key]));
            for (const value of values) {
              expect(value.ok).toBe(true);
              if (value.ok) expect(value.value).toEqual(expected.steps[value.path[1] as string]);
            }
          },
        ),
        { numRuns },
      );
    },
    timeout,
  );

  it(
    'property: any edit of valid JSON, split anywhere: the reader fails exactly when the strict reader refuses it',
    () => {
      fc.assert(
        fc.property(
          jsonText,
          fc.array(
            fc.record({
              at: fc.nat(),
              remove: fc.nat({ max: 2 }),
              insert: fc.constantFrom(
                '',
                '"',
                ',',
                '}',
                ']',
                '{',
                '[',
                ':',
                '1',
                'x',
                ' ',
                '\\',
                '-',
                '.',
                'e',
              ),
            }),
            { minLength: 1, maxLength: 3 },
          ),
          fc.array(fc.nat(), { maxLength: 8 }),
          (valid, edits, points) => {
            let text = valid;
            for (const edit of edits) {
              const at = edit.at % (text.length + 1);
              text = text.slice(0, at) + edit.insert + text.slice(at + edit.remove);
            }
            const strict = readStrictJson(text, { maxDepth: 1000 });
            const { whole, failure } = read(split(text, points), ['$.*']);
            expect(whole.ok).toBe(strict.ok);
            if (whole.ok && strict.ok) expect(whole.value).toEqual(strict.value);
            // A text the tokenizer accepted can still be refused by the strict reader (a repeated key, a huge
            // integer); a text the strict reader accepts is never refused while it streams.
            if (strict.ok) expect(failure).toBeUndefined();
          },
        ),
        { numRuns },
      );
    },
    timeout,
  );

  it('reads a selected value strictly: a key repeated with another value or an inexact integer is refused, not guessed', () => {
    const { values } = read(
      ['{"steps":[{"a":1,"a":2},', '{"n":12345678901234567891},{"a":1,"a":1}]}'],
      ['$.steps.*'],
    );
    expect(values.map((value) => value.ok)).toEqual([false, false, true]);
    expect(values[0]).toMatchObject({ ok: false, reason: expect.stringContaining('appears twice') });
    expect(values[1]).toMatchObject({ ok: false, reason: expect.stringContaining('more digits') });
  });

  it('stops at a limit as the text arrives: nesting past maxDepth, text past maxBytes', () => {
    const deep = read(['{"steps":[', '[[[[[[[[', ']]]]]]]]]}'], ['$.steps.*'], { maxDepth: 5 });
    expect(deep.failure).toEqual({ reason: 'nested more than 5 levels deep', limit: 'depth' });
    expect(deep.values).toEqual([]);
    const large = read(['{"steps":["', 'x'.repeat(100), '"]}'], ['$.steps.*'], { maxBytes: 50 });
    expect(large.failure?.limit).toBe('bytes');
    expect(large.whole.ok).toBe(false);
  });

  it('refuses what is not one JSON text: a byte order mark, trailing text, an unfinished text', () => {
    expect(read(['\ufeff{}'], []).whole.ok).toBe(false);
    expect(read(['{} {}'], []).whole.ok).toBe(false);
    expect(read(['{"a":', '1'], []).whole).toMatchObject({ ok: false });
    expect(read(['  {"a" : [1, 2] }  '], []).whole).toEqual({ ok: true, value: { a: [1, 2] } });
  });

  it('reports a value the moment its closing bracket arrives', () => {
    const seen: string[] = [];
    const reader = new IncrementalJsonReader({
      paths: ['$.steps.*'],
      maxBytes: 1000,
      maxDepth: 10,
      onValue: (value) => seen.push(String(value.path[1])),
    });
    reader.write('{"steps":{"a":{"search":{"q":"x"}');
    expect(seen).toEqual([]);
    reader.write('}');
    expect(seen).toEqual(['a']);
    reader.write(',"b":{"sum":{}}');
    expect(seen).toEqual(['a', 'b']);
    reader.write('}}');
    expect(reader.end()).toMatchObject({ ok: true });
  });
});
