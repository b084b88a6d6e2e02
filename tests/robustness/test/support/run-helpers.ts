import { assertToolCallPairing, type Message, type RunEvent } from '@org/core';
import type { AgentResult } from '@org/planner';

/** fast-check runs per property: 1,000 in CI, `FC_NUM_RUNS` (100,000 in `test:stress`) otherwise. */
export const NUM_RUNS = Number(process.env.FC_NUM_RUNS ?? 1000);

/** A vitest timeout that grows with the number of runs (the long forms run for minutes). */
export const propertyTimeout = (msPerRun: number, minimum = 30_000): number =>
  Math.max(minimum, NUM_RUNS * msPerRun * 3);

/** Collects a run's events, and lets a test look at them by type. */
export interface EventLog {
  readonly events: RunEvent[];
  readonly listener: (event: RunEvent) => void;
  ofType<Type extends RunEvent['type']>(type: Type): Extract<RunEvent, { type: Type }>[];
}

export function eventLog(): EventLog {
  const events: RunEvent[] = [];
  return {
    events,
    listener: (event) => {
      events.push(event);
    },
    ofType: <Type extends RunEvent['type']>(type: Type) =>
      events.filter((event): event is Extract<RunEvent, { type: Type }> => event.type === type),
  };
}

/**
 * Nothing lost: every tool call the model made in the run is answered by exactly one tool message (the provider
 * invariant, checked by core), and by exactly one observation in the result.
 */
export function assertEveryCallAnsweredOnce(result: AgentResult): void {
  assertToolCallPairing(result.messages);
  const callIds = result.messages.flatMap((message: Message) =>
    message.role === 'assistant' ? (message.toolCalls ?? []).map((call) => call.id) : [],
  );
  const observationIds = result.observations.map((observation) => observation.actionId);
  if (callIds.length !== observationIds.length || new Set(observationIds).size !== observationIds.length) {
    throw new Error(
      `Expected one observation per tool call: calls ${JSON.stringify(callIds)}, observations ${JSON.stringify(observationIds)}`,
    );
  }
  for (const id of callIds) {
    if (!observationIds.includes(id)) throw new Error(`Tool call '${id}' has no observation`);
  }
}

/** The tool messages of a history, by tool-call id. */
export function toolMessages(messages: readonly Message[]): Map<string, Extract<Message, { role: 'tool' }>> {
  const byId = new Map<string, Extract<Message, { role: 'tool' }>>();
  for (const message of messages) if (message.role === 'tool') byId.set(message.toolCallId, message);
  return byId;
}
