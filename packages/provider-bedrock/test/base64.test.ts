import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBase64, encodeBase64 } from '../src/base64.js';

const runs = { numRuns: Number(process.env.FC_NUM_RUNS ?? 1000) };

describe('decodeBase64 / encodeBase64', () => {
  it('property: bytes survive encoding and strict decoding, padded or not', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const encoded = encodeBase64(bytes);
        expect(encoded).toBe(Buffer.from(bytes).toString('base64'));
        expect(decodeBase64(encoded)).toEqual(bytes);
        expect(decodeBase64(encoded.replace(/=+$/, ''))).toEqual(bytes);
      }),
      runs,
    );
  });

  it('property: text with a character outside the standard alphabet is refused, never decoded around', () => {
    fc.assert(
      fc.property(
        fc.base64String(),
        fc.constantFrom(' ', '\n', '-', '_', '!', '.', 'é', '\u0000'),
        fc.nat(),
        (text, bad, at) => {
          const position = at % (text.length + 1);
          expect(decodeBase64(text.slice(0, position) + bad + text.slice(position))).toBeUndefined();
        },
      ),
      runs,
    );
  });

  it('refuses misplaced padding and lengths no encoder produces', () => {
    for (const text of ['a', 'abcde', 'ab=c', 'a===', 'abc==', '=abc', 'aGk=aGk=']) {
      expect(decodeBase64(text)).toBeUndefined();
    }
    expect(decodeBase64('')).toEqual(new Uint8Array());
  });
});
