// Gemini 3 gives each function call an `id`, to be sent back on its `functionResponse`; earlier models give none and
// match responses to calls by name and order. A call without an id gets one here, marked, so that it is never sent
// as if the model had chosen it.
const GENERATED_PREFIX = 'gemini-call-';

/** A new id for a call the model gave none: unique, and stable once given (it is kept in the history). */
export function generateCallId(): string {
  return `${GENERATED_PREFIX}${globalThis.crypto.randomUUID()}`;
}

/** The id to send back on the wire: the model's own, or `undefined` for one this adapter generated. */
export function wireCallId(toolCallId: string): string | undefined {
  return toolCallId.startsWith(GENERATED_PREFIX) ? undefined : toolCallId;
}
