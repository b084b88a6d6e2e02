/**
 * A conservative static check for regular expressions that may backtrack catastrophically. It refuses:
 * - a repeated group with a repeated term inside that is not closed by a mandatory delimiter it cannot match
 *   itself (nested quantifiers: `(a+)+`, `(\w+\s?)*`; but `(?:[a-z]+\.)*` is fine);
 * - a repeated group whose alternatives can start with the same character, or can match nothing (`(a|a)*`, `(a|ab)+`);
 * - two adjacent unbounded quantifiers where what the first can end with can start the second (`\d+\d*`, `.*.*`);
 * - back-references (`\1`, `\k<name>`), which no regex engine matches in linear time.
 * Conservative means it may refuse a pattern that is in fact safe; it never accepts one of the shapes above.
 */

/**
 * A set of characters, approximated: ranges of code points, or their complement (`negated`: `[^@]`, `\S`, `.` is
 * the complement of nothing).
 */
interface CharSet {
  readonly negated: boolean;
  readonly ranges: ReadonlyArray<readonly [number, number]>;
}

const ANY: CharSet = { negated: true, ranges: [] };
const EMPTY: CharSet = { negated: false, ranges: [] };
const DIGIT: CharSet = { negated: false, ranges: [[48, 57]] };
const WORD: CharSet = {
  negated: false,
  ranges: [
    [48, 57],
    [65, 90],
    [95, 95],
    [97, 122],
  ],
};
const SPACE: CharSet = {
  negated: false,
  ranges: [
    [9, 13],
    [32, 32],
    [160, 160],
    [0x1680, 0x1680],
    [0x2000, 0x200a],
    [0x2028, 0x2029],
    [0x202f, 0x202f],
    [0x205f, 0x205f],
    [0x3000, 0x3000],
    [0xfeff, 0xfeff],
  ],
};

function single(code: number): CharSet {
  return { negated: false, ranges: [[code, code]] };
}

function complement(set: CharSet): CharSet {
  return { negated: !set.negated, ranges: set.ranges };
}

function union(left: CharSet, right: CharSet): CharSet {
  if (!left.negated && !right.negated) return { negated: false, ranges: [...left.ranges, ...right.ranges] };
  // A union with a complement is approximated by "anything": over-approximating only makes the check stricter.
  return ANY;
}

function isEmptySet(set: CharSet): boolean {
  return !set.negated && set.ranges.length === 0;
}

/** True when every range of `inner` lies inside one range of `outer`. */
function covers(outer: CharSet, inner: CharSet): boolean {
  return inner.ranges.every(([low, high]) => outer.ranges.some(([a, b]) => a <= low && high <= b));
}

function overlaps(left: CharSet, right: CharSet): boolean {
  if (isEmptySet(left) || isEmptySet(right)) return false;
  if (left.negated && right.negated) return true;
  if (left.negated) return !covers(left, right);
  if (right.negated) return !covers(right, left);
  return left.ranges.some(([a, b]) => right.ranges.some(([c, d]) => a <= d && c <= b));
}

/** What the checker knows of a piece of a pattern. */
interface Node {
  /** Characters that can start a match. */
  readonly first: CharSet;
  /** All characters the piece can consume. */
  readonly all: CharSet;
  /** Characters that can end a match. */
  readonly last: CharSet;
  readonly canBeEmpty: boolean;
  /** Contains a variable-length quantifier (max > min): the source of ambiguity under an outer repetition. */
  readonly repeats: boolean;
}

/** A piece of a sequence with its quantifier applied. */
interface Term extends Node {
  readonly unbounded: boolean;
  readonly zeroWidth?: boolean;
}

/** One alternative: its terms in order. */
interface Sequence extends Node {
  readonly terms: readonly Term[];
}

class UnsafePattern {
  readonly reason: string;
  constructor(reason: string) {
    this.reason = reason;
  }
}

/** Returns why `pattern` is refused, or `undefined` when it passes the check. */
export function findUnsafePatternReason(pattern: string): string | undefined {
  try {
    new RegExp(pattern, 'u');
  } catch {
    try {
      new RegExp(pattern);
    } catch {
      return 'it is not a valid regular expression';
    }
  }
  try {
    new PatternChecker(pattern).check();
    return undefined;
  } catch (error) {
    if (error instanceof UnsafePattern) return error.reason;
    return 'it could not be analysed';
  }
}

class PatternChecker {
  private position = 0;
  constructor(private readonly source: string) {}

  check(): void {
    this.alternation();
    if (this.position < this.source.length) throw new UnsafePattern('it has an unbalanced parenthesis');
  }

  private peek(): string | undefined {
    return this.source[this.position];
  }

  private alternation(): Node & { alternatives: Sequence[] } {
    const alternatives: Sequence[] = [this.sequence()];
    while (this.peek() === '|') {
      this.position++;
      alternatives.push(this.sequence());
    }
    let first = EMPTY;
    let all = EMPTY;
    let last = EMPTY;
    for (const alternative of alternatives) {
      first = union(first, alternative.first);
      all = union(all, alternative.all);
      last = union(last, alternative.last);
    }
    return {
      first,
      all,
      last,
      canBeEmpty: alternatives.some((alternative) => alternative.canBeEmpty),
      repeats: alternatives.some((alternative) => alternative.repeats),
      alternatives,
    };
  }

  private sequence(): Sequence {
    let first = EMPTY;
    let all = EMPTY;
    let canBeEmpty = true;
    let repeats = false;
    let previousUnbounded: CharSet | undefined;
    const terms: Term[] = [];
    while (this.position < this.source.length && this.peek() !== '|' && this.peek() !== ')') {
      const term = this.term();
      // `\d+\d*`: a string can be split between the two in many ways; harmless only when what the first can end
      // with never starts the second (`(?:\w+\.)*\w*`).
      if (term.unbounded && previousUnbounded !== undefined && overlaps(previousUnbounded, term.first)) {
        throw new UnsafePattern('two adjacent unbounded quantifiers can match the same characters');
      }
      if (term.unbounded) previousUnbounded = term.last;
      else if (!term.canBeEmpty) previousUnbounded = undefined;
      if (canBeEmpty) first = union(first, term.first);
      all = union(all, term.all);
      canBeEmpty = canBeEmpty && term.canBeEmpty;
      repeats = repeats || term.repeats;
      terms.push(term);
    }
    let last = EMPTY;
    for (let index = terms.length - 1; index >= 0; index--) {
      const term = terms[index] as Term;
      last = union(last, term.last);
      if (!term.canBeEmpty) break;
    }
    return { first, all, last, canBeEmpty, repeats, terms };
  }

  private term(): Term {
    const atom = this.atom();
    const quantifier = this.quantifier();
    if (quantifier === undefined) return { ...atom, unbounded: false };
    const { min, max } = quantifier;
    if (max > 1 && atom.group !== undefined) {
      if (atom.canBeEmpty) throw new UnsafePattern('a repeated group can match the empty string');
      const alternatives = atom.group.alternatives;
      for (let i = 0; i < alternatives.length; i++) {
        for (let j = i + 1; j < alternatives.length; j++) {
          if (overlaps((alternatives[i] as Node).first, (alternatives[j] as Node).first)) {
            throw new UnsafePattern(
              'a repeated group has alternatives that can start with the same character',
            );
          }
        }
      }
      // Nested quantifiers are safe only when every variable-length piece inside is followed by a character it
      // cannot end with (`(?:[a-z]+\.)*`, `([0-9a-f]{1,4}:){7}`): then each iteration ends in exactly one place.
      for (const alternative of alternatives) {
        const terms = alternative.terms.filter((term) => term.zeroWidth !== true);
        for (let index = 0; index < terms.length; index++) {
          const term = terms[index] as Term;
          if (!term.repeats) continue;
          let follow = EMPTY;
          let closed = false;
          for (let next = index + 1; next < terms.length; next++) {
            const following = terms[next] as Term;
            follow = union(follow, following.first);
            if (!following.canBeEmpty) {
              closed = true;
              break;
            }
          }
          // Nothing mandatory follows inside the group: the next iteration does.
          if (!closed) follow = union(follow, atom.first);
          if (overlaps(term.last, follow)) {
            throw new UnsafePattern(
              'a repeated group contains a variable-length piece that is not closed by a distinct delimiter (nested quantifiers)',
            );
          }
        }
      }
    }
    return {
      first: atom.first,
      all: atom.all,
      last: atom.last,
      canBeEmpty: atom.canBeEmpty || min === 0,
      repeats: atom.repeats || max > min,
      unbounded: max === Number.POSITIVE_INFINITY,
      ...(atom.zeroWidth === true ? { zeroWidth: true } : {}),
    };
  }

  private quantifier(): { min: number; max: number } | undefined {
    const char = this.peek();
    let result: { min: number; max: number } | undefined;
    if (char === '*') result = { min: 0, max: Number.POSITIVE_INFINITY };
    else if (char === '+') result = { min: 1, max: Number.POSITIVE_INFINITY };
    else if (char === '?') result = { min: 0, max: 1 };
    else if (char === '{') {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.position));
      if (match === null) return undefined;
      const min = Number(match[1]);
      const max =
        match[2] === undefined ? min : match[3] === '' ? Number.POSITIVE_INFINITY : Number(match[3]);
      this.position += match[0].length - 1;
      result = { min, max };
    }
    if (result === undefined) return undefined;
    this.position++;
    if (this.peek() === '?') this.position++;
    return result;
  }

  private atom(): Node & { group?: { alternatives: readonly Sequence[] }; zeroWidth?: boolean } {
    const char = this.peek() as string;
    this.position++;
    switch (char) {
      case '(': {
        let lookaround = false;
        if (this.source.startsWith('?:', this.position)) this.position += 2;
        else if (this.source.startsWith('?=', this.position) || this.source.startsWith('?!', this.position)) {
          this.position += 2;
          lookaround = true;
        } else if (
          this.source.startsWith('?<=', this.position) ||
          this.source.startsWith('?<!', this.position)
        ) {
          this.position += 3;
          lookaround = true;
        } else if (this.source.startsWith('?<', this.position)) {
          const end = this.source.indexOf('>', this.position);
          this.position = end + 1;
        }
        const inner = this.alternation();
        if (this.peek() !== ')') throw new UnsafePattern('it has an unbalanced parenthesis');
        this.position++;
        if (lookaround)
          return {
            first: EMPTY,
            all: EMPTY,
            last: EMPTY,
            canBeEmpty: true,
            repeats: inner.repeats,
            zeroWidth: true,
          };
        return { ...inner, group: { alternatives: inner.alternatives } };
      }
      case '[':
        return this.characterClass();
      case '\\':
        return this.escape(false);
      case '.':
        return { first: ANY, all: ANY, last: ANY, canBeEmpty: false, repeats: false };
      case '^':
      case '$':
        return { first: EMPTY, all: EMPTY, last: EMPTY, canBeEmpty: true, repeats: false, zeroWidth: true };
      default: {
        const code = char.codePointAt(0) ?? 0;
        if (code > 0xffff) this.position++;
        const set = single(code);
        return { first: set, all: set, last: set, canBeEmpty: false, repeats: false };
      }
    }
  }

  private escape(inClass: boolean): Node & { zeroWidth?: boolean } {
    const char = this.peek();
    this.position++;
    const set = (value: CharSet): Node => ({
      first: value,
      all: value,
      last: value,
      canBeEmpty: false,
      repeats: false,
    });
    switch (char) {
      case 'd':
        return set(DIGIT);
      case 'w':
        return set(WORD);
      case 's':
        return set(SPACE);
      case 'D':
        return set(complement(DIGIT));
      case 'W':
        return set(complement(WORD));
      case 'S':
        return set(complement(SPACE));
      case 'p':
      case 'P': {
        const end = this.source.indexOf('}', this.position);
        if (end >= 0) this.position = end + 1;
        return set(ANY);
      }
      case 'b':
        if (inClass) return set(single(8));
        return { first: EMPTY, all: EMPTY, last: EMPTY, canBeEmpty: true, repeats: false, zeroWidth: true };
      case 'B':
        return { first: EMPTY, all: EMPTY, last: EMPTY, canBeEmpty: true, repeats: false, zeroWidth: true };
      case 'k':
        if (!inClass) throw new UnsafePattern('it uses a back-reference');
        return set(single(107));
      case 'n':
        return set(single(10));
      case 'r':
        return set(single(13));
      case 't':
        return set(single(9));
      case 'f':
        return set(single(12));
      case 'v':
        return set(single(11));
      case '0':
        return set(single(0));
      case 'x': {
        const hex = this.source.slice(this.position, this.position + 2);
        this.position += 2;
        return set(single(Number.parseInt(hex, 16) || 0));
      }
      case 'u': {
        if (this.peek() === '{') {
          const end = this.source.indexOf('}', this.position);
          const code = Number.parseInt(this.source.slice(this.position + 1, end), 16) || 0;
          this.position = end + 1;
          return set(single(code));
        }
        const hex = this.source.slice(this.position, this.position + 4);
        this.position += 4;
        return set(single(Number.parseInt(hex, 16) || 0));
      }
      case 'c':
        this.position++;
        return set(ANY);
      case undefined:
        throw new UnsafePattern('it ends with a lone backslash');
      default:
        if (char >= '1' && char <= '9' && !inClass) throw new UnsafePattern('it uses a back-reference');
        return set(single(char.codePointAt(0) ?? 0));
    }
  }

  private characterClass(): Node {
    let negated = false;
    if (this.peek() === '^') {
      negated = true;
      this.position++;
    }
    const ranges: Array<readonly [number, number]> = [];
    let any = false; // the class contains a complement (`[\S\d]`), approximated by anything
    let first = true;
    while (this.position < this.source.length && (this.peek() !== ']' || first)) {
      first = false;
      let low: CharSet;
      if (this.peek() === '\\') {
        this.position++;
        low = this.escape(true).first;
      } else {
        const code = this.source.codePointAt(this.position) ?? 0;
        this.position += code > 0xffff ? 2 : 1;
        low = single(code);
      }
      if (
        this.peek() === '-' &&
        this.source[this.position + 1] !== ']' &&
        !low.negated &&
        low.ranges.length === 1
      ) {
        this.position++;
        let high: CharSet;
        if (this.peek() === '\\') {
          this.position++;
          high = this.escape(true).first;
        } else {
          const code = this.source.codePointAt(this.position) ?? 0;
          this.position += code > 0xffff ? 2 : 1;
          high = single(code);
        }
        const lowCode = low.ranges[0]?.[0] ?? 0;
        const highCode = high.negated ? 0x10ffff : (high.ranges[0]?.[1] ?? lowCode);
        ranges.push([Math.min(lowCode, highCode), Math.max(lowCode, highCode)]);
      } else if (low.negated) any = true;
      else ranges.push(...low.ranges);
    }
    if (this.peek() !== ']') throw new UnsafePattern('it has an unterminated character class');
    this.position++;
    let set: CharSet = any ? ANY : { negated: false, ranges };
    if (negated) set = any ? ANY : complement(set);
    return { first: set, all: set, last: set, canBeEmpty: false, repeats: false };
  }
}
