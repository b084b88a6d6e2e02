import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serializeOutput, toJsonValue } from './index.js';

describe('toJsonValue', () => {
  it('turns anything into plain JSON without throwing', () => {
    const circular: Record<string, unknown> = { name: 'loop' };
    circular.self = circular;
    const hostile = {
      ok: 1,
      get broken(): never {
        throw new Error('getter');
      },
    };
    expect(toJsonValue(circular)).toEqual({ name: 'loop', self: '[Circular]' });
    expect(toJsonValue({ big: 2n ** 70n })).toEqual({ big: '1180591620717411303424' });
    expect(toJsonValue(hostile)).toEqual({ ok: 1, broken: '[Unreadable]' });
    expect(toJsonValue(new Map([['a', 1]]))).toEqual({ a: 1 });
    expect(toJsonValue(new Map([[1, 'a']]))).toEqual([[1, 'a']]);
    expect(toJsonValue(new Set([1, 2]))).toEqual([1, 2]);
    expect(toJsonValue(new Date(0))).toBe('1970-01-01T00:00:00.000Z');
    expect(toJsonValue(new TypeError('bad'))).toEqual({ name: 'TypeError', message: 'bad' });
    expect(toJsonValue(new Uint8Array(10))).toBe('[binary data, 10 bytes]');
    expect(toJsonValue({ f: () => 1, s: Symbol('x'), u: undefined, n: Number.NaN, z: -0 })).toEqual({
      n: null,
      z: 0,
    });
    expect(toJsonValue([undefined, () => 1])).toEqual([null, null]);
    expect(toJsonValue(undefined)).toBeNull();
    const shared = { x: 1 };
    expect(toJsonValue({ a: shared, b: shared })).toEqual({ a: { x: 1 }, b: { x: 1 } });
  });

  it('is total over arbitrary values', () => {
    fc.assert(
      fc.property(
        fc.anything({ withBigInt: true, withMap: true, withSet: true, withDate: true, withTypedArray: true }),
        (value) => {
          const json = toJsonValue(value);
          expect(JSON.parse(JSON.stringify(json))).toEqual(json);
        },
      ),
      { numRuns: Number(process.env.FC_NUM_RUNS ?? 1000) },
    );
  });
});

describe('serializeOutput', () => {
  it('keeps output within the budget and says so', () => {
    expect(serializeOutput({ a: 1 }, 100)).toEqual({ output: { a: 1 }, truncated: false, bytes: 7 });
    const cut = serializeOutput('é'.repeat(1000), 101);
    expect(cut.truncated).toBe(true);
    expect(cut.bytes).toBe(2000);
    expect(new TextEncoder().encode(cut.output as string).length).toBeLessThanOrEqual(101);
  });

  it('never splits a surrogate pair', () => {
    const cut = serializeOutput('😀'.repeat(100), 150);
    const text = cut.output as string;
    const head = text.slice(0, text.indexOf('\n[output truncated'));
    expect(head).toBe('😀'.repeat(head.length / 2));
  });
});
