// Gemini signs parts, not turns: a `thoughtSignature` sits on the exact part it was returned on (a function call, a
// text part, a thought), and must come back on that part, in the same order, byte for byte (Gemini 3 refuses a
// function-calling turn without them). Core's assistant message keeps text and calls apart, so a signature on a text
// or function-call part travels as a `ReasoningPart` of this provider with an empty text, whose `id` names the part
// it belongs to. The id is this adapter's own; another provider never sees it (foreign reasoning is dropped).

const PREFIX = 'gemini-part:';

/**
 * The part a signature belongs to: a function call by its id, or the text part that covered characters `start` to
 * `end` of the turn's text (an empty part, `start === end`, is how a stream often ends: a signature and no text).
 */
export type PartAnchor =
  | { readonly kind: 'function-call'; readonly toolCallId: string }
  | { readonly kind: 'text'; readonly start: number; readonly end: number };

/** The `ReasoningPart.id` that names `anchor`. */
export function anchorId(anchor: PartAnchor): string {
  return anchor.kind === 'function-call'
    ? `${PREFIX}function-call:${anchor.toolCallId}`
    : `${PREFIX}text:${anchor.start}-${anchor.end}`;
}

/** The anchor a `ReasoningPart.id` names, or `undefined` for a thought (any other id, or none). */
export function readAnchor(id: string | undefined): PartAnchor | undefined {
  if (id === undefined || !id.startsWith(PREFIX)) return undefined;
  const rest = id.slice(PREFIX.length);
  if (rest.startsWith('function-call:')) {
    return { kind: 'function-call', toolCallId: rest.slice('function-call:'.length) };
  }
  const range = /^text:(\d{1,15})-(\d{1,15})$/.exec(rest);
  if (range === null) return undefined;
  const start = Number(range[1]);
  const end = Number(range[2]);
  return start <= end ? { kind: 'text', start, end } : undefined;
}
