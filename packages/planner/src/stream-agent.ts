import type { RunEvent } from '@org/core';
import { executeRun } from './agent-loop.js';
import type { AgentOptions, AgentResult } from './agent-types.js';

/** The events of a run as they happen, and its result. */
export interface AgentStream extends AsyncIterable<RunEvent> {
  /** Resolves with the same result `runAgent` gives, once the run has ended. */
  readonly result: Promise<AgentResult>;
}

/**
 * Runs the agent loop like `runAgent` and yields its events as they happen (`run-started`, `inference-started`,
 * `tool-call-finished`, ..., `run-finished`). The result is on `.result`. `options.onEvent`, when given, is
 * called too. Iterate once; the run proceeds whether or not the events are read.
 *
 * @example
 * const stream = streamAgent({ model, tools, task: 'Is it warmer in Paris or Rome?' });
 * for await (const event of stream) {
 *   if (event.type === 'tool-call-finished') console.log(event.observation.toolName, event.observation.status);
 * }
 * const { text } = await stream.result;
 */
export function streamAgent(options: AgentOptions): AgentStream {
  const buffered: RunEvent[] = [];
  let wake: (() => void) | undefined;
  let done = false;
  const result = executeRun(options, (event) => {
    buffered.push(event);
    wake?.();
    options.onEvent?.(event);
  }).finally(() => {
    done = true;
    wake?.();
  });
  // Failures are delivered by iteration and by `result`; do not report them as unhandled in between.
  result.catch(() => undefined);

  return {
    result,
    async *[Symbol.asyncIterator](): AsyncGenerator<RunEvent> {
      while (true) {
        if (buffered.length > 0) {
          yield buffered.shift() as RunEvent;
          continue;
        }
        if (done) break;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
      await result;
    },
  };
}
