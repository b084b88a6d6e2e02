/** The kinds of change an adapter may make to honour a request. */
export type AdjustmentKind =
  /** A tool-choice mode achieved another way than natively (an instruction, a post-check). */
  | 'tool-choice-emulated'
  /** Tools left out of the wire request. */
  | 'tools-dropped'
  /** History rewritten (tool blocks as text, roles merged, ...). */
  | 'history-rewritten'
  /** Tool calls that came back although forbidden, turned into error results and never executed. */
  | 'tool-calls-rejected'
  /** Tool names mapped to a form the provider accepts (and mapped back on the way in). */
  | 'tool-names-mapped'
  /** A tool schema changed to fit the provider's dialect. */
  | 'schema-adapted'
  /** A request setting the provider or model cannot honour, left out. */
  | 'setting-ignored';

/**
 * One change an adapter made to honour a request. Adapters return every such change on the response (and the
 * stream's `finish` part); nothing is changed silently.
 */
export interface Adjustment {
  readonly kind: AdjustmentKind;
  /** A sentence a developer understands: what was asked, what was done instead, and why. */
  readonly message: string;
  /** Machine-readable specifics (the mode, the dropped tool names, ...). */
  readonly details?: Readonly<Record<string, unknown>>;
}
