import { parseToolArguments } from '@org/tools';
import { REFERENCE_PREFIX } from './reference.js';

/** What {@link readJsonObjectText} made of a text: an object (with the repairs applied), or why not. */
export type ReadJsonObjectText =
  | { readonly ok: true; readonly value: Record<string, unknown>; readonly repairs: readonly string[] }
  | { readonly ok: false; readonly message: string };

/**
 * Reads model-written JSON text holding an object with the one strict reader of `@org/tools` (`parseToolArguments`):
 * duplicate keys with different values and integers a double cannot hold are refused, `__proto__` stays a plain key,
 * and the same safe repairs as a direct tool call are applied (a Markdown code fence, prose around the object,
 * trailing commas, an object sent as a JSON string, and, when `complete`, one missing final `}`). The caller has
 * checked the size and depth limits already; they are passed on so the reader's own check agrees.
 */
export function readJsonObjectText(
  text: string,
  options: { readonly maxBytes: number; readonly maxDepth: number; readonly complete: boolean },
): ReadJsonObjectText {
  const parsed = parseToolArguments(text, {
    limits: { maxBytes: options.maxBytes, maxDepth: options.maxDepth },
    // A step's argument string sits inside a plan that was read whole, so the model finished writing it: the same
    // policy as a direct call after a normal stop. Text of unknown provenance gets no closing brace added.
    ...(options.complete ? { finishReason: 'stop' } : {}),
  });
  if (parsed.ok) return { ok: true, value: parsed.value, repairs: parsed.repairs };
  const hint = !hasUnquotedReference(text)
    ? ''
    : text.includes(REFERENCE_PREFIX)
      ? ` A $ref is a JSON string: write it in double quotes, e.g. {"url": "${REFERENCE_PREFIX}s1.items.0.url"}.`
      : ' A reference is a JSON string: write it in double quotes, e.g. {"url": "$s1.items.0.url"}.';
  return { ok: false, message: `${parsed.error.message}${hint}` };
}

/**
 * Whether a reference occurs outside JSON strings (`{url: $ref:s1.url}`, `{"n": $a1.score}`): a `$` followed by a
 * letter, digit, `_` or `-`. One linear scan, no allocation.
 */
export function hasUnquotedReference(text: string): boolean {
  let position = text.indexOf('$');
  if (position === -1) return false;
  let inString = false;
  let index = 0;
  while (position !== -1) {
    for (; index < position; index++) {
      const code = text.charCodeAt(index);
      if (inString) {
        if (code === 92 /* \ */) index++;
        else if (code === 34 /* " */) inString = false;
      } else if (code === 34) inString = true;
    }
    // An escape right before the `$` skipped past it; the scan position is then beyond `position`.
    if (!inString && index === position && isIdCharacter(text.charCodeAt(position + 1))) return true;
    position = text.indexOf('$', Math.max(index, position + 1));
  }
  return false;
}

function isIdCharacter(code: number): boolean {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 95 ||
    code === 45
  );
}
