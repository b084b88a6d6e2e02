import { describe, expect, it } from 'vitest';
import { snapshotChanges, takeSnapshot } from './prototype-snapshot.js';

// The guard itself must see what it is meant to see; it is exercised on a stand-in object, never on a real
// prototype (that would fail the file it runs in).
describe('the prototype snapshot', () => {
  it('reports an added key, a removed key, a redefined value and a changed attribute', () => {
    const target: Record<PropertyKey, unknown> = { kept: 1, removed: 2, redefined: 3, frozen: 4 };
    const before = takeSnapshot([['Target', target]]);
    expect(snapshotChanges(before, takeSnapshot([['Target', target]]))).toEqual([]);
    delete target.removed;
    target.redefined = 30;
    Object.defineProperty(target, 'frozen', { writable: false });
    target[Symbol.for('added')] = true;
    expect(snapshotChanges(before, takeSnapshot([['Target', target]]))).toEqual([
      "Target: 'removed' was removed",
      "Target: 'redefined' was redefined",
      "Target: 'frozen' was redefined",
      "Target: 'Symbol(added)' was added",
    ]);
  });
});
