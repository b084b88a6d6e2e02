import { isObservationStatus, type Observation, type ObservationError } from './tool-call.js';

/**
 * A call another tool made, or one of a plan's steps, read from that tool's `tool-call-progress`: code mode reports
 * each call of its program as the call's own `tool-call-started` / `tool-call-finished` event, and the plan tool
 * each step's `plan-step-*` event (which listeners also get as top-level events, so they are only named here).
 */
export type NestedCall =
  | {
      readonly type: 'started';
      /** When the nested call started; `undefined` when the progress carried no finite time. */
      readonly timestamp: number | undefined;
      readonly action: { readonly id: string; readonly toolName: string; readonly args: unknown };
    }
  | {
      readonly type: 'finished';
      readonly timestamp: number | undefined;
      readonly observation: Observation;
    }
  | { readonly type: 'plan-step' };

/** An own property (never one reached through a prototype): a tool reports whatever progress it likes. */
function own(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, key)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const finite = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

function errorOf(value: unknown): ObservationError | undefined {
  const code = text(own(value, 'code'));
  const message = text(own(value, 'message'));
  return code === undefined || message === undefined ? undefined : { code, message };
}

/**
 * The nested call a tool's progress describes, or `undefined` for progress of any other shape (a tool's own
 * progress, to show as it is). Read by its own properties only, and rebuilt from the fields a listener uses, so a
 * listener never holds an object the tool could still change. The one reader of this shape for every listener
 * (`@org/otel`'s spans, `@org/ag-ui`'s nested tool calls).
 *
 * @example
 * if (event.type === 'tool-call-progress') {
 *   const nested = nestedCallOf(event.progress);
 *   if (nested?.type === 'finished') console.log(`${event.toolName} › ${nested.observation.toolName}`);
 * }
 */
export function nestedCallOf(progress: unknown): NestedCall | undefined {
  const type = own(progress, 'type');
  if (type === 'plan-step-started' || type === 'plan-step-finished') return { type: 'plan-step' };
  const timestamp = finite(own(progress, 'timestamp'));
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
    if (
      actionId === undefined ||
      toolName === undefined ||
      status === undefined ||
      !isObservationStatus(status)
    ) {
      return undefined;
    }
    const error = errorOf(own(observation, 'error'));
    const output = own(observation, 'output') as Observation['output'];
    return {
      type: 'finished',
      timestamp,
      observation: {
        actionId,
        toolName,
        status,
        durationMs: finite(own(observation, 'durationMs')) ?? 0,
        ...(output === undefined ? {} : { output }),
        ...(error === undefined ? {} : { error }),
      },
    };
  }
  return undefined;
}
