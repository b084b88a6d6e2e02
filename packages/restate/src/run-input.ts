import type { Message } from '@org/core';
import { TerminalError } from '@restatedev/restate-sdk';
import type { RestateAgentInput } from './restate-agent-types.js';

const INPUT_KEYS: ReadonlySet<string> = new Set(['task', 'messages', 'metadata']);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function refuse(problem: string): never {
  throw new TerminalError(
    `Invalid run input: ${problem}. Expected { task?, messages?, metadata? }; nothing ran.`,
    {
      errorCode: 400,
    },
  );
}

/**
 * The run's input (untrusted: it came through the ingress) checked for its shape; the messages' content is checked
 * by `runAgent` before the first model call. A bad input is a `TerminalError` (HTTP 400): retrying cannot fix it.
 */
export function checkRunInput(input: unknown): RestateAgentInput {
  if (!isRecord(input)) refuse(input === undefined ? 'the body is empty' : 'the body is not a JSON object');
  for (const key of Object.keys(input)) {
    if (!INPUT_KEYS.has(key)) refuse(`unknown field ${JSON.stringify(key.slice(0, 80))}`);
  }
  const own = (key: string): unknown => (Object.hasOwn(input, key) ? input[key] : undefined);
  const task = own('task');
  const messages = own('messages');
  const metadata = own('metadata');
  if (task !== undefined && typeof task !== 'string') refuse('task is not a string');
  if (messages !== undefined && !Array.isArray(messages)) refuse('messages is not an array');
  if (metadata !== undefined && !isRecord(metadata)) refuse('metadata is not an object');
  if (task === undefined && (messages === undefined || messages.length === 0))
    refuse('give a task or messages');
  return {
    ...(task === undefined ? {} : { task }),
    ...(messages === undefined ? {} : { messages: messages as Message[] }),
    ...(metadata === undefined ? {} : { metadata }),
  };
}

/** The leading system messages of the input: what a resume gives again (they are part of the system prompt). */
export function leadingSystemMessages(input: RestateAgentInput): Message[] {
  const leading: Message[] = [];
  for (const message of input.messages ?? []) {
    if (!isRecord(message) || !Object.hasOwn(message, 'role') || message.role !== 'system') break;
    leading.push(message);
  }
  return leading;
}
