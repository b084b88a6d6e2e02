import { LimitExceededError, utf8ByteLength } from '@org/core';

/**
 * A call's arguments while the model writes them, for a tool that starts before they are complete
 * (`defineTool({ executeStreaming })`). Iterating it yields the raw argument text in fragments as they arrive (each
 * iteration from the first fragment; the concatenation is the argument text so far); iteration ends once the call is
 * complete, and throws when it will not run (the answer was discarded, the call was cut off, its arguments were
 * invalid or too large).
 *
 * `arguments` resolves with exactly what `execute` would receive (validated, coerced, hidden parameters filled in)
 * once the call is complete and will run; it rejects with the reason when it will not. Until it resolves, the tool
 * may only do what a discarded answer would not regret: read, fetch, prepare.
 *
 * @example
 * executeStreaming: async (input, context) => {
 *   let text = '';
 *   for await (const fragment of input) text += fragment; // e.g. warm a cache for the query being written
 *   const { query } = await input.arguments; // from here on, the call is certain to run
 *   return search(query, { signal: context.signal });
 * },
 */
export interface ToolInputStream<Args = Record<string, unknown>> extends AsyncIterable<string> {
  readonly arguments: Promise<Args>;
}

type InputState =
  | { readonly kind: 'open' }
  | { readonly kind: 'complete' }
  | { readonly kind: 'failed'; readonly reason: unknown };

/**
 * The writing side of a `ToolInputStream`: fragments are kept (bounded by `maxBytes`) so that every iteration sees
 * the whole text, and each waiting iterator is woken once per change.
 */
export class ToolInputController<Args> {
  readonly stream: ToolInputStream<Args>;
  readonly #maxBytes: number;
  readonly #fragments: string[] = [];
  #bytes = 0;
  #state: InputState = { kind: 'open' };
  #waiters: (() => void)[] = [];
  #resolveArguments!: (args: Args) => void;
  #rejectArguments!: (reason: unknown) => void;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
    const argumentsPromise = new Promise<Args>((resolve, reject) => {
      this.#resolveArguments = resolve;
      this.#rejectArguments = reject;
    });
    // A tool that never reads `arguments` must not turn its rejection into an unhandled one.
    argumentsPromise.catch(() => {});
    const fragments = this.#fragments;
    const next = (cursor: number): Promise<IteratorResult<string>> => this.#next(cursor);
    this.stream = Object.freeze({
      arguments: argumentsPromise,
      [Symbol.asyncIterator](): AsyncIterator<string> {
        let cursor = 0;
        let closed = false;
        return {
          next: async (): Promise<IteratorResult<string>> => {
            if (closed) return { done: true, value: undefined };
            const result = await next(cursor);
            if (result.done !== true) cursor++;
            return result;
          },
          return: async (): Promise<IteratorResult<string>> => {
            closed = true;
            return { done: true, value: undefined };
          },
        };
      },
      // For debugging: the text so far, never the live array.
      toString: (): string => fragments.join(''),
    });
  }

  /** Whether fragments are still accepted (not complete, failed or over the limit). */
  get open(): boolean {
    return this.#state.kind === 'open';
  }

  /**
   * Adds a fragment. Returns a `LimitExceededError` (and fails the stream with it) when the text grows past
   * `maxBytes`; `undefined` otherwise. Ignored once the stream is closed.
   */
  push(fragment: string): LimitExceededError | undefined {
    if (this.#state.kind !== 'open' || fragment === '') return undefined;
    this.#bytes += utf8ByteLength(fragment);
    if (this.#bytes > this.#maxBytes) {
      const error = new LimitExceededError({
        limit: 'argumentsBytes',
        maximum: this.#maxBytes,
        actual: this.#bytes,
        message: `The arguments grew past ${this.#maxBytes} bytes while they streamed (at least ${this.#bytes}).`,
      });
      this.fail(error);
      return error;
    }
    this.#fragments.push(fragment);
    this.#wake();
    return undefined;
  }

  /** The call is complete and will run: iteration ends after the last fragment, `arguments` resolves. */
  complete(args: Args): void {
    if (this.#state.kind !== 'open') return;
    this.#state = { kind: 'complete' };
    this.#resolveArguments(args);
    this.#wake();
  }

  /** The call will not run: iteration throws `reason` (after the fragments already read), `arguments` rejects. */
  fail(reason: unknown): void {
    if (this.#state.kind !== 'open') return;
    this.#state = { kind: 'failed', reason };
    this.#rejectArguments(reason);
    this.#wake();
  }

  async #next(cursor: number): Promise<IteratorResult<string>> {
    for (;;) {
      if (cursor < this.#fragments.length) return { done: false, value: this.#fragments[cursor]! };
      const state = this.#state;
      if (state.kind === 'complete') return { done: true, value: undefined };
      if (state.kind === 'failed') throw state.reason;
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  #wake(): void {
    const waiters = this.#waiters;
    if (waiters.length === 0) return;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}
