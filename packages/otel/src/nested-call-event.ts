import type { ObservationError } from '@org/core';

/** A call another tool made (a program's call), or a plan step, read from that tool's progress. */
export type NestedCallEvent =
  | {
      readonly type: 'started';
      readonly timestamp: number;
      readonly action: { readonly id: string; readonly toolName: string; readonly args: unknown };
    }
  | {
      readonly type: 'finished';
      readonly timestamp: number;
      readonly observation: {
        readonly actionId: string;
        readonly toolName: string;
        readonly status: string;
        readonly durationMs: number;
        readonly error: ObservationError | undefined;
        readonly output: unknown;
      };
    }
  | { readonly type: 'plan-step' };

/** An own property of an object (never one reached through its prototype). */
function own(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, key)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function errorOf(value: unknown): ObservationError | undefined {
  const code = text(own(value, 'code'));
  const message = text(own(value, 'message'));
  return code === undefined || message === undefined ? undefined : ({ code, message } as ObservationError);
}

/**
 * The nested call a tool's progress describes: a `tool-call-started` / `tool-call-finished` of a call it made (code
 * mode reports each call of its program so, as the plan tool does each step's), or a plan step. A tool reports any
 * progress it likes, so the value is read by its own properties and anything else is `undefined`.
 */
export function nestedCallEventOf(progress: unknown): NestedCallEvent | undefined {
  const type = own(progress, 'type');
  if (type === 'plan-step-started' || type === 'plan-step-finished') return { type: 'plan-step' };
  const timestamp = finite(own(progress, 'timestamp'));
  if (timestamp === undefined) return undefined;
  if (type === 'tool-call-started') {
    const action = own(progress, 'action');
    const id = text(own(action, 'id'));
    const toolName = text(own(action, 'toolName'));
    if (id === undefined || toolName === undefined) return undefined;
    return { type: 'started', timestamp, action: { id, toolName, args: own(action, 'args') } };
  }
  if (type === 'tool-call-finished') {
    const observation = own(progress, 'observation');
    const actionId = text(own(observation, 'actionId'));
    const toolName = text(own(observation, 'toolName'));
    const status = text(own(observation, 'status'));
    if (actionId === undefined || toolName === undefined || status === undefined) return undefined;
    return {
      type: 'finished',
      timestamp,
      observation: {
        actionId,
        toolName,
        status,
        durationMs: finite(own(observation, 'durationMs')) ?? 0,
        error: errorOf(own(observation, 'error')),
        output: own(observation, 'output'),
      },
    };
  }
  return undefined;
}
