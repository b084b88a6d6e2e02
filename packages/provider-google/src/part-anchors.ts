// Gemini signs parts, not turns: a `thoughtSignature` sits on the exact part it was returned on (a function call, a
// text part, a thought), and must come back on that part, in the same order, byte for byte (Gemini 3 refuses a
// function-calling turn without them). Core's assistant message keeps text and calls apart, so a signature on a text
// or function-call part travels as a `ReasoningPart` of this provider with an empty text, whose `id` names the part
// it belongs to. The id is this adapter's own; another provider never sees it (foreign reasoning is dropped).

const PREFIX = 'gemini-part:';

/** The part a signature belongs to: a function call by its id, or the text of the turn up to `end` characters. */
export type PartAnchor =
  | { readonly kind: 'function-call'; readonly toolCallId: string }
  | { readonly kind: 'text'; readonly end: number };

/** The `ReasoningPart.id` that names `anchor`. */
export function anchorId(anchor: PartAnchor): string {
  return anchor.kind === 'function-call'
    ? `${PREFIX}function-call:${anchor.toolCallId}`
    : `${PREFIX}text:${anchor.end}`;
}

/** The anchor a `ReasoningPart.id` names, or `undefined` for a thought (any other id, or none). */
export function readAnchor(id: string | undefined): PartAnchor | undefined {
  if (id === undefined || !id.startsWith(PREFIX)) return undefined;
  const rest = id.slice(PREFIX.length);
  if (rest.startsWith('function-call:')) {
    return { kind: 'function-call', toolCallId: rest.slice('function-call:'.length) };
  }
  const end = /^text:(\d{1,15})$/.exec(rest)?.[1];
  return end === undefined ? undefined : { kind: 'text', end: Number(end) };
}
