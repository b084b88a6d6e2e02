import { type RunEvent, redactSecretsDeep, stringifyWithin, truncateText, utf8ByteLength } from '@org/core';
import { DEVTOOLS_RECORD_VERSION, type DevtoolsRecord, type ModelRequestEvent } from './devtools-record.js';

/** The bounds of one record. */
export interface RecordLimits {
  /** The whole line, in UTF-8 bytes. */
  readonly maxRecordBytes: number;
  /** One string inside the event. */
  readonly maxStringBytes: number;
}

/** Items kept of one array (a message list, a plan's steps); the rest are counted in a marker item. */
const MAX_ARRAY_ITEMS = 500;
/** Levels kept of a nested value; deeper ones become a marker string. */
const MAX_DEPTH = 32;
/** Cut paths listed in a record's `truncated`; more are counted. */
const MAX_TRUNCATION_NOTES = 20;

function childPath(path: string, key: string | number): string {
  return typeof key === 'number' ? `${path}[${key}]` : path === '' ? key : `${path}.${key}`;
}

/**
 * A plain copy of a (redacted) value with each string cut to `maxStringBytes`, long arrays and deep nesting cut too,
 * every cut noted in `notes` by its path. Keys are copied as own data properties onto null-prototype objects, so a
 * `__proto__` key stays a key.
 */
function boundValue(value: unknown, maxStringBytes: number, notes: string[]): unknown {
  const note = (text: string): void => {
    notes.push(text);
  };
  const walk = (item: unknown, path: string, depth: number): unknown => {
    if (typeof item === 'string') {
      const cut = truncateText(item, maxStringBytes, { what: 'value' });
      if (cut !== item) note(`${path}: ${maxStringBytes} of ${utf8ByteLength(item)} bytes`);
      return cut;
    }
    if (typeof item === 'number') return Number.isFinite(item) ? item : String(item);
    if (typeof item === 'boolean' || item === null) return item;
    if (typeof item === 'bigint') return item.toString();
    if (typeof item !== 'object') return undefined;
    if (depth >= MAX_DEPTH) {
      note(`${path}: nested deeper than ${MAX_DEPTH} levels`);
      return `[nested deeper than ${MAX_DEPTH} levels]`;
    }
    if (Array.isArray(item)) {
      const kept = item
        .slice(0, MAX_ARRAY_ITEMS)
        .map((entry, index) => walk(entry, childPath(path, index), depth + 1));
      if (item.length > MAX_ARRAY_ITEMS) {
        note(`${path}: ${MAX_ARRAY_ITEMS} of ${item.length} items`);
        kept.push(`[${item.length - MAX_ARRAY_ITEMS} more items]`);
      }
      return kept;
    }
    const copy: Record<string, unknown> = Object.create(null);
    for (const [key, entry] of Object.entries(item)) {
      const bounded = walk(entry, childPath(path, key), depth + 1);
      if (bounded !== undefined)
        Object.defineProperty(copy, key, { value: bounded, enumerable: true, writable: true });
    }
    return copy;
  };
  return walk(value, '', 0);
}

/** What a record keeps of an event too large to show: its type, run and time, so the run's list stays whole. */
function eventSummary(event: RunEvent | ModelRequestEvent): RunEvent {
  const summary = { type: event.type, timestamp: event.timestamp } as Record<string, unknown>;
  if (typeof event.runId === 'string') summary.runId = truncateText(event.runId, 256);
  return summary as unknown as RunEvent;
}

/**
 * One line of a recording file for `event` (without the newline): redacted of secrets (`redactSecretsDeep`), each
 * string bounded, and the whole line within `maxRecordBytes`; what was cut is listed in the record.
 */
export function recordLine(
  event: RunEvent | ModelRequestEvent,
  seq: number,
  recordedAt: number,
  limits: RecordLimits,
): string {
  const notes: string[] = [];
  const bounded = boundValue(redactSecretsDeep(event), limits.maxStringBytes, notes);
  const truncated =
    notes.length > MAX_TRUNCATION_NOTES
      ? [...notes.slice(0, MAX_TRUNCATION_NOTES), `and ${notes.length - MAX_TRUNCATION_NOTES} more`]
      : notes;
  const record: DevtoolsRecord = {
    v: DEVTOOLS_RECORD_VERSION,
    seq,
    recordedAt,
    event: bounded as RunEvent | ModelRequestEvent,
    ...(truncated.length === 0 ? {} : { truncated }),
  };
  const line = stringifyWithin(record, limits.maxRecordBytes);
  if (line !== undefined && utf8ByteLength(line) <= limits.maxRecordBytes) return line;
  const omitted: DevtoolsRecord = {
    v: DEVTOOLS_RECORD_VERSION,
    seq,
    recordedAt,
    event: eventSummary(event),
    omitted: `the event did not fit in ${limits.maxRecordBytes} bytes even with its strings cut; only its type, run and time are kept`,
  };
  return JSON.stringify(omitted);
}
