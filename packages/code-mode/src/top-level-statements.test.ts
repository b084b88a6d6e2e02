import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TopLevelStatements } from './top-level-statements.js';

/** The prefixes a program's text gives when it arrives in pieces of `size` characters. */
function prefixesOf(text: string, size: number): string[] {
  const statements = new TopLevelStatements();
  const prefixes: string[] = [];
  for (let index = 0; index < text.length; index += size)
    for (const end of statements.append(text.slice(index, index + size))) prefixes.push(text.slice(0, end));
  return prefixes;
}

describe('top-level statements', () => {
  it('closes a statement at a top-level semicolon, whatever the pieces', () => {
    const text = "const a = await hop({ key: 'x' }); const b = await hop({ key: a.next });\nreturn b;";
    for (const size of [1, 3, 7, text.length])
      expect(prefixesOf(text, size)).toEqual([
        "const a = await hop({ key: 'x' });",
        "const a = await hop({ key: 'x' }); const b = await hop({ key: a.next });",
        text,
      ]);
  });

  it('does not split inside strings, templates, comments, regular expressions or brackets', () => {
    const text = [
      'const s = \'a;b\' + "c;d";',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal in the model's program, as text.
      'const t = `x;${[1, 2].map((n) => { return n; }).join(`;`)};y`;',
      '// a comment; with a semicolon',
      '/* a block; comment */ const r = /[;/]+;/g.test(s);',
      'for (let i = 0; i < 2; i++) { await hop({ key: String(i) }); }',
      'const q = 4 / 2; return q;',
    ].join('\n');
    for (const size of [1, 5, text.length]) {
      const prefixes = prefixesOf(text, size);
      expect(prefixes.map((prefix) => prefix.split('\n').length)).toEqual([1, 2, 4, 5, 6, 6]);
      expect(prefixes[2]?.endsWith('.test(s);')).toBe(true);
      expect(prefixes[3]?.endsWith('}); }')).toBe(true);
    }
  });

  it('closes a statement at a line end unless the next line continues it', () => {
    const text = [
      "const a = await hop({ key: 'x' })",
      'const total = a.value',
      '  + 1',
      'const list = [1, 2]',
      '  .map((n) => n * 2)',
      'if (total > 1) {',
      '  console.log(total)',
      '}',
      'return list',
    ].join('\n');
    for (const size of [1, 4, text.length])
      expect(prefixesOf(text, size)).toEqual([
        "const a = await hop({ key: 'x' })",
        "const a = await hop({ key: 'x' })\nconst total = a.value\n  + 1",
        "const a = await hop({ key: 'x' })\nconst total = a.value\n  + 1\nconst list = [1, 2]\n  .map((n) => n * 2)",
        text.slice(0, text.lastIndexOf('\n')),
      ]);
  });

  it('does not close an empty statement or a line that ends in an operator', () => {
    expect(prefixesOf(';;\nconst a =\n  1;\n', 2)).toEqual([';;\nconst a =\n  1;']);
  });

  it('finds the same statements however hostile text is cut, each a prefix ending in a closed statement', () => {
    const token = fc.constantFrom(
      ';',
      '\n',
      ' ',
      '{',
      '}',
      '(',
      ')',
      '[',
      ']',
      "'",
      '"',
      '`',
      '${',
      '/',
      '*',
      '\\',
      'a',
      '+',
      '.',
      'in',
      '=',
    );
    fc.assert(
      fc.property(
        fc.array(fc.oneof(token, fc.string()), { maxLength: 60 }),
        fc.integer({ min: 1, max: 9 }),
        (parts, size) => {
          const text = parts.join('');
          const whole = new TopLevelStatements().append(text);
          expect(prefixesOf(text, size)).toEqual(whole.map((end) => text.slice(0, end)));
          for (const [index, end] of whole.entries()) {
            expect(end).toBeGreaterThan(whole[index - 1] ?? 0);
            expect(end).toBeLessThanOrEqual(text.length);
          }
        },
      ),
    );
  });
});
