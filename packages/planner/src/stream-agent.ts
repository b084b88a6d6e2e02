import { AbortedError, type RunEvent } from '@org/core';
import type { ZodSchema } from '@org/tools';
import type { output as ZodOutput } from 'zod';
import { executeRun } from './agent-loop.js';
import type { AgentOptions, AgentResult } from './agent-types.js';

/**
 * The events of a run as they happen, and its result; `Output` is the type of the result's `output` (inferred from
 * the run's `output` schema, as `runAgent` infers it).
 */
export interface AgentStream<Output = unknown> extends AsyncIterable<RunEvent> {
  /** Resolves with the same result `runAgent` gives, once the run has ended. */
  readonly result: Promise<AgentResult<Output>>;
}

/**
 * Runs the agent loop like `runAgent` and yields its events as they happen (`run-started`, `inference-started`,
 * `tool-call-finished`, ..., `run-finished`). The result is on `.result`. `options.onEvent`, when given, is
 * called too (after the stream has the event). Iterate once. The run proceeds whether or not the events are read, but a consumer that stops
 * iterating early (`break`, `return`, a throw in the loop body) aborts it, as if `options.signal` had been aborted:
 * unless it had already finished, it ends as `aborted` (on `.result`) with nothing new started.
 *
 * @example
 * const stream = streamAgent({ model, tools, task: 'Is it warmer in Paris or Rome?' });
 * for await (const event of stream) {
 *   if (event.type === 'tool-call-finished') console.log(event.observation.toolName, event.observation.status);
 * }
 * const { text } = await stream.result;
 */
export function streamAgent<Schema extends ZodSchema>(
  options: AgentOptions & { readonly output: Schema },
): AgentStream<ZodOutput<Schema>>;
export function streamAgent(options: AgentOptions): AgentStream;
export function streamAgent(options: AgentOptions): AgentStream {
  let buffered: RunEvent[] = [];
  let wake: (() => void) | undefined;
  let done = false;
  // The run listens to this stream's own signal: aborted when the consumer stops reading, and linked to the caller's
  // by one listener that is removed when the run ends (a long-lived caller signal keeps nothing of this run).
  const stopped = new AbortController();
  const callerSignal = options.signal;
  const followCaller = (): void => stopped.abort(callerSignal?.reason);
  if (callerSignal?.aborted === true) followCaller();
  else callerSignal?.addEventListener('abort', followCaller, { once: true });
  const result = executeRun({ ...options, signal: stopped.signal }, (event) => {
    buffered.push(event);
    wake?.();
  }).finally(() => {
    done = true;
    callerSignal?.removeEventListener('abort', followCaller);
    wake?.();
  });
  // Failures are delivered by iteration and by `result`; do not report them as unhandled in between.
  result.catch(() => undefined);

  return {
    result,
    async *[Symbol.asyncIterator](): AsyncGenerator<RunEvent> {
      try {
        while (true) {
          if (buffered.length > 0) {
            // Take the whole batch: yielding from the front of a shared array would shift it once per event.
            const batch = buffered;
            buffered = [];
            for (const event of batch) yield event;
            continue;
          }
          if (done) break;
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
        }
      } finally {
        if (!done) {
          stopped.abort(new AbortedError({ operation: 'agent run (the stream consumer stopped reading)' }));
        }
      }
      await result;
    },
  };
}
