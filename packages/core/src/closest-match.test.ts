import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { closestMatch } from './closest-match.js';

describe('closestMatch', () => {
  const names = ['location', 'unit', 'days', 'include_hourly'];

  it.each([
    ['loction', 'location'],
    ['Location', 'location'],
    ['unti', 'unit'],
    ['include_hourley', 'include_hourly'],
    ['day', 'days'],
  ])('suggests %s → %s', (input, expected) => {
    expect(closestMatch(input, names)).toBe(expected);
  });

  it('suggests nothing when nothing is close', () => {
    expect(closestMatch('temperature', names)).toBeUndefined();
    expect(closestMatch('x', [])).toBeUndefined();
  });

  it('honours an explicit distance', () => {
    expect(closestMatch('lcatn', names, { maxDistance: 1 })).toBeUndefined();
    expect(closestMatch('lcation', names, { maxDistance: 1 })).toBe('location');
  });

  it('always returns one of the candidates or nothing', () => {
    fc.assert(
      fc.property(fc.string(), fc.array(fc.string()), (input, candidates) => {
        const match = closestMatch(input, candidates);
        expect(match === undefined || candidates.includes(match)).toBe(true);
        if (candidates.includes(input)) expect(match).toBe(input);
      }),
      { numRuns: Number(process.env.FC_NUM_RUNS ?? 1000) },
    );
  });
});
