/** An open construct the scanner is inside of: a bracket, or a template's `${` (which a `}` closes back into it). */
type Open = '(' | '[' | '{' | '${';

type State = 'code' | 'line-comment' | 'block-comment' | 'single' | 'double' | 'template' | 'regex';

/** After these characters a `/` starts a regular expression, not a division. */
const BEFORE_REGEX = new Set(['', ...'(,=:[!&|?{};+-*%<>~^']);
/** After these words too (`return /x/.test(s)`). */
const KEYWORDS_BEFORE_REGEX = new Set(
  'return typeof case do else in of new delete void throw await yield'.split(' '),
);
/** A line ending in one of these continues on the next line (`a +`, `x =`, `f(a,`). */
const CONTINUES_AFTER = /[=+\-*/%&|^<>,.?:!~]$/;
/** A line starting with one of these continues the line before (`.then(...)`, `+ b`, `? x : y`). */
const CONTINUES_BEFORE = /^(?:[.?:+\-*/%&|^=<>,([`]|in\b|instanceof\b|as\b|satisfies\b)/;

/**
 * Finds where the top-level statements of a program being written close, as its text grows: a `;`, or a line end
 * after which the next line does not continue the statement, at nesting depth 0 and outside strings, templates,
 * comments and regular expressions. Each boundary is an offset into the text: the text before it is a run of
 * complete statements (a program prefix). It only proposes prefixes for speculation: a wrong guess at worst makes
 * a prefix that does not parse (no speculation for it) or that stops early.
 *
 * @example
 * const statements = new TopLevelStatements();
 * statements.append("const a = f({ s: ';' }); const b"); // [24]
 */
export class TopLevelStatements {
  private text = '';
  private position = 0;
  private state: State = 'code';
  private readonly open: Open[] = [];
  /** The last significant character or word in code (to tell a regex from a division). */
  private previous = '';
  /** Inside a regex's character class (`[/]` does not end it). */
  private inClass = false;
  /** A line end at depth 0 waiting for the next significant character to say whether the statement continues. */
  private pendingLineEnd: number | undefined;
  /** Whether anything significant came since the last boundary (`;;` is no new statement). */
  private statementHasContent = false;

  /** Adds text; returns the offsets (into all text so far) where statements closed in it. */
  append(fragment: string): number[] {
    this.text += fragment;
    const boundaries: number[] = [];
    const text = this.text;
    while (this.position < text.length) {
      const char = text[this.position]!;
      const next = text[this.position + 1];
      // A character that may be the second half of a two-character token waits for it.
      if (next === undefined && (char === '/' || char === '\\' || char === '$' || char === '*')) break;
      const taken = this.step(char, next, this.position, boundaries);
      // 0: a token cut at the text's end (a word, `i` of `instanceof`) is read again once more text arrives.
      if (taken === 0) break;
      this.position += taken;
    }
    return boundaries;
  }

  /** Reads one token at `at`; returns how many characters it took. */
  private step(char: string, next: string | undefined, at: number, boundaries: number[]): number {
    switch (this.state) {
      case 'line-comment':
        if (char === '\n') {
          this.state = 'code';
          return this.code(char, next, at, boundaries);
        }
        return 1;
      case 'block-comment':
        if (char === '*' && next === '/') {
          this.state = 'code';
          return 2;
        }
        return 1;
      case 'single':
      case 'double':
        if (char === '\\') return 2;
        if (
          (char === "'" && this.state === 'single') ||
          (char === '"' && this.state === 'double') ||
          char === '\n'
        ) {
          this.state = 'code';
          this.previous = 'x';
        }
        return 1;
      case 'template':
        if (char === '\\') return 2;
        if (char === '`') {
          this.state = 'code';
          this.previous = 'x';
          return 1;
        }
        if (char === '$' && next === '{') {
          this.open.push('${');
          this.state = 'code';
          this.previous = '{';
          return 2;
        }
        return 1;
      case 'regex':
        if (char === '\\') return 2;
        if (char === '\n') this.state = 'code';
        else if (this.inClass) this.inClass = char !== ']';
        else if (char === '[') this.inClass = true;
        else if (char === '/') {
          this.state = 'code';
          this.previous = 'x';
        }
        return 1;
      case 'code':
        return this.code(char, next, at, boundaries);
    }
  }

  private code(char: string, next: string | undefined, at: number, boundaries: number[]): number {
    if (/\s/.test(char)) {
      if (
        char === '\n' &&
        this.open.length === 0 &&
        this.statementHasContent &&
        this.pendingLineEnd === undefined
      )
        this.pendingLineEnd = CONTINUES_AFTER.test(this.previous) ? undefined : at;
      return 1;
    }
    if (char === '/' && next === '/') {
      this.state = 'line-comment';
      return 2;
    }
    if (char === '/' && next === '*') {
      this.state = 'block-comment';
      return 2;
    }
    // The first significant character after a line end decides whether that line end closed a statement.
    if (this.pendingLineEnd !== undefined) {
      const rest = this.text.slice(at, at + 12);
      if (!CONTINUES_BEFORE.test(rest)) {
        // `in`/`as` cut short (`i` at the text's end) cannot be told yet: wait for more text.
        if (/^[a-z]+$/.test(rest) && rest.length < 11 && at + rest.length === this.text.length) return 0;
        this.close(this.pendingLineEnd, boundaries);
      }
      this.pendingLineEnd = undefined;
    }
    if (char !== ';' || this.open.length > 0) this.statementHasContent = true;
    const word = /^[A-Za-z_$][\w$]*/.exec(this.text.slice(at, at + 64));
    if (word !== null) {
      // A word cut at the text's end is read again whole.
      if (at + word[0].length === this.text.length) return 0;
      this.previous = KEYWORDS_BEFORE_REGEX.has(word[0]) ? '=' : 'x';
      return word[0].length;
    }
    switch (char) {
      case "'":
        this.state = 'single';
        return 1;
      case '"':
        this.state = 'double';
        return 1;
      case '`':
        this.state = 'template';
        return 1;
      case '/':
        if (BEFORE_REGEX.has(this.previous)) {
          this.state = 'regex';
          this.inClass = false;
          return 1;
        }
        break;
      case '(':
      case '[':
      case '{':
        this.open.push(char);
        break;
      case ')':
      case ']':
      case '}': {
        const top = this.open.pop();
        if (top === '${') {
          this.state = 'template';
          return 1;
        }
        break;
      }
      case ';':
        if (this.open.length === 0) {
          this.previous = ';';
          this.close(at + 1, boundaries);
          return 1;
        }
        break;
    }
    this.previous = char;
    return 1;
  }

  private close(offset: number, boundaries: number[]): void {
    if (this.statementHasContent) boundaries.push(offset);
    this.statementHasContent = false;
    this.pendingLineEnd = undefined;
  }
}
