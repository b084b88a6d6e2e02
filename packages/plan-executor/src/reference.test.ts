import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanReferences } from './reference.js';

const numRuns = Number(process.env.FC_NUM_RUNS ?? 1000);

/** The grammar, written as a regex: the scanner must find exactly these references. */
function oracle(value: string): {
  references: { text: string; stepId: string; path: string[] }[];
  malformed: number;
} {
  const references: { text: string; stepId: string; path: string[] }[] = [];
  let malformed = 0;
  let position = value.indexOf('$ref:');
  while (position !== -1) {
    const match = /^\$ref:([A-Za-z0-9_-]+)((?:\.[A-Za-z0-9_-]+)*)/.exec(value.slice(position));
    if (match === null) {
      malformed++;
      position = value.indexOf('$ref:', position + 5);
      continue;
    }
    references.push({
      text: match[0],
      stepId: match[1]!,
      path: match[2] ? match[2].slice(1).split('.') : [],
    });
    position = value.indexOf('$ref:', position + match[0].length);
  }
  return { references, malformed };
}

describe('the $ref grammar (internal scanner)', () => {
  it('finds exactly the references the grammar defines, and rebuilds the text around them', () => {
    const piece = fc.constantFrom(
      '$ref:',
      '$ref:a',
      '.',
      'x',
      'B_2',
      '-',
      ' ',
      '$',
      'ref',
      ':',
      '0',
      'é',
      '.b',
      '$$ref:',
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 12 }).map((pieces) => pieces.join('')),
        (value) => {
          const expected = oracle(value);
          const { template, malformed } = scanReferences(value);
          expect(malformed).toHaveLength(expected.malformed);
          const found =
            template.kind === 'literal'
              ? []
              : template.kind === 'whole'
                ? [template.reference]
                : template.parts.filter((part) => typeof part !== 'string');
          expect(found.map(({ text, stepId, path }) => ({ text, stepId, path: [...path] }))).toEqual(
            expected.references,
          );
          if (template.kind === 'text') {
            expect(template.parts.map((part) => (typeof part === 'string' ? part : part.text)).join('')).toBe(
              value,
            );
          }
          if (template.kind === 'whole') expect(template.reference.text).toBe(value);
        },
      ),
      { numRuns },
    );
  });

  it('treats text after a reference as text', () => {
    const { template } = scanReferences('Weather: $ref:a.temp. Done.');
    expect(
      template.kind === 'text' && template.parts.map((part) => (typeof part === 'string' ? part : part.text)),
    ).toEqual(['Weather: ', '$ref:a.temp', '. Done.']);
  });
});
