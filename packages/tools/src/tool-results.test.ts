import { describe, expect, it } from 'vitest';
import {
  ambiguous,
  artifactFromBytes,
  createArtifact,
  hasArtifacts,
  InvalidArtifactError,
  notFound,
  withArtifacts,
} from './index.js';

describe('typed results', () => {
  it('puts kind first and writes a message the model can act on', () => {
    const missing = notFound({
      what: 'customer',
      query: { email: 'ann@example.com' },
      suggestions: ['anne@example.com'],
    });
    expect(Object.keys(missing)[0]).toBe('kind');
    expect(missing).toEqual({
      kind: 'not_found',
      what: 'customer',
      query: { email: 'ann@example.com' },
      suggestions: ['anne@example.com'],
      message: 'No customer matched {"email":"ann@example.com"}. Close matches: anne@example.com.',
    });
    const many = ambiguous({
      what: 'city',
      query: 'Springfield',
      candidates: ['Springfield, IL', 'Springfield, MA'],
    });
    expect(Object.keys(many)[0]).toBe('kind');
    expect(many.message).toBe(
      '2 city candidates matched "Springfield"; ask the user which one, or narrow the query.',
    );
  });
});

describe('artifacts', () => {
  it('computes sha256 and size from bytes', async () => {
    const artifact = await artifactFromBytes(new TextEncoder().encode('hello'), {
      url: 'https://example.com/h.txt',
      mimeType: 'text/plain',
    });
    expect(artifact).toEqual({
      url: 'https://example.com/h.txt',
      mimeType: 'text/plain',
      sha256: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824',
      size: 5,
    });
  });

  it('refuses malformed artifacts with a typed error', () => {
    const valid = { url: 's3://bucket/key', mimeType: 'application/pdf', sha256: 'A'.repeat(64), size: 1 };
    expect(createArtifact(valid).sha256).toBe('a'.repeat(64));
    for (const [field, bad] of [
      ['url', { ...valid, url: 'not a url' }],
      ['mimeType', { ...valid, mimeType: 'pdf' }],
      ['sha256', { ...valid, sha256: 'abc' }],
      ['size', { ...valid, size: -1 }],
      ['size', { ...valid, size: 1.5 }],
    ] as const) {
      try {
        createArtifact(bad);
        throw new Error('expected a failure');
      } catch (error) {
        expect(InvalidArtifactError.isInstance(error)).toBe(true);
        expect((error as InvalidArtifactError).field).toBe(field);
      }
    }
  });

  it('marks results carrying artifacts', () => {
    const result = withArtifacts('done', [
      { url: 'https://e.com/a', mimeType: 'image/png', sha256: 'b'.repeat(64), size: 3 },
    ]);
    expect(hasArtifacts(result)).toBe(true);
    expect(hasArtifacts({ output: 'x', artifacts: [] })).toBe(false);
  });
});
