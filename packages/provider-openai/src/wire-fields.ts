/** A plain object, or `undefined`: wire values are read defensively, compatible servers vary. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** An own string field, or `undefined` (never read through the prototype). */
export function stringField(record: Record<string, unknown> | undefined, key: string): string | undefined {
  if (record === undefined || !Object.hasOwn(record, key)) return undefined;
  const value = record[key];
  return typeof value === 'string' ? value : undefined;
}

/** A token count: a finite number, or `undefined`. */
export function tokenCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Tool arguments as raw JSON text: a string as is; an object (some compatible servers send one) serialised. */
export function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  return JSON.stringify(value);
}
