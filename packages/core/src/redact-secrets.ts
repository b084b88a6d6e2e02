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
