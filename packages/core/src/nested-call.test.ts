import { describe, expect, it } from 'vitest';
import { isObservationStatus, nestedCallOf, OBSERVATION_STATUSES } from './index.js';

describe('nestedCallOf', () => {
  it('reads a program call started and finished, as code mode reports them', () => {
    expect(
      nestedCallOf({
        type: 'tool-call-started',
        timestamp: 12.5,
        action: { id: 'call_1/1', toolName: 'get_order', args: { id: 'ORD-11' } },
      }),
    ).toEqual({
      type: 'started',
      timestamp: 12.5,
      action: { id: 'call_1/1', toolName: 'get_order', args: { id: 'ORD-11' } },
    });
    expect(
      nestedCallOf({
        type: 'tool-call-finished',
        timestamp: 20,
        observation: {
          actionId: 'call_1/1',
          toolName: 'get_order',
          status: 'error',
          durationMs: 7.5,
          error: { code: 'tool_execution_failed', message: 'No order.', details: { secret: 1 } },
          extra: 'dropped',
        },
      }),
    ).toEqual({
      type: 'finished',
      timestamp: 20,
      observation: {
        actionId: 'call_1/1',
        toolName: 'get_order',
        status: 'error',
        durationMs: 7.5,
        error: { code: 'tool_execution_failed', message: 'No order.' },
      },
    });
  });

  it('names plan steps, and keeps a finished call without time or duration', () => {
    expect(nestedCallOf({ type: 'plan-step-started', stepId: 'a' })).toEqual({ type: 'plan-step' });
    expect(nestedCallOf({ type: 'plan-step-finished' })).toEqual({ type: 'plan-step' });
    expect(
      nestedCallOf({
        type: 'tool-call-finished',
        observation: { actionId: 'x', toolName: 't', status: 'success', output: { n: 1 } },
      }),
    ).toEqual({
      type: 'finished',
      timestamp: undefined,
      observation: { actionId: 'x', toolName: 't', status: 'success', durationMs: 0, output: { n: 1 } },
    });
  });

  it('is undefined for any other progress, and never reads through a prototype', () => {
    const inherited = Object.create({ type: 'tool-call-started', action: { id: 'a', toolName: 't' } });
    const hostile = [
      undefined,
      null,
      42,
      'tool-call-started',
      { type: 'percent', value: 50 },
      inherited,
      { type: 'tool-call-started', action: Object.create({ id: 'a', toolName: 't' }) },
      { type: 'tool-call-started', action: { id: 1, toolName: 't' } },
      { type: 'tool-call-finished', observation: { actionId: 'a', toolName: 't', status: 'exploded' } },
      { type: 'tool-call-finished', observation: { actionId: 'a', toolName: 't' } },
      JSON.parse('{"type":"tool-call-started","action":{"__proto__":{"id":"a","toolName":"t"}}}'),
    ];
    for (const progress of hostile) expect(nestedCallOf(progress)).toBeUndefined();
  });

  it('drops a time that is not a finite number', () => {
    const started = nestedCallOf({
      type: 'tool-call-started',
      timestamp: Number.NaN,
      action: { id: 'a', toolName: 't' },
    });
    expect(started).toEqual({
      type: 'started',
      timestamp: undefined,
      action: { id: 'a', toolName: 't', args: undefined },
    });
  });
});

describe('isObservationStatus', () => {
  it('accepts exactly the six statuses, in their fixed order', () => {
    expect(OBSERVATION_STATUSES).toEqual(['success', 'error', 'skipped', 'blocked', 'timeout', 'aborted']);
    for (const status of OBSERVATION_STATUSES) expect(isObservationStatus(status)).toBe(true);
    for (const value of ['Success', 'ok', '', undefined, null, 0, {}, 'toString', '__proto__'])
      expect(isObservationStatus(value)).toBe(false);
  });
});
