import { describe, expect, expectTypeOf, it } from 'vitest';
import type { RunEvent, RunEventListener, RunEventOf, RunEventType } from './events.js';
import type { Observation } from './tool-call.js';

describe('RunEvent', () => {
  it('is one union discriminated by type', () => {
    expectTypeOf<RunEventType>().toEqualTypeOf<
      | 'run-started'
      | 'run-finished'
      | 'inference-started'
      | 'inference-finished'
      | 'inference-failed'
      | 'text-delta'
      | 'reasoning-delta'
      | 'tool-call-streaming-started'
      | 'tool-call-arguments-delta'
      | 'tool-call-arguments-complete'
      | 'tool-call-started'
      | 'tool-call-finished'
      | 'tool-call-progress'
      | 'plan-step-started'
      | 'plan-step-finished'
      | 'decision-extraction-failed'
      | 'validation-failed'
      | 'approval-requested'
      | 'tool-call-intercepted'
      | 'adjustment'
    >();
    expectTypeOf<RunEventOf<'tool-call-finished'>['observation']>().toEqualTypeOf<Observation>();
    expectTypeOf<RunEventOf<'plan-step-finished'>>().toHaveProperty('stepId').toEqualTypeOf<string>();
  });

  it('narrows in a switch, as listeners use it', () => {
    const seen: string[] = [];
    const listener: RunEventListener = (event: RunEvent) => {
      switch (event.type) {
        case 'plan-step-started':
          seen.push(`start ${event.stepId}`);
          break;
        case 'plan-step-finished':
          seen.push(`${event.status} ${event.stepId} in ${event.durationMs} ms`);
          break;
        default:
          seen.push(event.type);
      }
    };
    listener({ type: 'plan-step-started', timestamp: 0, stepId: 's1', toolName: 'search' });
    listener({
      type: 'plan-step-finished',
      timestamp: 5,
      stepId: 's1',
      toolName: 'search',
      status: 'success',
      durationMs: 5,
    });
    listener({ type: 'run-started', timestamp: 0, runId: 'r1' });
    expect(seen).toEqual(['start s1', 'success s1 in 5 ms', 'run-started']);
  });
});
