import type { RunEventListener } from './events.js';
import { describeOptionValue } from './max-timer-delay.js';

/**
 * One listener or several: what every `onEvent` option accepts (`runAgent`, `executePlan`, `executeAction`,
 * `serveMcp`, ...). Several are called in order with every event.
 */
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
 * The one rule for an `onEvent` option: why `value` cannot be used, or `undefined` when it can (`undefined`, a
 * function, or an array of functions). Each package throws its own typed options error with this text, naming the
 * option, so a bad listener fails where it is given rather than at the first event.
 *
 * @example
 * const problem = runEventListenersProblem(options.onEvent);
 * if (problem !== undefined) throw new PlanOptionsError({ option: 'onEvent', value: options.onEvent, problem });
 */
export function runEventListenersProblem(value: unknown): string | undefined {
  if (value === undefined || typeof value === 'function') return undefined;
  if (Array.isArray(value) && value.every((listener) => typeof listener === 'function')) return undefined;
  return `must be a listener function or an array of listener functions; got ${describeOptionValue(value)}`;
}

/**
 * The one listener to deliver to for an `onEvent` option checked by {@link runEventListenersProblem}: a single
 * listener as is (no wrapper on the hot path), several combined by {@link combineListeners}, and `undefined` for
 * none (an empty array too), so a caller nobody listens to does no work for listeners.
 *
 * @example
 * const listener = toRunEventListener(options.onEvent);
 * listener?.({ type: 'plan-step-started', ... });
 */
export function toRunEventListener(listeners: RunEventListeners | undefined): RunEventListener | undefined {
  if (listeners === undefined || typeof listeners === 'function') return listeners;
  if (listeners.length === 0) return undefined;
  return listeners.length === 1 ? listeners[0] : combineListeners(...listeners);
}
