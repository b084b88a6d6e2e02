import type { Adjustment, Message } from '@org/core';
import { PROVIDER } from './provider-name.js';

/**
 * The tool-call ids Mistral takes back: nine letters or digits. It issues such ids itself and refuses a request whose
 * history carries any other (400 `Tool call id was call_abc but must be a-z, A-Z, 0-9, with a length of 9.`), so ids
 * from another provider (`call_...`, `toolu_...`) or from a test script are sent mapped.
 */
export const MISTRAL_TOOL_CALL_ID_PATTERN: RegExp = /^[a-zA-Z0-9]{9}$/;

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** Nine base-62 characters of an FNV-1a hash of `text` (64 bits, as two 32-bit halves): stable across requests. */
function nineCharacters(text: string): string {
  let low = 0x811c9dc5;
  let high = 0x01000193;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    low = Math.imul(low ^ code, 0x01000193) >>> 0;
    high = Math.imul(high ^ code ^ (low >>> 7), 0x01000193) >>> 0;
  }
  let value = BigInt(high) * 0x100000000n + BigInt(low);
  let id = '';
  for (let position = 0; position < 9; position++) {
    id += ALPHABET[Number(value % 62n)];
    value /= 62n;
  }
  return id;
}

/** The ids of one request's history as sent, and the `history-rewritten` adjustment when any was mapped. */
export interface ToolCallIds {
  /** The id to send for a call id of the history (the id itself when Mistral takes it). */
  toWire(toolCallId: string): string;
  readonly adjustment: Adjustment | undefined;
}

/**
 * Maps every tool-call id of the history that Mistral refuses to a nine-character one, the same for a call and its
 * result, stable from one request to the next (so a conversation's prefix stays the same), and never equal to another
 * id of the history. Ids Mistral takes are sent as they are.
 *
 * @example
 * const ids = mapToolCallIds(request.messages);
 * ids.toWire('call_hist_weather'); // nine letters and digits, e.g. 'Qm3xT0aZb'
 */
export function mapToolCallIds(messages: readonly Message[]): ToolCallIds {
  const seen = new Set<string>();
  for (const message of messages) {
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) seen.add(call.id);
    else if (message.role === 'tool') seen.add(message.toolCallId);
  }
  const taken = new Set([...seen].filter((id) => MISTRAL_TOOL_CALL_ID_PATTERN.test(id)));
  const mapped = new Map<string, string>();
  for (const id of seen) {
    if (taken.has(id) && MISTRAL_TOOL_CALL_ID_PATTERN.test(id)) continue;
    let candidate = nineCharacters(id);
    for (let attempt = 1; taken.has(candidate); attempt++) candidate = nineCharacters(`${id}#${attempt}`);
    taken.add(candidate);
    mapped.set(id, candidate);
  }
  return {
    toWire: (toolCallId) => mapped.get(toolCallId) ?? toolCallId,
    adjustment:
      mapped.size === 0
        ? undefined
        : {
            kind: 'history-rewritten',
            message:
              `${PROVIDER} takes back only tool-call ids of nine letters or digits; sent ` +
              `${[...mapped].map(([from, to]) => `'${from}' as '${to}'`).join(', ')} (each call with its result). ` +
              'The history you keep is unchanged.',
            details: { reason: 'tool-call-ids-mapped', toolCallIds: Object.fromEntries(mapped) },
          },
  };
}
