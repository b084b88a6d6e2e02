import { setMaxListeners } from 'node:events';

/**
 * The signal runners get when the caller gave none and no step timeout applies: it never aborts, so plans share
 * it instead of creating a controller each, and the in-process runner does not even subscribe to it.
 */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;
setMaxListeners(0, NEVER_ABORTED);
