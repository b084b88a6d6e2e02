/** Why a server value could not be copied. */
export interface CopyProblem {
  readonly reason: string;
}

/**
 * A bounded, prototype-safe copy of JSON a server sent: plain objects and arrays only, every key an own property
 * (a key named `__proto__` stays an ordinary key, it never becomes a prototype), at most `maxDepth` levels and
 * about `maxSize` UTF-16 units. Anything else (a function, a class instance, a non-finite number) is refused.
 * Iterative on purpose: a server-chosen depth must not reach the call stack.
 */
export function copyServerJson(
  value: unknown,
  limits: { readonly maxDepth: number; readonly maxSize: number },
):
  | { readonly ok: true; readonly value: unknown; readonly size: number }
  | { readonly ok: false; readonly problem: CopyProblem } {
  let size = 0;
  const fail = (reason: string) => ({ ok: false as const, problem: { reason } });
  const scalar = (item: unknown): { ok: true; value: unknown } | { ok: false; reason: string } => {
    switch (typeof item) {
      case 'string':
        size += item.length + 2;
        return { ok: true, value: item };
      case 'number':
        if (!Number.isFinite(item)) return { ok: false, reason: 'a number that is not finite' };
        size += 8;
        return { ok: true, value: item };
      case 'boolean':
        size += 5;
        return { ok: true, value: item };
      default:
        if (item === null) {
          size += 4;
          return { ok: true, value: null };
        }
        return { ok: false, reason: `a value of type ${typeof item}` };
    }
  };
  const isContainer = (item: unknown): item is object =>
    typeof item === 'object' && item !== null && (Array.isArray(item) || isPlainObject(item));
  if (!isContainer(value)) {
    const result = scalar(value);
    if (!result.ok) return fail(result.reason);
    return size > limits.maxSize
      ? fail(`more than ${limits.maxSize} characters`)
      : { ok: true, value: result.value, size };
  }
  const root: unknown = Array.isArray(value) ? [] : {};
  const stack: { source: object; target: object; depth: number }[] = [
    { source: value, target: root as object, depth: 1 },
  ];
  while (stack.length > 0) {
    const { source, target, depth } = stack.pop() as { source: object; target: object; depth: number };
    if (depth > limits.maxDepth) return fail(`nested more than ${limits.maxDepth} levels deep`);
    const keys = Array.isArray(source) ? null : Object.keys(source);
    const length = keys === null ? (source as unknown[]).length : keys.length;
    size += 2 + length;
    for (let index = 0; index < length; index++) {
      const key = keys === null ? index : (keys[index] as string);
      if (keys !== null) size += (key as string).length + 3;
      const item = (source as Record<string | number, unknown>)[key];
      let copied: unknown;
      if (isContainer(item)) {
        copied = Array.isArray(item) ? [] : {};
        stack.push({ source: item, target: copied as object, depth: depth + 1 });
      } else {
        const result = scalar(item);
        if (!result.ok)
          return fail(
            `${result.reason} at ${keys === null ? `[${key}]` : JSON.stringify(String(key).slice(0, 60))}`,
          );
        copied = result.value;
      }
      Object.defineProperty(target, key, {
        value: copied,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      if (size > limits.maxSize) return fail(`more than ${limits.maxSize} characters`);
    }
  }
  return { ok: true, value: root, size };
}

function isPlainObject(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
