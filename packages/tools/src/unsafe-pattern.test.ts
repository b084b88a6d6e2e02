import { describe, expect, it } from 'vitest';
import { z } from 'zod';
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
      '(a+b?)+',
      '^(\\w+\\.?)+$',
      '(ab|a)+',
      '^(a{1,4}){1,100}$',
      '^(\\s*,\\s*)*$',
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
      // zod's email pattern: nested quantifiers, each closed by a delimiter it cannot match.
      "^(?:[A-Za-z0-9_'+\\-]+\\.)*[A-Za-z0-9_'+\\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\\-]*\\.)+[A-Za-z]{2,}$",
      '^([a-z]+\\.)*[a-z]+$',
      '^((a+b)+c)*$',
      '',
    ];
    for (const pattern of safe) expect(findUnsafePatternReason(pattern), pattern).toBeUndefined();
  });

  it('accepts the pattern of every zod string format', () => {
    const formats = [
      z.email(),
      z.uuid(),
      z.guid(),
      z.url(),
      z.ipv4(),
      z.ipv6(),
      z.cidrv4(),
      z.cidrv6(),
      z.base64(),
      z.base64url(),
      z.e164(),
      z.jwt(),
      z.iso.datetime(),
      z.iso.date(),
      z.iso.time(),
      z.iso.duration(),
      z.nanoid(),
      z.cuid(),
      z.cuid2(),
      z.ulid(),
      z.emoji(),
      z.hostname(),
      z.hex(),
      z.mac(),
      z.string().startsWith('a.b'),
    ];
    for (const format of formats) {
      const schema = z.toJSONSchema(format) as { pattern?: string };
      if (schema.pattern !== undefined)
        expect(findUnsafePatternReason(schema.pattern), schema.pattern).toBeUndefined();
    }
  });

  it('refuses invalid regular expressions', () => {
    expect(findUnsafePatternReason('([a-z]')).toBe('it is not a valid regular expression');
  });
});
