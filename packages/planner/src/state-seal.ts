import { InvalidAgentOptionsError, InvalidResumeStateError } from './errors.js';

/**
 * The secret(s) that seal paused states: one, or several for a rotation (the first seals, any of them verifies).
 * At least 16 bytes each; 32 random bytes is the usual choice.
 */
export type StateSecret = string | Uint8Array | readonly (string | Uint8Array)[];

const SEAL_PREFIX = 'hmac-sha256:';
const SEAL_CONTEXT = 'org.planner.agent-state.v1\n';
const MINIMUM_SECRET_BYTES = 16;
/** Nesting a sealed state may have: far above any real state (arguments are held to 64 levels by `@org/tools`). */
const MAX_STATE_DEPTH = 256;

const encoder = new TextEncoder();

/** The secrets as key bytes, checked; throws `InvalidAgentOptionsError` naming `stateSecret`. */
export function stateSecretKeys(secret: StateSecret): Uint8Array[] {
  const secrets = typeof secret === 'string' || secret instanceof Uint8Array ? [secret] : [...secret];
  if (secrets.length === 0) {
    throw new InvalidAgentOptionsError({ option: 'stateSecret', message: 'give at least one secret.' });
  }
  const keys = secrets.map((item) => (typeof item === 'string' ? encoder.encode(item) : item));
  if (keys.some((key) => !(key instanceof Uint8Array) || key.byteLength < MINIMUM_SECRET_BYTES)) {
    throw new InvalidAgentOptionsError({
      option: 'stateSecret',
      message: `each secret must be a string or bytes of at least ${MINIMUM_SECRET_BYTES} bytes.`,
    });
  }
  if (globalThis.crypto?.subtle === undefined) {
    throw new InvalidAgentOptionsError({
      option: 'stateSecret',
      message: 'sealing needs the Web Crypto API (globalThis.crypto.subtle), which this runtime lacks.',
    });
  }
  return keys;
}

/** The seal of a state (every field but `seal`), with the first key. */
export async function sealState(state: object, keys: readonly Uint8Array[]): Promise<string> {
  const key = await importKey(keys[0] as Uint8Array, 'sign');
  const signature = await globalThis.crypto.subtle.sign('HMAC', key, stateBytes(state));
  return SEAL_PREFIX + toHex(new Uint8Array(signature));
}

/**
 * Refuses a state without a seal (`unsealed`), or whose seal no key verifies (`tampered`: an edit, a truncation, or
 * a state sealed with another secret). Constant-time comparison (`crypto.subtle.verify`).
 */
export async function verifyStateSeal(state: object, keys: readonly Uint8Array[]): Promise<void> {
  const seal = Object.hasOwn(state, 'seal') ? (state as { seal?: unknown }).seal : undefined;
  if (typeof seal !== 'string' || !seal.startsWith(SEAL_PREFIX)) {
    throw new InvalidResumeStateError({
      reason: 'unsealed',
      field: 'seal',
      message:
        'The state to resume carries no seal, and stateSecret is configured: only states this application sealed ' +
        'are resumed.',
    });
  }
  const signature = fromHex(seal.slice(SEAL_PREFIX.length));
  let bytes: Uint8Array | undefined;
  try {
    bytes = stateBytes(state);
  } catch (error) {
    if (InvalidResumeStateError.isInstance(error)) throw error;
    bytes = undefined;
  }
  if (signature !== undefined && bytes !== undefined) {
    for (const keyBytes of keys) {
      const key = await importKey(keyBytes, 'verify');
      if (await globalThis.crypto.subtle.verify('HMAC', key, signature, bytes)) return;
    }
  }
  throw new InvalidResumeStateError({
    reason: 'tampered',
    field: 'seal',
    message:
      'The state to resume does not match its seal: it was edited or cut after the run paused, or sealed with ' +
      'another secret. Nothing was run.',
  });
}

function importKey(
  bytes: Uint8Array,
  usage: 'sign' | 'verify',
): ReturnType<typeof globalThis.crypto.subtle.importKey> {
  return globalThis.crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, [usage]);
}

function stateBytes(state: object): Uint8Array {
  const fields: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(state))
    if (key !== 'seal') fields[key] = (state as Record<string, unknown>)[key];
  return encoder.encode(SEAL_CONTEXT + canonicalStateText(fields));
}

/**
 * The state as canonical JSON: what `JSON.stringify` writes (so a state sealed in memory verifies after a trip
 * through JSON text), with object keys sorted. Unlike the argument-leak check's `canonicalJson`, nothing is cut:
 * a field at any depth is covered, and a state nested past 256 levels is refused as malformed.
 */
export function canonicalStateText(value: unknown): string {
  return writeCanonical(value, 0, '') ?? 'null';
}

function writeCanonical(value: unknown, depth: number, key: string): string | undefined {
  let current = value;
  if (
    typeof current === 'object' &&
    current !== null &&
    typeof (current as { toJSON?: unknown }).toJSON === 'function'
  ) {
    current = (current as { toJSON(key: string): unknown }).toJSON(key);
  }
  switch (typeof current) {
    case 'string':
      return JSON.stringify(current);
    case 'number':
      return Number.isFinite(current) ? JSON.stringify(current) : 'null';
    case 'boolean':
      return current ? 'true' : 'false';
    case 'bigint':
      throw new InvalidResumeStateError({
        reason: 'malformed',
        message: 'The state holds a BigInt, which JSON cannot carry.',
      });
    case 'object':
      break;
    default:
      return undefined;
  }
  if (current === null) return 'null';
  if (depth >= MAX_STATE_DEPTH) {
    throw new InvalidResumeStateError({
      reason: 'malformed',
      message: `The state is nested more than ${MAX_STATE_DEPTH} levels deep.`,
    });
  }
  if (Array.isArray(current)) {
    let text = '[';
    for (let index = 0; index < current.length; index++) {
      if (index > 0) text += ',';
      text += writeCanonical(current[index], depth + 1, String(index)) ?? 'null';
    }
    return `${text}]`;
  }
  let text = '{';
  let first = true;
  for (const name of Object.keys(current).sort()) {
    const written = writeCanonical((current as Record<string, unknown>)[name], depth + 1, name);
    if (written === undefined) continue;
    text += `${first ? '' : ','}${JSON.stringify(name)}:${written}`;
    first = false;
  }
  return `${text}}`;
}

function toHex(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += byte.toString(16).padStart(2, '0');
  return text;
}

function fromHex(text: string): Uint8Array | undefined {
  if (text.length !== 64 || !/^[0-9a-f]+$/.test(text)) return undefined;
  const bytes = new Uint8Array(text.length / 2);
  for (let index = 0; index < bytes.length; index++) {
    bytes[index] = Number.parseInt(text.slice(index * 2, index * 2 + 2), 16);
  }
  return bytes;
}
