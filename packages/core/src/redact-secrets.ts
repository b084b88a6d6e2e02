const REGISTRY_KEY = Symbol.for('org.secrets');
const REDACTED = '[REDACTED]';

/** Secrets are shared across copies of this package (two versions in one app), hence the global symbol. */
function secretRegistry(): Set<string> {
  const holder = globalThis as { [REGISTRY_KEY]?: Set<string> };
  holder[REGISTRY_KEY] ??= new Set<string>();
  return holder[REGISTRY_KEY];
}

/** The registry longest first (a secret that contains another is replaced whole), rebuilt when it grows. */
let sortedSecrets: readonly string[] = [];
let sortedSize = -1;
function secretsLongestFirst(): readonly string[] {
  const registry = secretRegistry();
  if (registry.size !== sortedSize) {
    sortedSecrets = [...registry].sort((left, right) => right.length - left.length);
    sortedSize = registry.size;
  }
  return sortedSecrets;
}

// Shapes of credentials that providers and SDKs put into messages: OpenAI/Anthropic keys, AWS access key
// ids, bearer tokens, and `key=value` / `"key": "value"` pairs whose key names a credential (the key is kept so
// the message still says what was redacted).
const SECRET_PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  [
    /\b((?:x-|aws_)?api[_-]?key|authorization|(?:aws_)?secret[_-]?access[_-]?key|(?:aws_)?session[_-]?token|access[_-]?token|password)(["']?\s*[:=]\s*["']?)((?:(?:Bearer|Basic)\s+)?[^\s"',;}]{4,})/gi,
    `$1$2${REDACTED}`,
  ],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, `$1 ${REDACTED}`],
  [/\bsk-[A-Za-z0-9_-]{8,}/g, REDACTED],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, REDACTED],
];

const MINIMUM_SECRET_LENGTH = 8;
/** Base64 forms are computed for secrets up to this length; a longer "secret" is not a key. */
const MAXIMUM_ENCODED_SECRET_LENGTH = 4096;

function base64OfBytes(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * The base64 text a secret becomes inside a longer encoded value (HTTP Basic `user:secret`): for each of the three
 * alignments, the characters that depend on the secret's bytes alone, and, for a secret at the end, the tail too.
 */
function base64Forms(secret: string): string[] {
  const bytes = new TextEncoder().encode(secret);
  const forms: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const padded = new Uint8Array(offset + bytes.length);
    padded.set(bytes, offset);
    const encoded = base64OfBytes(padded);
    // The first group mixes the unknown prefix's bytes in; the last partial group the unknown suffix's.
    const from = offset === 0 ? 0 : 4;
    const whole = Math.floor(padded.length / 3) * 4;
    forms.push(encoded.slice(from, whole), encoded.slice(from).replace(/=+$/, ''));
  }
  const withUrlAlphabet = forms.map((form) => form.replaceAll('+', '-').replaceAll('/', '_'));
  return [...forms, ...withUrlAlphabet];
}

/** Every form a secret is sent or echoed in: as given, trimmed, URL-encoded, JSON-escaped and base64-encoded. */
function formsOf(secret: string): Set<string> {
  const forms = new Set<string>([secret]);
  const trimmed = secret.trim();
  forms.add(trimmed);
  try {
    forms.add(encodeURIComponent(trimmed));
  } catch {
    // A lone surrogate cannot be URL-encoded, so it is never sent that way.
  }
  forms.add(JSON.stringify(trimmed).slice(1, -1));
  if (trimmed.length <= MAXIMUM_ENCODED_SECRET_LENGTH)
    for (const form of base64Forms(trimmed)) forms.add(form);
  return forms;
}

/**
 * Registers a value (an API key, a token) that must never appear in an error, an event, a log line or the model's
 * context. Providers call it with the key they were given, so even a key of an unknown shape is redacted. The forms
 * a key is sent in are registered with it: trimmed (a key read from a file keeps its newline, the SDK sends it
 * trimmed), URL-encoded (a key in a query string), JSON-escaped, and base64 (HTTP Basic credentials, at any
 * alignment). Values (and forms) shorter than 8 characters are ignored: redacting them would mangle ordinary text.
 *
 * @example
 * registerSecret(process.env.MY_PROVIDER_KEY ?? '');
 */
export function registerSecret(secret: string | undefined | null): void {
  if (typeof secret !== 'string' || secret.trim().length < MINIMUM_SECRET_LENGTH) return;
  const registry = secretRegistry();
  for (const form of formsOf(secret)) if (form.length >= MINIMUM_SECRET_LENGTH) registry.add(form);
}

/**
 * Registers the secrets among HTTP headers given to a provider (`headers: { 'X-Proxy-Token': ... }`): the value of
 * every header whose name is a credential's (see {@link isCredentialName}), and of `Bearer` / `Basic` / `Token`
 * values the credential after the scheme (for Basic, the decoded password too).
 *
 * @example
 * registerHeaderSecrets({ 'x-api-key': key, authorization: `Basic ${btoa(`user:${password}`)}` });
 */
export function registerHeaderSecrets(headers: unknown): void {
  if (typeof headers !== 'object' || headers === null) return;
  let entries: [string, unknown][];
  try {
    entries = isHeadersLike(headers)
      ? headersEntries(headers)
      : Array.isArray(headers)
        ? (headers as unknown[]).filter(Array.isArray).map((pair) => [String(pair[0]), pair[1]])
        : Object.entries(headers);
  } catch {
    return;
  }
  for (const [name, value] of entries) {
    if (typeof value !== 'string' || !isCredentialName(name)) continue;
    registerSecret(value);
    const scheme = /^\s*(Bearer|Basic|Token)\s+(\S+)\s*$/i.exec(value);
    if (scheme === null) continue;
    registerSecret(scheme[2]);
    if (scheme[1]?.toLowerCase() === 'basic') {
      try {
        const decoded = atob(scheme[2] as string);
        const colon = decoded.indexOf(':');
        if (colon >= 0) registerSecret(decoded.slice(colon + 1));
      } catch {
        // Not base64: registered as given above.
      }
    }
  }
}

const SECRET_KEY_QUALIFIERS = new Set([
  'api',
  'access',
  'secret',
  'private',
  'signing',
  'subscription',
  'master',
  'encryption',
  'client',
]);

/**
 * Whether a field or header name holds a credential: `password`, `api_key`, `x-api-key`, `apiKey`, `authorization`,
 * `access_token`, `sessionToken`, `x-amz-security-token`, `client_secret`, `secretAccessKey`, `privateKey`, `cookie`,
 * `credentials`, `auth`. Names of counts (`max_tokens`, `inputTokens`, `token_count`) are not credentials.
 */
export function isCredentialName(name: string): boolean {
  if (name.length > 100) return false;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
  const last = words.at(-1);
  if (last === undefined) return false;
  for (const word of words) {
    if (word === 'password' || word === 'passwd' || word === 'passphrase' || word === 'apikey') return true;
    if (word === 'authorization' || word === 'credentials' || word === 'credential') return true;
  }
  if (['token', 'secret', 'cookie', 'auth', 'pwd', 'bearer'].includes(last)) return true;
  const before = words.at(-2);
  if (last === 'key' && before !== undefined && SECRET_KEY_QUALIFIERS.has(before)) return true;
  // Header names arrive lowercased (`privatekey`, `sessiontoken`): the word boundaries are gone, the suffix is not.
  const compact = words.join('');
  if (/(?:password|passwd|passphrase|secret|token|cookie|authorization|credentials?)$/.test(compact))
    return true;
  for (const qualifier of SECRET_KEY_QUALIFIERS) if (compact.endsWith(`${qualifier}key`)) return true;
  return false;
}

/**
 * Replaces every registered secret (in every form it was registered in) with `[REDACTED]`, and nothing else. This is
 * what tool outputs get before the model sees them: a provider's key must never reach the model, while text that
 * only looks like a credential (`password=` in a code snippet a tool found) is the tool's data and stays.
 *
 * @example
 * registerSecret(key); redactRegisteredSecrets(`echo: ${key}`); // 'echo: [REDACTED]'
 */
export function redactRegisteredSecrets(text: string): string {
  const secrets = secretsLongestFirst();
  let result = text;
  for (const secret of secrets) {
    if (result.includes(secret)) result = result.split(secret).join(REDACTED);
  }
  return result;
}

/**
 * Replaces every registered secret and every credential-shaped substring with `[REDACTED]`.
 * The error family runs it over every message, so callers rarely need it directly.
 *
 * @example
 * redactSecrets('401: Incorrect API key provided: sk-abc123def456'); // '401: Incorrect API key provided: [REDACTED]'
 */
export function redactSecrets(text: string): string {
  let result = redactRegisteredSecrets(text);
  for (const [pattern, replacement] of SECRET_PATTERNS) result = result.replace(pattern, replacement);
  return result;
}

const MAX_DEEP_DEPTH = 64;
const MAX_DEEP_NODES = 100_000;
const DEEP_TOO_DEEP = '[REDACTED: nested too deep to inspect]';
const DEEP_TOO_LARGE = '[REDACTED: too large to inspect]';
const IN_PROGRESS = Symbol('in progress');

/**
 * Deeply redacts a JSON-like value (an error body, event details, an SDK's log argument), returning a copy: every
 * string is redacted (`redactSecrets`), and the value of every field named like a credential (`password`,
 * `api_key`, `authorization`, `x-api-key`, see {@link isCredentialName}) becomes `[REDACTED]` whatever it holds.
 * `Map`, `Set` and `Headers` keep their entries (a `Headers` becomes a plain object), an `Error` its name, message
 * and stack. Cycles are cut with `"[Circular]"`; shared sub-objects are copied once and stay shared, so the work is
 * linear in the size of the value; more than 64 levels or 100,000 objects are replaced by a `[REDACTED: ...]`
 * placeholder. Never throws (a getter that throws becomes `[REDACTED: ...]`).
 */
export function redactSecretsDeep<T>(value: T): T {
  const copies = new Map<object, unknown>();
  let nodes = 0;
  const field = (key: string, item: unknown, depth: number): unknown => {
    if (
      item !== null &&
      item !== undefined &&
      typeof item !== 'boolean' &&
      item !== '' &&
      isCredentialName(key)
    )
      return REDACTED;
    return walk(item, depth + 1);
  };
  const walk = (current: unknown, depth: number): unknown => {
    if (typeof current === 'string') return redactSecrets(current);
    if (current === null || (typeof current !== 'object' && typeof current !== 'function')) return current;
    if (typeof current === 'function') return current;
    const known = copies.get(current);
    if (known === IN_PROGRESS) return '[Circular]';
    if (known !== undefined || copies.has(current)) return known;
    if (depth > MAX_DEEP_DEPTH) return DEEP_TOO_DEEP;
    nodes += 1;
    if (nodes > MAX_DEEP_NODES) return DEEP_TOO_LARGE;
    copies.set(current, IN_PROGRESS);
    let copy: unknown;
    try {
      copy = copyOf(current, depth);
    } catch {
      copy = '[REDACTED: the value could not be inspected]';
    }
    copies.set(current, copy);
    return copy;
  };
  const copyOf = (current: object, depth: number): unknown => {
    if (Array.isArray(current)) {
      const copy: unknown[] = [];
      for (let index = 0; index < current.length; index++) copy.push(walk(current[index], depth + 1));
      return copy;
    }
    if (current instanceof Map) {
      const copy = new Map<unknown, unknown>();
      for (const [key, item] of current)
        copy.set(key, typeof key === 'string' ? field(key, item, depth) : walk(item, depth + 1));
      return copy;
    }
    if (current instanceof Set) return new Set([...current].map((item) => walk(item, depth + 1)));
    if (ArrayBuffer.isView(current) || current instanceof ArrayBuffer) return current;
    const copy: Record<string, unknown> = {};
    const define = (key: string, item: unknown): void => {
      Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    };
    if (isHeadersLike(current)) {
      for (const [key, item] of headersEntries(current)) define(key, field(key, item, depth));
      return copy;
    }
    if (isErrorLike(current)) {
      define(
        'name',
        walk(
          readSafely(() => current.name),
          depth + 1,
        ),
      );
      define(
        'message',
        walk(
          readSafely(() => current.message),
          depth + 1,
        ),
      );
      const stack = readSafely(() => current.stack);
      if (stack !== undefined) define('stack', walk(stack, depth + 1));
    }
    for (const key of Object.keys(current)) {
      const item = readSafely(() => (current as Record<string, unknown>)[key]);
      define(key, field(key, item, depth));
    }
    return copy;
  };
  return walk(value, 0) as T;
}

function readSafely(read: () => unknown): unknown {
  try {
    return read();
  } catch {
    return '[REDACTED: the value could not be read]';
  }
}

function headersEntries(headers: HeadersShape): [string, string][] {
  const entries: [string, string][] = [];
  headers.forEach((item, key) => {
    entries.push([key, String(item)]);
  });
  return entries;
}

const MAX_CAUSE_DEPTH = 32;
const MAX_CAUSE_NODES = 10_000;
const TOO_DEEP = '[REDACTED: nested too deep to inspect]';
const UNINSPECTABLE = '[REDACTED: the cause could not be inspected]';

/** Live I/O handles (sockets, streams, emitters): their state is not message text, and walking them is unsafe. */
function isIoHandle(value: object): boolean {
  const candidate = value as { on?: unknown; emit?: unknown; pipe?: unknown };
  return (
    (typeof candidate.on === 'function' && typeof candidate.emit === 'function') ||
    typeof candidate.pipe === 'function'
  );
}

/** `Headers` (fetch) and look-alikes: entries live behind methods, not own properties. */
interface HeadersShape {
  forEach(callback: (value: string, key: string) => void): void;
  set(key: string, value: string): void;
  get(key: string): string | null;
}

function isHeadersLike(value: object): value is HeadersShape {
  const candidate = value as Partial<Record<'forEach' | 'set' | 'get', unknown>>;
  return (
    !(value instanceof Map) &&
    typeof candidate.forEach === 'function' &&
    typeof candidate.set === 'function' &&
    typeof candidate.get === 'function'
  );
}

function isErrorLike(value: object): value is Error {
  return value instanceof Error || Object.prototype.toString.call(value) === '[object Error]';
}

/** An object can be scrubbed in place unless one of its own data properties can be neither written nor redefined. */
function isMutable(value: object, keys: readonly (string | symbol)[]): boolean {
  for (const key of keys) {
    const descriptor = Reflect.getOwnPropertyDescriptor(value, key);
    if (
      descriptor !== undefined &&
      'value' in descriptor &&
      !descriptor.writable &&
      !descriptor.configurable
    ) {
      const item: unknown = descriptor.value;
      if (typeof item === 'string' || (typeof item === 'object' && item !== null)) return false;
    }
  }
  return true;
}

class CauseRedactor {
  private readonly replacements = new WeakMap<object, unknown>();
  private nodes = 0;

  clean(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return redactSecrets(value);
    if (typeof value !== 'object' || value === null) return value;
    const known = this.replacements.get(value);
    if (known !== undefined) return known;
    this.nodes += 1;
    if (depth > MAX_CAUSE_DEPTH || this.nodes > MAX_CAUSE_NODES) return TOO_DEEP;
    if (isIoHandle(value) || ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return value;
    if (value instanceof Map) return this.cleanMap(value, depth);
    if (value instanceof Set) return this.cleanSet(value, depth);
    if (isHeadersLike(value)) return this.cleanHeaders(value);
    return this.cleanObject(value, depth);
  }

  private cleanObject(value: object, depth: number): unknown {
    const keys = Reflect.ownKeys(value);
    const target = isMutable(value, keys) ? value : this.shell(value);
    this.replacements.set(value, target);
    for (const key of keys) {
      try {
        const descriptor = Reflect.getOwnPropertyDescriptor(value, key);
        // Accessors are never called: a getter may throw or have effects, and `util.inspect` does not call them.
        if (descriptor === undefined || !('value' in descriptor)) continue;
        if (target !== value && Array.isArray(target) && key === 'length') continue;
        const next =
          typeof key === 'string' &&
          typeof descriptor.value === 'string' &&
          descriptor.value !== '' &&
          isCredentialName(key)
            ? REDACTED
            : this.clean(descriptor.value, depth + 1);
        if (target === value && next === descriptor.value) continue;
        if (!Reflect.defineProperty(target, key, { ...descriptor, value: next }) && target === value) {
          Reflect.set(target, key, next);
        }
      } catch {
        // A proxy trap or an exotic object refused one property; the others are still cleaned.
      }
    }
    return target;
  }

  /** An empty object of the same class (an `Error` keeps its error-ness), filled by `cleanObject`. */
  private shell(value: object): object {
    let prototype: object | null = null;
    try {
      prototype = Reflect.getPrototypeOf(value);
    } catch {
      prototype = Object.prototype;
    }
    if (Array.isArray(value)) return [];
    const copy: object = isErrorLike(value) ? new Error() : {};
    for (const key of Reflect.ownKeys(copy)) Reflect.deleteProperty(copy, key);
    Reflect.setPrototypeOf(copy, prototype);
    return copy;
  }

  private cleanMap(value: Map<unknown, unknown>, depth: number): unknown {
    this.replacements.set(value, value);
    const entries = [...value.entries()].map(([key, item]) => [key, this.clean(item, depth + 1)] as const);
    try {
      for (const [key, item] of entries) if (value.get(key) !== item) value.set(key, item);
      return value;
    } catch {
      const copy = new Map(entries);
      this.replacements.set(value, copy);
      return copy;
    }
  }

  private cleanSet(value: Set<unknown>, depth: number): unknown {
    this.replacements.set(value, value);
    const items = [...value].map((item) => [item, this.clean(item, depth + 1)] as const);
    try {
      for (const [before, after] of items) {
        if (before === after) continue;
        value.delete(before);
        value.add(after);
      }
      return value;
    } catch {
      const copy = new Set(items.map(([, after]) => after));
      this.replacements.set(value, copy);
      return copy;
    }
  }

  private cleanHeaders(value: HeadersShape): unknown {
    this.replacements.set(value, value);
    const entries: [string, string][] = [];
    value.forEach((item, key) => {
      entries.push([key, isCredentialName(key) ? REDACTED : redactSecrets(String(item))]);
    });
    try {
      for (const [key, item] of entries) if (value.get(key) !== item) value.set(key, item);
      return value;
    } catch {
      // Response headers are immutable: replace them with a redacted copy of the same kind.
      const copy: HeadersShape | Record<string, string> =
        typeof Headers === 'function' && value instanceof Headers
          ? new Headers(entries)
          : Object.fromEntries(entries);
      this.replacements.set(value, copy);
      return copy;
    }
  }
}

/**
 * Makes a value safe to keep as an error's `cause`: every registered secret and credential-shaped substring is
 * redacted from its message, stack and own data properties (headers, bodies, `errors`, ...), recursively through
 * nested causes. The `OrgError` constructor applies it to every `cause`, so no error of the family carries a
 * secret in its cause chain, and `console.error(error)` is safe to call.
 *
 * The cause is scrubbed **in place** and returned as is whenever it can be: its identity, its class and its
 * internal state survive, so `error.cause === thrown`, `error.cause instanceof APIError` and methods that read
 * private fields keep working. A secret is not something the original should keep either. An object that
 * cannot be changed (frozen, or with a read-only property holding text) is replaced by a redacted copy with the
 * same prototype (an `Error` copy is still an `Error`); immutable `Headers` by a redacted `Headers`.
 *
 * It never throws and never calls getters (which `util.inspect` does not call either). Cycles keep their shape.
 * Live I/O handles (sockets, streams, emitters) and binary buffers are kept without being walked; anything
 * nested deeper than 32 levels, or past 10,000 objects, is replaced by a `[REDACTED: ...]` placeholder.
 *
 * @example
 * const cause = redactCause(new Error('401: Incorrect API key provided: sk-abc123def456'));
 * // cause.message === '401: Incorrect API key provided: [REDACTED]'
 */
export function redactCause(cause: unknown): unknown {
  try {
    return new CauseRedactor().clean(cause, 0);
  } catch {
    return UNINSPECTABLE;
  }
}
