import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonKeyRewriter, type JsonKeyScope, rewriteJsonKeys } from './json-key-rewriter.js';

/** A scope that renames the same keys at every depth. */
function everywhere(renames: ReadonlyMap<string, string>): JsonKeyScope {
  const scope: JsonKeyScope = {
    key: (key) => ({ name: renames.get(key) ?? key, scope }),
    items: () => scope,
  };
  return scope;
}

const FORWARD = new Map([
  ['año', 'ano'],
  ['a b', 'a_b'],
  ['€', '_'],
]);
const BACKWARD = new Map([...FORWARD].map(([from, to]) => [to, from]));

/** A JSON document as a tree whose leaves are literal texts, so numbers beyond 2^53 survive as written. */
type Tree =
  | { readonly kind: 'leaf'; readonly text: string }
  | { readonly kind: 'array'; readonly items: readonly Tree[] }
  | { readonly kind: 'object'; readonly entries: readonly (readonly [string, Tree])[] };

const leaf = fc.oneof(
  fc.constantFrom('true', 'false', 'null', '0', '-0', '1e400', '12345678901234567890123', '-1.5E-3'),
  fc.bigInt().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => JSON.stringify(value)),
  fc.string({ unit: 'grapheme' }).map((value) => JSON.stringify(value)),
  fc.constantFrom('"\\u00f1\\"\\\\\\/\\b\\f\\n\\r\\t"', '"{\\"año\\": 1}"', '"año"'),
);
// A real mapping never sends a name the schema already uses, so the names sent are not generated as keys.
const key = fc
  .oneof(
    fc.constantFrom('año', 'a b', '€', 'x', '__proto__', 'constructor', ''),
    fc.string({ unit: 'grapheme', maxLength: 6 }),
  )
  .filter((name) => !BACKWARD.has(name));
const { tree } = fc.letrec<{ tree: Tree }>((self) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf.map((text): Tree => ({ kind: 'leaf', text })),
    fc.array(self('tree'), { maxLength: 4 }).map((items): Tree => ({ kind: 'array', items })),
    fc
      .array(fc.tuple(key, self('tree')), { maxLength: 4 })
      .map((entries): Tree => ({ kind: 'object', entries })),
  ),
}));
const whitespace = fc
  .array(fc.constantFrom(' ', '\n', '\t', '\r'), { maxLength: 2 })
  .map((chars) => chars.join(''));

/** Serialises a tree with the given whitespace, keys renamed by `rename`. */
function serialize(node: Tree, rename: ReadonlyMap<string, string>, spaces: readonly string[]): string {
  let counter = 0;
  const space = (): string => spaces[counter++ % spaces.length] ?? '';
  const write = (current: Tree): string => {
    switch (current.kind) {
      case 'leaf':
        return current.text;
      case 'array':
        return `[${space()}${current.items.map((item) => `${write(item)}${space()}`).join(`,${space()}`)}]`;
      case 'object':
        return `{${space()}${current.entries
          .map(
            ([name, value]) =>
              `${JSON.stringify(rename.get(name) ?? name)}${space()}:${space()}${write(value)}`,
          )
          .join(`${space()},`)}${space()}}`;
    }
  };
  return `${space()}${write(node)}${space()}`;
}

/** Splits a text at the given cut points. */
function split(text: string, cuts: readonly number[]): string[] {
  const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((left, right) => left - right);
  const pieces: string[] = [];
  let from = 0;
  for (const point of points) {
    pieces.push(text.slice(from, point));
    from = point;
  }
  pieces.push(text.slice(from));
  return pieces;
}

function rewriteInPieces(pieces: readonly string[], scope: JsonKeyScope | undefined): string {
  const rewriter = new JsonKeyRewriter(scope);
  let output = '';
  for (const piece of pieces) output += rewriter.push(piece);
  expect(rewriter.failed).toBe(false);
  return output + rewriter.end();
}

describe('JsonKeyRewriter', () => {
  it('renames keys only, keeps every other byte, and is reversible, however the text is cut', () => {
    fc.assert(
      fc.property(
        tree,
        fc.array(whitespace, { minLength: 1, maxLength: 5 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (document, spaces, cuts) => {
          const original = serialize(document, new Map(), spaces);
          const sent = serialize(document, FORWARD, spaces);
          expect(rewriteInPieces(split(original, cuts), everywhere(FORWARD))).toBe(sent);
          expect(rewriteInPieces(split(sent, cuts), everywhere(BACKWARD))).toBe(original);
        },
      ),
    );
  });

  it('is the identity when nothing is renamed, and on any JSON text fast-check makes', () => {
    fc.assert(
      fc.property(fc.json(), fc.array(fc.nat(), { maxLength: 4 }), (text, cuts) => {
        expect(rewriteInPieces(split(text, cuts), everywhere(new Map()))).toBe(text);
        expect(rewriteInPieces(split(text, cuts), undefined)).toBe(text);
      }),
    );
  });

  it('agrees with JSON.parse on what the keys become', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        const renameKeys = (node: unknown): unknown => {
          if (Array.isArray(node)) return node.map(renameKeys);
          if (typeof node !== 'object' || node === null) return node;
          return Object.fromEntries(
            Object.entries(node).map(([name, child]) => [FORWARD.get(name) ?? name, renameKeys(child)]),
          );
        };
        expect(JSON.parse(rewriteJsonKeys(text, everywhere(FORWARD)))).toEqual(renameKeys(JSON.parse(text)));
      }),
    );
  });

  it('reads escaped keys and writes the new name, leaving string values that look like keys alone', () => {
    const text = '{"a\\u00f1o": "año", "list": [{"año": {"año": 1}}], "x": "\\"año\\":"}';
    expect(rewriteJsonKeys(text, everywhere(FORWARD))).toBe(
      '{"ano": "año", "list": [{"ano": {"ano": 1}}], "x": "\\"año\\":"}',
    );
  });

  it('keeps the keys of a scope-less value as they are', () => {
    const scope: JsonKeyScope = {
      key: (key) => (key === 'año' ? { name: 'ano', scope: undefined } : undefined),
      items: () => undefined,
    };
    expect(rewriteJsonKeys('{"año": {"año": 2}, "free": {"año": 3}}', scope)).toBe(
      '{"ano": {"año": 2}, "free": {"año": 3}}',
    );
  });

  it('rewrites up to the first error and passes the rest through', () => {
    const rewriter = new JsonKeyRewriter(everywhere(FORWARD));
    const output = rewriter.push('{"año": 1, "a b": 02, "año": 3}');
    expect(output + rewriter.end()).toBe('{"ano": 1, "a_b": 02, "año": 3}');
    expect(rewriter.failed).toBe(true);
    for (const broken of ["{'año': 1}", '{"año": 1,}', '{"año" 1}', '[1 2]', '{"año": tru}', '{} {}']) {
      const check = new JsonKeyRewriter(everywhere(FORWARD));
      const result = check.push(broken) + check.end();
      expect(check.failed || result === broken, broken).toBe(true);
    }
  });

  it('releases a key cut off at the end unchanged, so a truncated call keeps its text', () => {
    const rewriter = new JsonKeyRewriter(everywhere(FORWARD));
    expect(rewriter.push('{"año": 1, "a')).toBe('{"ano": 1, ');
    expect(rewriter.push(' b')).toBe('');
    expect(rewriter.end()).toBe('"a b');
  });

  it('holds back nothing but an open key', () => {
    const rewriter = new JsonKeyRewriter(everywhere(FORWARD));
    expect(rewriter.push('{"x": "long string valu')).toBe('{"x": "long string valu');
    expect(rewriter.push('e", "n": 1234')).toBe('e", "n": 1234');
    expect(rewriter.push('5}')).toBe('5}');
    expect(rewriter.end()).toBe('');
    expect(rewriter.failed).toBe(false);
  });
});
