import { InvalidToolNameError } from './errors.js';

/**
 * Tool names every provider accepts: OpenAI, Anthropic, Bedrock and Mistral take `^[a-zA-Z0-9_-]{1,64}$`, and Gemini
 * also wants a letter or an underscore first. A registered name outside it is sent under a mapped name
 * (`21st_builder` as `_21st_builder`, `math.factorial` as `math_factorial`) and mapped back when the model calls it.
 */
export const PROVIDER_TOOL_NAME_PATTERN: RegExp = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;

// Names a registry accepts and maps to a provider name: namespaces with dots, colons or slashes (`math.factorial`,
// `github:search`, `fs/read`). Anything else (spaces, quotes, non-ASCII) is refused rather than mangled.
const MAPPABLE_TOOL_NAME_PATTERN = /^[A-Za-z0-9_.:/-]+$/;
const MAXIMUM_NAME_LENGTH = 256;

/**
 * Throws `InvalidToolNameError` unless `name` is a provider-valid name (`PROVIDER_TOOL_NAME_PATTERN`) or a name that
 * maps to one: a namespaced name (dots, colons, slashes) or one that starts with a digit or a dash, up to 256
 * characters.
 *
 * @example
 * assertValidToolName('math.factorial'); // fine, sent to providers as `math_factorial`
 * assertValidToolName('get weather');    // throws InvalidToolNameError
 */
export function assertValidToolName(name: unknown): asserts name is string {
  if (typeof name !== 'string') {
    throw new InvalidToolNameError({
      toolName: String(name),
      reason: `a tool name must be a string, got ${typeof name}`,
    });
  }
  if (name.length === 0)
    throw new InvalidToolNameError({ toolName: name, reason: 'a tool name must not be empty' });
  if (PROVIDER_TOOL_NAME_PATTERN.test(name)) return;
  if (name.length > MAXIMUM_NAME_LENGTH) {
    throw new InvalidToolNameError({
      toolName: name,
      reason: `a tool name must be at most ${MAXIMUM_NAME_LENGTH} characters`,
    });
  }
  if (!MAPPABLE_TOOL_NAME_PATTERN.test(name)) {
    throw new InvalidToolNameError({
      toolName: name,
      reason:
        'use letters, digits, "_" and "-" (providers accept ^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$), optionally "." ":" "/" as namespace separators',
    });
  }
  if (!/[A-Za-z0-9]/.test(name)) {
    throw new InvalidToolNameError({
      toolName: name,
      reason: 'a tool name must contain a letter or a digit',
    });
  }
}

/** A short, stable hash (FNV-1a, 32 bits) in base 36, for shortening long names. */
function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(36).padStart(7, '0');
}

/** The provider-valid form of a name, before collisions are resolved: `math.factorial` → `math_factorial`. */
function baseProviderName(name: string): string {
  if (PROVIDER_TOOL_NAME_PATTERN.test(name)) return name;
  const characters = name.replace(/[^A-Za-z0-9_-]/g, '_');
  // Gemini refuses a name that starts with a digit or a dash (an MCP tool named `21st_builder`).
  const replaced = /^[A-Za-z_]/.test(characters) ? characters : `_${characters}`;
  return replaced.length <= 64 ? replaced : `${replaced.slice(0, 56)}_${shortHash(name)}`;
}

/**
 * A reversible, collision-safe mapping between registered tool names and names providers accept. Valid names map to
 * themselves and always keep them; the others (`math.factorial`) map to a valid form (`math_factorial`), with a
 * numbered suffix when that form is taken. The mapping depends only on the set of names and their order.
 *
 * @example
 * const mapping = new ToolNameMapping(['math.factorial', 'math_factorial']);
 * mapping.toProvider('math.factorial');    // 'math_factorial_2'
 * mapping.fromProvider('math_factorial_2'); // 'math.factorial'
 */
export class ToolNameMapping {
  readonly #toProvider = new Map<string, string>();
  readonly #fromProvider = new Map<string, string>();

  constructor(names: Iterable<string>) {
    const all = [...names];
    for (const name of all) {
      if (PROVIDER_TOOL_NAME_PATTERN.test(name)) {
        this.#toProvider.set(name, name);
        this.#fromProvider.set(name, name);
      }
    }
    for (const name of all) {
      if (this.#toProvider.has(name)) continue;
      const base = baseProviderName(name);
      let candidate = base;
      for (let counter = 2; this.#fromProvider.has(candidate); counter++) {
        const suffix = `_${counter}`;
        candidate = `${base.slice(0, 64 - suffix.length)}${suffix}`;
      }
      this.#toProvider.set(name, candidate);
      this.#fromProvider.set(candidate, name);
    }
  }

  /** The name to send to a provider for a registered tool name (the name itself when it is valid). */
  toProvider(name: string): string | undefined {
    return this.#toProvider.get(name);
  }

  /** The registered tool name for a name a provider sent back; `undefined` when none maps to it. */
  fromProvider(providerName: string): string | undefined {
    return this.#fromProvider.get(providerName);
  }
}
