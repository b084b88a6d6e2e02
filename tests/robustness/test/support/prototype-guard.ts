import { afterAll, afterEach, beforeAll } from 'vitest';
import { type PrototypeSnapshot, snapshotChanges, takeSnapshot } from './prototype-snapshot.js';

/**
 * Prototype-pollution guard for every file of this suite (a vitest setup file): the own properties of the
 * built-in prototypes (names, symbols and full descriptors) are snapshotted before the file's tests and compared
 * after each test and after the file. Anything added, removed or redefined fails, naming the prototype and key.
 */
let baseline: PrototypeSnapshot = new Map();

function check(when: string): void {
  const changes = snapshotChanges(baseline, takeSnapshot());
  if (changes.length > 0) throw new Error(`Built-in prototypes changed ${when}:\n${changes.join('\n')}`);
}

beforeAll(() => {
  baseline = takeSnapshot();
});

afterEach((context) => {
  check(`during '${context.task.name}'`);
});

afterAll(() => {
  check('by this test file');
});
