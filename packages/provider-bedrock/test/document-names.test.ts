import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDocumentNamer, validDocumentName } from '../src/document-names.js';
import { converseValidationError } from './fake-converse-validation.js';

const runs = { numRuns: Number(process.env.FC_NUM_RUNS ?? 1000) };

/** What the fake server, with the real API's rules, says of a request carrying these document names. */
const verdict = (names: readonly string[]): string | undefined =>
  converseValidationError({
    messages: [{ role: 'user', content: names.map((name) => ({ document: { name } })) }],
  });

describe('document names', () => {
  it('valid names are kept as they are', () => {
    for (const name of ['Q3 Report', 'a', 'draft (v2) [final]', 'x-y-z', 'A'.repeat(200)]) {
      expect(validDocumentName(name)).toBe(name);
    }
  });

  it('property: every file name gives a name Converse accepts, and a request of them passes its checks', () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.string({ unit: 'binary', maxLength: 260 }), { nil: undefined })),
        (names) => {
          const namer = createDocumentNamer();
          const sent = names.map((filename, partIndex) =>
            namer.nameFor(filename, { messageIndex: 0, partIndex }),
          );
          expect(verdict(sent)).toBeUndefined();
          for (const name of sent) expect(name.length).toBeGreaterThanOrEqual(1);
          // Every change is reported with its position, so the mapping can be reversed.
          const reported = (namer.adjustment()?.details?.documents ?? []) as {
            partIndex: number;
            sentAs: string;
          }[];
          const changed = names.flatMap((filename, partIndex) =>
            filename !== undefined && sent[partIndex] !== filename ? [partIndex] : [],
          );
          expect(reported.map((entry) => entry.partIndex)).toEqual(changed);
          for (const entry of reported) expect(entry.sentAs).toBe(sent[entry.partIndex]);
        },
      ),
      runs,
    );
  });

  it('property: the name map is injective in a request, ignoring case', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a.pdf', 'A-pdf', 'a pdf', 'a', 'A', 'a (2)', '')), (names) => {
        const namer = createDocumentNamer();
        const sent = names.map((filename, partIndex) =>
          namer.nameFor(filename, { messageIndex: 0, partIndex }),
        );
        expect(new Set(sent.map((name) => name.toLowerCase())).size).toBe(sent.length);
      }),
      runs,
    );
  });
});
