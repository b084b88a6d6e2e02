import type { RunEventListener } from '@org/core';
import { InvalidAgentOptionsError } from './errors.js';

/** One listener or several: what `onEvent` accepts (several are called in order with every event). */
export type RunEventListeners = RunEventListener | readonly RunEventListener[];

/**
 * One listener that passes every event to each of `listeners`, in order (`undefined` entries are skipped, so an
 * optional listener can be passed as is). A listener that throws is isolated: the others still get the event, and
 * the emitter never sees the error (the `RunEventListener` contract).
 *
 * @example
 * const onEvent = combineListeners(otelListener({ tracer }), (event) => console.log(event.type));
 * await runAgent({ model, tools, task, onEvent });
 */
export function combineListeners(...listeners: readonly (RunEventListener | undefined)[]): RunEventListener {
  const present = listeners.filter((listener): listener is RunEventListener => listener !== undefined);
  return (event) => {
    for (const listener of present) {
      try {
        listener(event);
      } catch {
        // Isolated: a printing listener that throws must not cost the tracing one its events.
      }
    }
  };
}

/**
 * The one listener a run delivers to: `own` (the stream's), then `onEvent`'s listeners; `undefined` when there is
 * none, so a run nobody listens to does no work for listeners. Throws `InvalidAgentOptionsError` for an `onEvent`
 * that is neither a function nor an array of functions.
 */
export function runListener(
  own: RunEventListener | undefined,
  onEvent: RunEventListeners | undefined,
): RunEventListener | undefined {
  const given: readonly unknown[] = onEvent === undefined ? [] : Array.isArray(onEvent) ? onEvent : [onEvent];
  if (given.some((listener) => typeof listener !== 'function')) {
    throw new InvalidAgentOptionsError({
      option: 'onEvent',
      message: 'must be a listener function or an array of listener functions.',
    });
  }
  const listeners = [...(own === undefined ? [] : [own]), ...(given as RunEventListener[])];
  if (listeners.length === 0) return undefined;
  return listeners.length === 1 ? listeners[0] : combineListeners(...listeners);
}
