import {
  type Action,
  abortReasonOf,
  errorMessageOf,
  type Observation,
  type ObservationError,
  type ObservationStatus,
  type RunEvent,
  type RunEventListener,
  type TruncateTextOptions,
  toRunEventListener,
  truncateText,
} from '@org/core';
import type { Artifact } from './artifacts.js';
import type { ExecuteActionOptions, ToolInterception, ToolObservation } from './execute-action.js';
import { DEFAULT_OUTPUT_BUDGET_BYTES } from './serialize-output.js';
import type { ToolMediaPart } from './tool-content.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Bytes of a hook's reason kept on an interception (and in its event). */
const MAX_REASON_BYTES = 1_000;
const REASON_MARKER: TruncateTextOptions = { what: 'reason', redact: 'all' };
/** Room left for the label `formatObservationForModel` puts before an error (`Error (code): `): the whole fits. */
const MESSAGE_LABEL_BYTES = 96;

/** The output budget of a call's options (default 50 000 bytes). */
export function budgetOf(options: ExecuteActionOptions): number {
  return options.outputBudgetBytes ?? DEFAULT_OUTPUT_BUDGET_BYTES;
}

/**
 * Every error message of an observation reaches the model: redacted of secrets and bounded by the call's output
 * budget, with a marker, whatever the tool threw (a 2 MB message), the model sent (a 1 MB tool name, thousands of
 * invalid fields) or a hook gave as its reason.
 */
export function boundMessage(message: string, budget: number): string {
  return truncateText(message, Math.max(0, budget - MESSAGE_LABEL_BYTES), {
    what: 'error message',
    redact: 'all',
  });
}

/** `: <reason>` naming what was given to `abort(reason)`, or nothing when no reason was given. */
export function abortedBecause(signal: AbortSignal | undefined): string {
  return reasonSuffix(signal?.aborted === true ? signal.reason : undefined);
}

/** `: <reason>` for an abort reason, or nothing when there is none worth naming. */
export function reasonSuffix(reason: unknown): string {
  const text = abortReasonOf(reason);
  return text === undefined ? '' : `: ${text}`;
}

/** Whether a call's `tool-call-started` was emitted (and when), and whether its `tool-call-finished` was. */
export interface EventPairing {
  startedAt: number | undefined;
  finished: boolean;
}

/** The fields of an observation beside its identity, status and duration. */
export interface ObservationFields {
  output?: Observation['output'];
  error?: ObservationError;
  rawOutput?: unknown;
  artifacts?: readonly Artifact[];
  content?: readonly ToolMediaPart[];
  truncated?: boolean;
  hasRaw?: boolean;
}

/**
 * The record of one call from its start: its clock, its events (each `tool-call-started` paired with exactly one
 * `tool-call-finished`), the interceptions hooks made, and the one place observations are built.
 */
export class CallRecorder {
  readonly now: () => number;
  readonly started: number;
  readonly #action: Pick<Action, 'id' | 'toolName'>;
  readonly #options: ExecuteActionOptions;
  /** `onEvent` as one listener (checked by `checkExecuteOptions` before a call starts). */
  readonly #listener: RunEventListener | undefined;
  readonly #events: EventPairing | undefined;
  readonly #interceptions: ToolInterception[] = [];

  constructor(
    action: Pick<Action, 'id' | 'toolName'>,
    options: ExecuteActionOptions,
    events: EventPairing | undefined,
  ) {
    this.#action = action;
    this.#options = options;
    this.#listener = toRunEventListener(options.onEvent);
    this.#events = events;
    this.now = options.now ?? Date.now;
    this.started = this.now();
  }

  /** Emits `tool-call-started` for `action` (the call as known when it starts). */
  start(action: Action): void {
    if (this.#listener === undefined) return;
    if (this.#events !== undefined) this.#events.startedAt = this.started;
    this.emit({ type: 'tool-call-started', timestamp: this.started, action });
  }

  emit(event: RunEvent): void {
    const listener = this.#listener;
    if (listener === undefined) return;
    try {
      listener(event);
    } catch {
      // A listener must not break the run; its failure is its own.
    }
  }

  /** Records a block or rewrite on the observation and announces it as an event. */
  intercept(toolName: string, given: ToolInterception): void {
    const interception = { ...given, reason: truncateText(given.reason, MAX_REASON_BYTES, REASON_MARKER) };
    this.#interceptions.push(interception);
    this.emit({
      type: 'tool-call-intercepted',
      timestamp: this.now(),
      actionId: this.#action.id,
      toolName,
      decision: interception.decision,
      reason: interception.reason,
    });
  }

  /** The call's observation, with `tool-call-finished` emitted. */
  finish(status: ObservationStatus, fields: ObservationFields): ToolObservation {
    // Built field by field (same key order as the type) rather than with conditional spreads: this is the hot path.
    const observation = {
      actionId: this.#action.id,
      toolName: this.#action.toolName,
      status,
    } as Mutable<ToolObservation>;
    if (fields.output !== undefined) observation.output = fields.output;
    if (fields.error !== undefined) observation.error = fields.error;
    observation.durationMs = Math.max(0, this.now() - this.started);
    if (fields.hasRaw === true) observation.rawOutput = fields.rawOutput;
    if (fields.artifacts !== undefined && fields.artifacts.length > 0)
      observation.artifacts = fields.artifacts;
    if (fields.content !== undefined && fields.content.length > 0) observation.content = fields.content;
    if (this.#interceptions.length > 0) observation.interceptions = [...this.#interceptions];
    if (fields.truncated === true) observation.truncated = true;
    if (this.#listener !== undefined) {
      if (this.#events !== undefined) this.#events.finished = true;
      this.emit({ type: 'tool-call-finished', timestamp: this.now(), observation });
    }
    return observation;
  }

  /** An observation with an error whose message is redacted and bounded by the budget. */
  fail(
    status: ObservationStatus,
    code: string,
    message: string,
    details?: Record<string, unknown>,
  ): ToolObservation {
    return this.finish(status, {
      error: {
        code,
        message: boundMessage(message, budgetOf(this.#options)),
        ...(details === undefined ? {} : { details }),
      },
    });
  }
}

/**
 * Runs a call, closing the `tool-call-started` it opened if the call throws unexpectedly (a hostile registry or
 * schema, a bug), so a listener never keeps a call open forever; the throw itself reaches the caller unchanged.
 */
export function withPairedEvents(
  action: Pick<Action, 'id' | 'toolName'>,
  options: ExecuteActionOptions,
  run: (events: EventPairing | undefined) => Promise<ToolObservation>,
): Promise<ToolObservation> {
  // Without a listener there is no event to pair: no wrapper on the hot path.
  if (options.onEvent === undefined) return run(undefined);
  const events: EventPairing = { startedAt: undefined, finished: false };
  return run(events).catch((thrown: unknown) => {
    if (events.startedAt !== undefined && !events.finished) {
      const now = options.now ?? Date.now;
      const observation: ToolObservation = {
        actionId: action.id,
        toolName: action.toolName,
        status: 'error',
        error: {
          code: 'internal_error',
          message: boundMessage(`The call failed unexpectedly: ${errorMessageOf(thrown)}`, budgetOf(options)),
        },
        durationMs: Math.max(0, now() - events.startedAt),
      };
      try {
        // Checked already: the call started, which it does only after `checkExecuteOptions`.
        toRunEventListener(options.onEvent)?.({ type: 'tool-call-finished', timestamp: now(), observation });
      } catch {
        // A listener must not break the run; its failure is its own.
      }
    }
    throw thrown;
  });
}
