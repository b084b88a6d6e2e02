const REGISTRY_KEY = Symbol.for('org.secrets');
const REDACTED = '[REDACTED]';

/** Secrets are shared across copies of this package (two versions in one app), hence the global symbol. */
function secretRegistry(): Set<string> {
  const holder = globalThis as { [REGISTRY_KEY]?: Set<string> };
  holder[REGISTRY_KEY] ??= new Set<string>();
  return holder[REGISTRY_KEY];
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

/**
 * Registers a value (an API key, a token) that must never appear in an error, an event or a log line.
 * Providers call it with the key they were given, so even a key of an unknown shape is redacted.
 * Values shorter than 8 characters are ignored: redacting them would mangle ordinary text.
 *
 * @example
 * registerSecret(process.env.MY_PROVIDER_KEY ?? '');
 */
export function registerSecret(secret: string | undefined | null): void {
  if (typeof secret === 'string' && secret.length >= 8) secretRegistry().add(secret);
}

/**
 * Replaces every registered secret and every credential-shaped substring with `[REDACTED]`.
 * The error family runs it over every message, so callers rarely need it directly.
 *
 * @example
 * redactSecrets('401: Incorrect API key provided: sk-abc123def456'); // '401: Incorrect API key provided: [REDACTED]'
 */
export function redactSecrets(text: string): string {
  let result = text;
  for (const secret of secretRegistry()) {
    if (result.includes(secret)) result = result.split(secret).join(REDACTED);
  }
  for (const [pattern, replacement] of SECRET_PATTERNS) result = result.replace(pattern, replacement);
  return result;
}

/**
 * Deeply redacts every string inside a JSON-like value (an error body, event details), returning a copy.
 * Cycles are cut with `"[Circular]"`.
 */
export function redactSecretsDeep<T>(value: T): T {
  const seen = new WeakSet<object>();
  const walk = (current: unknown): unknown => {
    if (typeof current === 'string') return redactSecrets(current);
    if (current === null || typeof current !== 'object') return current;
    if (seen.has(current)) return '[Circular]';
    seen.add(current);
    if (Array.isArray(current)) return current.map(walk);
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(current)) {
      Object.defineProperty(copy, key, {
        value: walk(item),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  };
  return walk(value) as T;
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
        const next = this.clean(descriptor.value, depth + 1);
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
      entries.push([key, redactSecrets(String(item))]);
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
