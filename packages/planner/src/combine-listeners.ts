import {
  type RunEventListener,
  type RunEventListeners,
  runEventListenersProblem,
  toRunEventListener,
} from '@org/core';
import { InvalidAgentOptionsError } from './errors.js';

/**
 * The one listener a run delivers to: `own` (the stream's), then `onEvent`'s listeners; `undefined` when there is
 * none, so a run nobody listens to does no work for listeners. Throws `InvalidAgentOptionsError` for an `onEvent`
 * that is neither a function nor an array of functions (the rule of `@org/core` every `onEvent` follows).
 */
export function runListener(
  own: RunEventListener | undefined,
  onEvent: RunEventListeners | undefined,
): RunEventListener | undefined {
  const problem = runEventListenersProblem(onEvent);
  if (problem !== undefined)
    throw new InvalidAgentOptionsError({ option: 'onEvent', message: `${problem}.` });
  const given = toRunEventListener(onEvent);
  if (own === undefined) return given;
  return given === undefined ? own : toRunEventListener([own, given]);
}
