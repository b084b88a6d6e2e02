import { errorMessageOf, OrgError, readStrictJson } from '@org/core';
import { TerminalError } from '@restatedev/restate-sdk';

/** What a durable run keeps of a model call's typed error, through the journal and the engine's retries. */
export interface ModelCallFailure {
  /** The error's stable code (`rate_limited`, `invalid_request`, ...), or its class name when it has none. */
  readonly code: string;
  readonly retryable: boolean;
  /** The provider's HTTP status, when the error carried one. */
  readonly statusCode?: number;
}

/**
 * Marks the end of a retryable failure's message. When the engine gives up retrying a step, it journals a failure
 * made of the last error's message only (no metadata): the code travels there, after this marker, as JSON.
 */
const MARKER = '\n[model call failure ';
/** Longest JSON the marker may carry: a code, a flag, a status. */
const MAX_MARKED_BYTES = 512;

const CODE_PATTERN = /^[A-Za-z][\w.-]{0,79}$/;

function failureOf(error: unknown): ModelCallFailure {
  const code = OrgError.isInstance(error) ? error.code : error instanceof Error ? error.name : typeof error;
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return {
    code: CODE_PATTERN.test(code) ? code : 'error',
    retryable: OrgError.isInstance(error) && error.retryable,
    ...(typeof status === 'number' && Number.isSafeInteger(status) ? { statusCode: status } : {}),
  };
}

/**
 * A model call's failure, as the engine needs it. A retryable error (`retryable` of core's errors) stays retryable
 * (the engine retries the step, with the run's `modelRetry`), its message ending with the failure as JSON; any other
 * is a `TerminalError` whose metadata carries the same fields, journaled so that a replay fails the same way.
 */
export function toEngineFailure(error: unknown): Error {
  const failure = failureOf(error);
  const message = errorMessageOf(error);
  if (failure.retryable) return new Error(`${message}${MARKER}${JSON.stringify(failure)}]`);
  return new TerminalError(message, {
    metadata: {
      code: failure.code,
      retryable: String(failure.retryable),
      ...(failure.statusCode === undefined ? {} : { statusCode: String(failure.statusCode) }),
    },
  });
}

function checked(value: unknown): ModelCallFailure | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const code = Object.hasOwn(record, 'code') ? record.code : undefined;
  const retryable = Object.hasOwn(record, 'retryable') ? record.retryable : undefined;
  const status = Object.hasOwn(record, 'statusCode') ? record.statusCode : undefined;
  if (typeof code !== 'string' || !CODE_PATTERN.test(code) || typeof retryable !== 'boolean')
    return undefined;
  if (status !== undefined && (typeof status !== 'number' || !Number.isSafeInteger(status))) return undefined;
  return status === undefined ? { code, retryable } : { code, retryable, statusCode: status };
}

/**
 * The failure a journaled model call ended with, read back from the engine's `TerminalError`: from its metadata
 * (a final error), or from the marker ending its message (the last retry of a retryable one). `message` is the
 * provider's message without the marker. A failure that carries neither (the engine's own) has no `failure`.
 */
export function fromEngineFailure(error: TerminalError): {
  readonly message: string;
  readonly failure: ModelCallFailure | undefined;
} {
  const metadata = error.metadata ?? {};
  if (Object.hasOwn(metadata, 'code')) {
    const status = Object.hasOwn(metadata, 'statusCode') ? Number(metadata.statusCode) : undefined;
    const failure = checked({
      code: metadata.code,
      retryable: Object.hasOwn(metadata, 'retryable') ? metadata.retryable === 'true' : false,
      ...(status === undefined ? {} : { statusCode: status }),
    });
    return { message: error.message, failure };
  }
  // Ours is the last marker: a provider's message quoting one comes before it.
  const at = error.message.lastIndexOf(MARKER);
  if (at === -1 || !error.message.endsWith(']')) return { message: error.message, failure: undefined };
  const marked = readStrictJson(error.message.slice(at + MARKER.length, -1), {
    maxBytes: MAX_MARKED_BYTES,
    maxDepth: 2,
  });
  const failure = marked.ok ? checked(marked.value) : undefined;
  return failure === undefined
    ? { message: error.message, failure: undefined }
    : { message: error.message.slice(0, at), failure };
}
