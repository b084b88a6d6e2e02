import type { AbstractAgent, BaseEvent, RunAgentParameters } from '@ag-ui/client';
import { eventOrderProblems } from './event-order.js';

/** What one `runAgent` of an AG-UI client saw. */
export interface ClientRun {
  readonly events: BaseEvent[];
  /** Why `runAgent` rejected (a `RUN_ERROR`, an HTTP error), if it did. */
  readonly error: Error | undefined;
  readonly types: string[];
}

/**
 * Runs the official client's `runAgent` and records every event it received, whatever the outcome; the stream is
 * checked against the protocol's ordering rules (`eventOrderProblems`) and a violation throws.
 */
export async function runClient(
  agent: AbstractAgent,
  parameters: RunAgentParameters = {},
): Promise<ClientRun> {
  const events: BaseEvent[] = [];
  let error: Error | undefined;
  try {
    await agent.runAgent(parameters, { onEvent: ({ event }) => void events.push(event) });
  } catch (caught) {
    error = caught instanceof Error ? caught : new Error(String(caught));
  }
  const problems = eventOrderProblems(events);
  if (problems.length > 0)
    throw new Error(`The AG-UI stream breaks the protocol's order:\n${problems.join('\n')}`);
  return { events, error, types: events.map((event) => event.type) };
}

/** The events of one type, typed loosely for assertions. */
export function ofType(run: ClientRun, type: string): Record<string, unknown>[] {
  return run.events.filter((event) => event.type === type) as unknown as Record<string, unknown>[];
}
