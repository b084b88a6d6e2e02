import type { JsonSchema, JsonValue } from './json.js';

/** What a model sees of a tool: its name, what it does, and the JSON Schema of its arguments. */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  /** Ask the provider to enforce the schema exactly (OpenAI structured outputs), where supported. */
  readonly strict?: boolean;
}

/** A tool call as the model produced it: the arguments are the raw JSON text, unparsed. */
export interface ToolCall {
  /** The provider's id for this call; tool results must answer it. */
  readonly id: string;
  readonly toolName: string;
  /** Raw JSON text of the arguments, exactly as received (possibly broken). */
  readonly arguments: string;
}

/** A parsed, validated tool call, ready to execute. */
export interface Action<Args = Record<string, unknown>> {
  /** The id of the `ToolCall` it came from. */
  readonly id: string;
  readonly toolName: string;
  readonly args: Args;
}

/** How an action ended. */
export type ObservationStatus = 'success' | 'error' | 'skipped' | 'blocked' | 'timeout' | 'aborted';

/**
 * Every {@link ObservationStatus}, in this fixed order: for readers that check a status arriving from outside (a
 * resumed state, a remote tool service, a tool's progress) and for compact per-step storage by index.
 */
export const OBSERVATION_STATUSES: readonly ObservationStatus[] = Object.freeze([
  'success',
  'error',
  'skipped',
  'blocked',
  'timeout',
  'aborted',
] as const satisfies readonly ObservationStatus[]);

const STATUS_SET: ReadonlySet<unknown> = new Set(OBSERVATION_STATUSES);

/**
 * True when `value` is one of the {@link ObservationStatus} values.
 *
 * @example
 * if (!isObservationStatus(body.status)) throw new Error('not a status');
 */
export function isObservationStatus(value: unknown): value is ObservationStatus {
  return STATUS_SET.has(value);
}

/** The structured error carried by a failed observation, ready to show to a model. */
export interface ObservationError {
  /** A stable code, e.g. `tool_execution_failed`, `invalid_tool_arguments`, `timeout`. */
  readonly code: string;
  readonly message: string;
  /** Extra fields a caller can act on (path, suggestion, retryAfterMs, ...). */
  readonly details?: Readonly<Record<string, unknown>>;
}

/** The result of executing (or refusing to execute) one action. */
export interface Observation {
  readonly actionId: string;
  readonly toolName: string;
  readonly status: ObservationStatus;
  /** The tool's output as the model will see it (serialised, cut to the context budget). */
  readonly output?: JsonValue;
  /** Present for every status but `success`. */
  readonly error?: ObservationError;
  readonly durationMs: number;
}
