/**
 * Typed results a model can reason over: a tool that did not find something, or found too many, says so as data
 * with a `kind` field first, instead of throwing or returning an empty string.
 */

/** Nothing matched the query. */
export interface NotFoundResult {
  readonly kind: 'not_found';
  /** What was looked for, e.g. `customer`. */
  readonly what: string;
  /** The query as the tool understood it. */
  readonly query?: unknown;
  /** Close alternatives the model may try. */
  readonly suggestions?: readonly string[];
  readonly message: string;
}

/** Several things matched and the tool cannot choose; the model should ask or narrow the query. */
export interface AmbiguousResult<Candidate = unknown> {
  readonly kind: 'ambiguous';
  readonly what: string;
  readonly query?: unknown;
  readonly candidates: readonly Candidate[];
  readonly message: string;
}

/**
 * A `not_found` result.
 *
 * @example
 * return notFound({ what: 'customer', query: { email }, suggestions: ['ann@example.com'] });
 */
export function notFound(options: {
  what: string;
  query?: unknown;
  suggestions?: readonly string[];
  message?: string;
}): NotFoundResult {
  return {
    kind: 'not_found',
    what: options.what,
    ...(options.query === undefined ? {} : { query: options.query }),
    ...(options.suggestions === undefined ? {} : { suggestions: [...options.suggestions] }),
    message:
      options.message ??
      `No ${options.what} matched${options.query === undefined ? '' : ` ${JSON.stringify(options.query)}`}.` +
        `${options.suggestions !== undefined && options.suggestions.length > 0 ? ` Close matches: ${options.suggestions.join(', ')}.` : ''}`,
  };
}

/**
 * An `ambiguous` result listing the candidates.
 *
 * @example
 * return ambiguous({ what: 'city', query: 'Springfield', candidates: ['Springfield, IL', 'Springfield, MA'] });
 */
export function ambiguous<Candidate>(options: {
  what: string;
  query?: unknown;
  candidates: readonly Candidate[];
  message?: string;
}): AmbiguousResult<Candidate> {
  return {
    kind: 'ambiguous',
    what: options.what,
    ...(options.query === undefined ? {} : { query: options.query }),
    candidates: [...options.candidates],
    message:
      options.message ??
      `${options.candidates.length} ${options.what} candidates matched${options.query === undefined ? '' : ` ${JSON.stringify(options.query)}`}; ` +
        'ask the user which one, or narrow the query.',
  };
}
