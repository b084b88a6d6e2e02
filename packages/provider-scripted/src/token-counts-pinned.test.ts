import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { countTokens } from './index.js';

interface PinnedCount {
  readonly text: string;
  readonly tokens: number;
}

// Counted with the js-tiktoken `Tiktoken` encoder the counter used before (issue 27): the bench's scripts and task
// texts, the docs, BFCL function specs and questions, and hostile texts (long runs, emoji, CJK, special-token text).
const pinned = JSON.parse(
  readFileSync(new URL('./__fixtures__/token-counts.json', import.meta.url), 'utf8'),
) as PinnedCount[];

describe('token counts stay those of the o200k_base tokenizer', () => {
  it('counts every pinned text as before', () => {
    const changed = pinned.filter((entry) => countTokens(entry.text) !== entry.tokens);
    expect(pinned.length).toBeGreaterThan(1_000);
    expect(changed.map((entry) => entry.text.slice(0, 80))).toEqual([]);
  });
});
