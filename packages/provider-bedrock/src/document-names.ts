import type { Adjustment } from '@org/core';

// Converse's DocumentBlock.name: "alphanumeric characters, whitespace characters (no more than one in a row),
// hyphens, parentheses, square brackets", 1 to 200 characters, unique in a request (case aside); otherwise a
// ValidationException ("The document file name can only contain …", "Messages can't contain duplicate document
// names"). Only ASCII letters, digits and the plain space pass: Bedrock rejects tabs, U+3000 and accented letters.
const VALID_NAME = /^[A-Za-z0-9()[\]-]+(?: [A-Za-z0-9()[\]-]+)*$/;
const MAX_LENGTH = 200;
const FALLBACK_NAME = 'document';

/** Where a document part sits in the request. */
export interface DocumentPosition {
  readonly messageIndex: number;
  readonly partIndex: number;
}

/** One file name sent otherwise than given. */
export interface MappedDocumentName extends DocumentPosition {
  readonly filename: string;
  readonly sentAs: string;
}

/** Gives each document of one request its Converse name: valid and unique, and reported where it changed. */
export interface DocumentNamer {
  /** The name to send for a file part (`filename` as given, or `undefined` when the part has none). */
  nameFor(filename: string | undefined, position: DocumentPosition): string;
  /** The `history-rewritten` Adjustment listing every file name sent otherwise, when there is one. */
  adjustment(): Adjustment | undefined;
}

/**
 * Creates the document namer of one request. A valid, unused file name is sent as it is. Otherwise each run of
 * whitespace becomes one space, each run of other characters Converse refuses becomes a hyphen (`report.pdf` →
 * `report-pdf`), the name is cut to 200 characters, and a name already used in the request (ignoring case) gets
 * ` (2)`, ` (3)`, …. A part without a file name is named `document` (made unique the same way), which is not
 * reported: nothing the caller gave was changed. Every changed name is listed in the Adjustment with its position,
 * so the mapping can be reversed (a model that cites `report-pdf` means `report.pdf`).
 *
 * @example
 * const names = createDocumentNamer();
 * names.nameFor('Q3 report.pdf', { messageIndex: 0, partIndex: 1 }); // 'Q3 report-pdf'
 * names.nameFor(undefined, { messageIndex: 2, partIndex: 0 }); // 'document'
 */
export function createDocumentNamer(): DocumentNamer {
  const used = new Set<string>();
  const mapped: MappedDocumentName[] = [];
  return {
    nameFor(filename, position) {
      const base = filename === undefined ? FALLBACK_NAME : validDocumentName(filename);
      const name = uniqueName(base, used);
      used.add(name.toLowerCase());
      if (filename !== undefined && name !== filename) mapped.push({ ...position, filename, sentAs: name });
      return name;
    },
    adjustment() {
      if (mapped.length === 0) return undefined;
      return {
        kind: 'history-rewritten',
        message:
          'Converse document names may only hold letters, digits, single spaces, hyphens, parentheses and square ' +
          'brackets (at most 200), and must be unique in a request; ' +
          `${mapped.map((entry) => `'${entry.filename}' was sent as '${entry.sentAs}'`).join(', ')}.`,
        details: { reason: 'document-names-mapped', documents: mapped },
      };
    },
  };
}

/** A name Converse accepts for a file name: itself when valid, else rewritten as `createDocumentNamer` describes. */
export function validDocumentName(filename: string): string {
  if (filename.length <= MAX_LENGTH && VALID_NAME.test(filename)) return filename;
  const rewritten = filename
    .replace(/\s+/gu, ' ')
    .replace(/[^A-Za-z0-9 ()[\]-]+/g, '-')
    .trim()
    .slice(0, MAX_LENGTH)
    .trimEnd();
  return rewritten === '' ? FALLBACK_NAME : rewritten;
}

function uniqueName(base: string, used: ReadonlySet<string>): string {
  if (!used.has(base.toLowerCase())) return base;
  for (let counter = 2; ; counter++) {
    const suffix = ` (${counter})`;
    const candidate = `${base.slice(0, MAX_LENGTH - suffix.length).trimEnd()}${suffix}`;
    if (!used.has(candidate.toLowerCase())) return candidate;
  }
}
