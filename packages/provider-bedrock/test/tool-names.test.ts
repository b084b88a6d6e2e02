import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createToolNameMap } from '../src/tool-names.js';

describe('createToolNameMap', () => {
  it('keeps valid names and reports nothing', () => {
    const names = createToolNameMap(['get_weather', 'search-docs']);
    expect(names.toWire('get_weather')).toBe('get_weather');
    expect(names.adjustment).toBeUndefined();
  });

  it('maps dotted names and avoids collisions with names already taken', () => {
    const names = createToolNameMap(['math_factorial', 'math.factorial']);
    expect(names.toWire('math_factorial')).toBe('math_factorial');
    expect(names.toWire('math.factorial')).toBe('math_factorial_2');
    expect(names.fromWire('math_factorial_2')).toBe('math.factorial');
    expect(names.adjustment?.kind).toBe('tool-names-mapped');
  });

  it('property: wire names are valid for Bedrock, unique, and map back to the original', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ maxLength: 80 }), { maxLength: 12 }), (originals) => {
        const names = createToolNameMap(originals);
        const wire = originals.map((name) => names.toWire(name));
        for (const name of wire) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
        expect(new Set(wire).size).toBe(wire.length);
        for (const name of originals) expect(names.fromWire(names.toWire(name))).toBe(name);
      }),
      { numRuns: Number(process.env.FC_NUM_RUNS ?? 1000) },
    );
  });
});
