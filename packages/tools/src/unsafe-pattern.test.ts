import { describe, expect, it } from 'vitest';
import { findUnsafePatternReason } from './unsafe-pattern.js';

describe('findUnsafePatternReason', () => {
  it('refuses patterns prone to catastrophic backtracking', () => {
    const unsafe = [
      '^(a|a)*$',
      '(a+)+',
      '^(a*)*b$',
      '(\\w+\\s?)*$',
      '^(a|ab)*c$',
      '(x+x+)+y',
      '^(\\d+)*$',
      '\\d+\\d*',
      '.*.*=.*',
      '^([a-z]+)+$',
      '(a?){20}a{20}',
      '(\\s*,\\s*)*',
      '(.*a){12}',
      '(a|b|ab)+',
      '(\\1)',
      '(a)\\1+',
      '(?<x>a)\\k<x>',
    ];
    for (const pattern of unsafe) expect(findUnsafePatternReason(pattern), pattern).toBeDefined();
  });

  it('accepts ordinary patterns', () => {
    const safe = [
      '^[a-z]+$',
      '^\\d{3}-\\d{4}$',
      '^[A-Z]{2}\\d{2}[A-Z0-9]{1,30}$',
      '^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$',
      '^(GET|POST|PUT|DELETE)$',
      '^\\S+\\s*$',
      '^https?://[^\\s/$.?#].[^\\s]*$',
      '^[0-9a-f]{64}$',
      '^(?:[01]\\d|2[0-3]):[0-5]\\d$',
      '^\\p{L}+$',
      '',
    ];
    for (const pattern of safe) expect(findUnsafePatternReason(pattern), pattern).toBeUndefined();
  });

  it('refuses invalid regular expressions', () => {
    expect(findUnsafePatternReason('([a-z]')).toBe('it is not a valid regular expression');
  });
});
