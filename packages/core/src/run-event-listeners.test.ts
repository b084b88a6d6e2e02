import { describe, expect, it } from 'vitest';
import {
  combineListeners,
  type RunEvent,
  type RunEventListener,
  runEventListenersProblem,
  toRunEventListener,
} from './index.js';

const event: RunEvent = { type: 'run-started', timestamp: 0, runId: 'run-1' };

describe('onEvent listeners', () => {
  it('combineListeners calls each in order, skipping undefined, and isolates one that throws', () => {
    const calls: string[] = [];
    const combined = combineListeners(
      () => calls.push('first'),
      undefined,
      () => {
        throw new Error('a broken printer');
      },
      () => calls.push('last'),
    );
    expect(() => combined(event)).not.toThrow();
    expect(calls).toEqual(['first', 'last']);
  });

  it('toRunEventListener keeps one listener as is, combines several and listens to nothing for none', () => {
    const seen: RunEvent[] = [];
    const one: RunEventListener = (given) => seen.push(given);
    expect(toRunEventListener(one)).toBe(one);
    expect(toRunEventListener([one])).toBe(one);
    expect(toRunEventListener(undefined)).toBeUndefined();
    expect(toRunEventListener([])).toBeUndefined();
    toRunEventListener([one, one])?.(event);
    expect(seen).toEqual([event, event]);
  });

  it('runEventListenersProblem accepts a function or an array of functions and names anything else', () => {
    expect(runEventListenersProblem(undefined)).toBeUndefined();
    expect(runEventListenersProblem(() => {})).toBeUndefined();
    expect(runEventListenersProblem([() => {}, () => {}])).toBeUndefined();
    expect(runEventListenersProblem('print')).toBe(
      'must be a listener function or an array of listener functions; got "print"',
    );
    expect(runEventListenersProblem([() => {}, null])).toMatch(/got an array$/);
    expect(runEventListenersProblem({ onEvent() {} })).toMatch(/got an object$/);
  });
});
