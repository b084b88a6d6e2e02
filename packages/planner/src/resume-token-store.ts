import { InvalidAgentOptionsError } from './errors.js';

/**
 * Where spent resume tokens are kept, so that a paused state is resumed once (a duplicate webhook, a retried request
 * or a second process resuming the same state is refused with `ResumeAlreadyClaimedError` before anything runs).
 *
 * `claim` must be atomic: of any number of concurrent claims of one token, in any number of processes, exactly one
 * resolves `true`; every other, then and later, resolves `false`. Anything but `true` (or a rejection) refuses the
 * resume. In a database, that is one conditional write, never a read then a write:
 * - SQL: `INSERT INTO agent_resume_claims (token, run_id) VALUES ($1, $2) ON CONFLICT (token) DO NOTHING` with a
 *   primary key or unique index on `token`: claimed when one row was inserted;
 * - Redis: `SET agent-resume:<token> <runId> NX EX 2592000`: claimed when the answer is `OK`;
 * - DynamoDB: a `PutItem` with `ConditionExpression: 'attribute_not_exists(token)'`: claimed unless the condition fails.
 *
 * Keep a claim at least as long as the state it spends can be resumed.
 *
 * @example
 * const resumeTokenStore: ResumeTokenStore = {
 *   async claim(token, { runId }) {
 *     const inserted = await sql`INSERT INTO agent_resume_claims (token, run_id) VALUES (${token}, ${runId})
 *                                ON CONFLICT (token) DO NOTHING`;
 *     return inserted.count === 1;
 *   },
 * };
 * await runAgent({ model, tools, resumeTokenStore, resume: { state, decisions } });
 */
export interface ResumeTokenStore {
  /** Marks `token` spent: `true` for its first claim only, atomically. */
  claim(token: string, context: { readonly runId: string }): boolean | Promise<boolean>;
}

/** Options of {@link createInMemoryResumeTokenStore}. */
export interface InMemoryResumeTokenStoreOptions {
  /**
   * Tokens remembered; past it, the oldest claim is forgotten (and that state could be resumed again in this
   * process). Default 100 000 (a few MB). A whole number from 1.
   */
  readonly maxTokens?: number;
}

const DEFAULT_MAX_TOKENS = 100_000;

/**
 * A resume token store in this process's memory: atomic within one process (a claim is one synchronous check and
 * insert), and nothing beyond it. The default of `runAgent`, shared by every run of this copy of the package. For
 * several processes, or a guarantee that survives a restart, give `runAgent` a store on your database (see
 * {@link ResumeTokenStore}).
 *
 * @example
 * const resumeTokenStore = createInMemoryResumeTokenStore({ maxTokens: 10_000 });
 */
export function createInMemoryResumeTokenStore(
  options: InMemoryResumeTokenStoreOptions = {},
): ResumeTokenStore {
  const maxTokens = options.maxTokens ?? DEFAULT_MAX_TOKENS;
  if (!Number.isSafeInteger(maxTokens) || maxTokens < 1) {
    throw new InvalidAgentOptionsError({
      option: 'maxTokens',
      message: `must be a whole number from 1, got ${String(maxTokens)}.`,
    });
  }
  // A Set keeps insertion order: the first value is the oldest claim.
  const claimed = new Set<string>();
  return {
    claim(token: string): boolean {
      if (claimed.has(token)) return false;
      claimed.add(token);
      if (claimed.size > maxTokens) claimed.delete(claimed.values().next().value as string);
      return true;
    },
  };
}

/** The store `runAgent` uses when none is given: this process's memory. */
export const defaultResumeTokenStore: ResumeTokenStore = createInMemoryResumeTokenStore();

/** A new resume token: 122 random bits (a UUID from the platform's `crypto`: Node 20 and browsers). */
export function newResumeToken(): string {
  return globalThis.crypto.randomUUID();
}
