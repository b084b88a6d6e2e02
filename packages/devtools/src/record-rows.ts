import { readStrictJson, truncateText } from '@org/core';
import { DEVTOOLS_RECORD_VERSION, type DevtoolsRecord } from './devtools-record.js';

/** Nesting a record may have; the listener writes far less. */
const MAX_RECORD_DEPTH = 64;
/** How much of a refused line an error row quotes. */
const QUOTED_BYTES = 200;

/** One line of a recording file as the viewer shows it: a record, or why the line is not one. */
export type DevtoolsRow =
  | {
      readonly kind: 'record';
      /** The file it came from (its name inside the directory). */
      readonly source: string;
      /** Its line number in that file, from 1. */
      readonly line: number;
      readonly record: DevtoolsRecord;
    }
  | {
      readonly kind: 'error';
      readonly source: string;
      readonly line: number;
      /** Why the line was refused, and the start of it. */
      readonly message: string;
    };

function own(value: object, key: string): unknown {
  return Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
}

function isPlainObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Why `value` is not a record of the current format, or `undefined` when it is one. */
function recordProblem(value: unknown): string | undefined {
  if (!isPlainObject(value)) return 'not a JSON object';
  const version = own(value, 'v');
  if (version !== DEVTOOLS_RECORD_VERSION) {
    return `record format ${JSON.stringify(version) ?? 'missing'}, expected ${DEVTOOLS_RECORD_VERSION}`;
  }
  for (const key of ['seq', 'recordedAt']) {
    if (typeof own(value, key) !== 'number') return `'${key}' is not a number`;
  }
  const event = own(value, 'event');
  if (!isPlainObject(event)) return "'event' is not an object";
  if (typeof own(event, 'type') !== 'string') return "'event.type' is not a string";
  if (typeof own(event, 'timestamp') !== 'number') return "'event.timestamp' is not a number";
  const runId = own(event, 'runId');
  if (runId !== undefined && typeof runId !== 'string') return "'event.runId' is not a string";
  return undefined;
}

/**
 * Reads one line of a recording file (hostile-ish input: another process, an older version, a hand edit or a
 * crash mid-write may have produced it) with the strict JSON reader, bounded in size and depth, and checks its
 * shape. Never throws: a line that is not a record becomes an error row saying why.
 *
 * @example
 * readRow('{"v":1,"seq":0,"recordedAt":1,"event":{"type":"run-started","timestamp":1,"runId":"r"}}', 'a.jsonl', 1, 65536);
 * // { kind: 'record', source: 'a.jsonl', line: 1, record: { ... } }
 */
export function readRow(text: string, source: string, line: number, maxBytes: number): DevtoolsRow {
  const read = readStrictJson(text, { maxBytes, maxDepth: MAX_RECORD_DEPTH });
  const problem = read.ok
    ? recordProblem(read.value)
    : `not valid JSON: ${read.reason}${read.limit === undefined ? ` at ${read.position}` : ''}`;
  if (problem === undefined && read.ok) {
    return { kind: 'record', source, line, record: read.value as DevtoolsRecord };
  }
  return { kind: 'error', source, line, message: `${problem}: ${quote(text)}` };
}

/** The start of a refused line, for an error row. */
export function quote(text: string): string {
  return JSON.stringify(truncateText(text, QUOTED_BYTES, { what: 'line', redact: 'all' }));
}
