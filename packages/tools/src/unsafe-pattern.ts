/**
 * A conservative static check for regular expressions that may backtrack catastrophically. It refuses:
 * - a repeated group that itself contains a repeated term (nested quantifiers: `(a+)+`, `(\w*\s?)*`);
 * - a repeated group whose alternatives can start with the same character, or can match nothing (`(a|a)*`, `(a|ab)+`);
 * - two adjacent unbounded quantifiers whose characters overlap (`\d+\d*`, `.*.*`);
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
  readonly canBeEmpty: boolean;
  /** Contains a quantifier that repeats (max > 1). */
  readonly repeats: boolean;
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

  private alternation(): Node & { alternatives: Node[] } {
    const alternatives: Node[] = [this.sequence()];
    while (this.peek() === '|') {
      this.position++;
      alternatives.push(this.sequence());
    }
    let first = EMPTY;
    let all = EMPTY;
    for (const alternative of alternatives) {
      first = union(first, alternative.first);
      all = union(all, alternative.all);
    }
    return {
      first,
      all,
      canBeEmpty: alternatives.some((alternative) => alternative.canBeEmpty),
      repeats: alternatives.some((alternative) => alternative.repeats),
      alternatives,
    };
  }

  private sequence(): Node {
    let first = EMPTY;
    let all = EMPTY;
    let canBeEmpty = true;
    let repeats = false;
    let previousUnbounded: CharSet | undefined;
    while (this.position < this.source.length && this.peek() !== '|' && this.peek() !== ')') {
      const term = this.term();
      if (term.unbounded && previousUnbounded !== undefined && overlaps(previousUnbounded, term.all)) {
        throw new UnsafePattern('two adjacent unbounded quantifiers can match the same characters');
      }
      if (term.unbounded) previousUnbounded = term.all;
      else if (!term.canBeEmpty) previousUnbounded = undefined;
      if (canBeEmpty) first = union(first, term.first);
      all = union(all, term.all);
      canBeEmpty = canBeEmpty && term.canBeEmpty;
      repeats = repeats || term.repeats;
    }
    return { first, all, canBeEmpty, repeats };
  }

  private term(): Node & { unbounded: boolean; zeroWidth?: boolean } {
    const atom = this.atom();
    const quantifier = this.quantifier();
    if (quantifier === undefined) return { ...atom, unbounded: false };
    const { min, max } = quantifier;
    if (max > 1 && atom.group !== undefined) {
      if (atom.repeats)
        throw new UnsafePattern('a repeated group contains another quantifier (nested quantifiers)');
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
    }
    return {
      first: atom.first,
      all: atom.all,
      canBeEmpty: atom.canBeEmpty || min === 0,
      repeats: atom.repeats || max > 1,
      unbounded: max === Number.POSITIVE_INFINITY,
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

  private atom(): Node & { group?: { alternatives: Node[] }; zeroWidth?: boolean } {
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
          return { first: EMPTY, all: EMPTY, canBeEmpty: true, repeats: inner.repeats, zeroWidth: true };
        return { ...inner, group: { alternatives: inner.alternatives } };
      }
      case '[':
        return this.characterClass();
      case '\\':
        return this.escape(false);
      case '.':
        return { first: ANY, all: ANY, canBeEmpty: false, repeats: false };
      case '^':
      case '$':
        return { first: EMPTY, all: EMPTY, canBeEmpty: true, repeats: false, zeroWidth: true };
      default: {
        const code = char.codePointAt(0) ?? 0;
        if (code > 0xffff) this.position++;
        const set = single(code);
        return { first: set, all: set, canBeEmpty: false, repeats: false };
      }
    }
  }

  private escape(inClass: boolean): Node & { zeroWidth?: boolean } {
    const char = this.peek();
    this.position++;
    const set = (value: CharSet): Node => ({ first: value, all: value, canBeEmpty: false, repeats: false });
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
        return { first: EMPTY, all: EMPTY, canBeEmpty: true, repeats: false, zeroWidth: true };
      case 'B':
        return { first: EMPTY, all: EMPTY, canBeEmpty: true, repeats: false, zeroWidth: true };
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
    return { first: set, all: set, canBeEmpty: false, repeats: false };
  }
}
