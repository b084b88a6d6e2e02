import { scanLiteralArguments } from './literal-arguments.js';
import { TopLevelStatements } from './top-level-statements.js';

/** Longest program read while it streams (its JSON-escaped text); past it, no more early calls are looked for. */
const MAX_STREAMED_CHARACTERS = 1024 * 1024;

/**
 * Reads a code call's arguments (`{"code": "..."}`) as the model writes them, and reports each call of an eager
 * function whose argument is a complete literal (`get_order({ id: 'o1' })`) as soon as its `)` arrives. It only
 * proposes early starts: the program that runs is always the one read strictly from the complete arguments, and an
 * early call it does not make is discarded and reported. It also reports where top-level statements close (for
 * speculative prefix runs). The program's string is decoded as far as it is complete
 * (an escape cut in two waits for its second half).
 */
export class StreamedProgram {
  private raw = '';
  private decodedUpTo = -1;
  private program = '';
  private scannedUpTo = 0;
  private readonly pattern: RegExp;
  private readonly statements = new TopLevelStatements();
  private statementsReadUpTo = 0;

  constructor(
    /** Identifiers of the eager functions, and the tool each calls. */
    private readonly eager: ReadonlyMap<string, string>,
    private readonly onCall: (toolName: string, args: Record<string, unknown>) => void,
    /** The program's text up to the last top-level statement that closed in a fragment (see `PrefixRuns`). */
    private readonly onStatement?: (prefix: string) => void,
  ) {
    const names = [...eager.keys()].map((name) => name.replace(/\$/g, '\\$'));
    // A call by name, not a property access (`x.get_order(`) nor part of a longer name.
    this.pattern = names.length === 0 ? /$^/g : new RegExp(`(?<![\\w$.])(${names.join('|')})\\s*\\(`, 'g');
  }

  write(fragment: string): void {
    if (this.eager.size === 0 || this.raw.length > MAX_STREAMED_CHARACTERS) return;
    this.raw += fragment;
    this.decode();
    this.scan();
    if (this.onStatement !== undefined && this.program.length > this.statementsReadUpTo) {
      const closed = this.statements.append(this.program.slice(this.statementsReadUpTo));
      this.statementsReadUpTo = this.program.length;
      // Only the longest prefix matters: each one supersedes the one before.
      const last = closed.at(-1);
      if (last !== undefined) this.onStatement(this.program.slice(0, last));
    }
  }

  /** Decodes more of the program's string: `decodedUpTo` is where the next raw character to decode is. */
  private decode(): void {
    if (this.decodedUpTo < 0) {
      const opening = /^\s*\{\s*"code"\s*:\s*"/.exec(this.raw);
      if (opening === null) return;
      this.decodedUpTo = opening[0].length;
    }
    let position = this.decodedUpTo;
    const raw = this.raw;
    let decoded = '';
    while (position < raw.length) {
      const char = raw[position]!;
      if (char === '"') {
        // The program's string is closed: nothing after it is program.
        this.decodedUpTo = raw.length + MAX_STREAMED_CHARACTERS;
        break;
      }
      if (char !== '\\') {
        decoded += char;
        position++;
        continue;
      }
      const escaped = raw[position + 1];
      if (escaped === undefined) break;
      if (escaped === 'u') {
        const hex = raw.slice(position + 2, position + 6);
        if (hex.length < 4) break;
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
          this.decodedUpTo = raw.length + MAX_STREAMED_CHARACTERS;
          break;
        }
        decoded += String.fromCharCode(Number.parseInt(hex, 16));
        position += 6;
        continue;
      }
      const simple: Readonly<Record<string, string>> = {
        n: '\n',
        t: '\t',
        r: '\r',
        b: '\b',
        f: '\f',
        '"': '"',
        '\\': '\\',
        '/': '/',
      };
      const value = Object.hasOwn(simple, escaped) ? simple[escaped] : undefined;
      if (value === undefined) {
        this.decodedUpTo = raw.length + MAX_STREAMED_CHARACTERS;
        break;
      }
      decoded += value;
      position += 2;
    }
    if (this.decodedUpTo <= raw.length) this.decodedUpTo = position;
    this.program += decoded;
  }

  /** Looks for eager calls with literal arguments in the program read so far, from where the last look stopped. */
  private scan(): void {
    const pattern = this.pattern;
    pattern.lastIndex = this.scannedUpTo;
    for (let match = pattern.exec(this.program); match !== null; match = pattern.exec(this.program)) {
      const argumentStart = match.index + match[0].length;
      const scanned = scanLiteralArguments(this.program, argumentStart);
      if (scanned.kind === 'incomplete') {
        // Look again from this call once more of the program arrives.
        this.scannedUpTo = match.index;
        return;
      }
      if (scanned.kind === 'literal') {
        this.onCall(this.eager.get(match[1]!)!, scanned.value);
        pattern.lastIndex = scanned.end;
      }
      this.scannedUpTo = pattern.lastIndex;
    }
    // Keep a possible call name cut at the end of the text (`get_ord`) for the next look.
    this.scannedUpTo = Math.max(this.scannedUpTo, this.program.length - 64);
  }
}
