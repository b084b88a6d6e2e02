import type { Rejection } from './fake-replies.js';

/** What came right after a reasoning item in an answer (other reasoning items of the turn aside). */
type Follower = { readonly kind: 'message' } | { readonly kind: 'function_call'; readonly callId: string };

/** One output item of an answer, as far as reasoning links go. */
export type IssuedItem =
  | { readonly type: 'reasoning'; readonly id: string; readonly encryptedContent: string }
  | { readonly type: 'message'; readonly id: string }
  | { readonly type: 'function_call'; readonly id: string; readonly callId: string };

type InputItem = Record<string, unknown>;

const isReasoning = (item: InputItem): boolean => item.type === 'reasoning';

/**
 * The fake server's memory of the reasoning it produced, and the checks OpenAI makes when reasoning comes back,
 * with OpenAI's own statuses and messages (as reported from the real API in openai/codex#8145, vercel/ai#7099,
 * vercel/ai#7543, cline/cline#12242):
 *
 * - encrypted content that is not what the server issued for that item: 400 `invalid_encrypted_content`, "The
 *   encrypted content gAAA...xx== could not be verified." (content for an item this server never produced is taken as
 *   issued elsewhere by the same OpenAI, as the conformance suite's histories are);
 * - a reasoning item without encrypted content in a `store: false` request: 404, "Item with id 'rs_…' not found.
 *   Items are not persisted when `store` is set to false. …"; with storage on, an id the server never stored: 404;
 * - a stored reasoning item not followed by the item that followed it in the answer: 400, "Item 'rs_…' of type
 *   'reasoning' was provided without its required following item.";
 * - a function call that followed a stored reasoning item, sent back without it: 400, "Item 'fc_…' of type
 *   'function_call' was provided without its required 'reasoning' item: 'rs_…'."
 *
 * One difference, on the strict side: OpenAI links a function call to its reasoning through the call's item id
 * (`fc_…`), which this adapter does not keep (a `ToolCall` carries the `call_id`); the fake server links them by
 * `call_id`, so a reasoning item the adapter fails to send back is always caught, where OpenAI would sometimes only
 * lose it silently. Links are kept only for answers given with storage on (`store` not `false`), as OpenAI does.
 */
export class FakeReasoningMemory {
  /** Encrypted content by reasoning item id, and the id each issued content belongs to. */
  private readonly encryptedById = new Map<string, string>();
  private readonly idByEncrypted = new Map<string, string>();
  private readonly stored = new Set<string>();
  private readonly followers = new Map<string, Follower>();
  private readonly callReasoning = new Map<
    string,
    { readonly itemId: string; readonly reasoningId: string }
  >();

  /** Records the output items of one answer. */
  remember(items: readonly IssuedItem[], stored: boolean): void {
    let lastReasoning: string | undefined;
    items.forEach((item, index) => {
      if (item.type === 'reasoning') {
        this.encryptedById.set(item.id, item.encryptedContent);
        this.idByEncrypted.set(item.encryptedContent, item.id);
        if (!stored) return;
        this.stored.add(item.id);
        const next = items.slice(index + 1).find((other) => other.type !== 'reasoning');
        if (next !== undefined) {
          this.followers.set(
            item.id,
            next.type === 'function_call'
              ? { kind: 'function_call', callId: next.callId }
              : { kind: 'message' },
          );
        }
        lastReasoning = item.id;
      } else if (item.type === 'function_call' && stored && lastReasoning !== undefined) {
        this.callReasoning.set(item.callId, { itemId: item.id, reasoningId: lastReasoning });
      }
    });
  }

  /** The first reason OpenAI would refuse this request's input, or `undefined`. */
  rejection(body: Record<string, unknown>): Rejection | undefined {
    const input = Array.isArray(body.input) ? (body.input as InputItem[]) : [];
    const storeDisabled = body.store === false;
    for (const [index, item] of input.entries()) {
      const problem = isReasoning(item)
        ? this.reasoningProblem(item, index, input, storeDisabled)
        : item.type === 'function_call'
          ? this.functionCallProblem(item, index, input)
          : undefined;
      if (problem !== undefined) return problem;
    }
    return undefined;
  }

  private reasoningProblem(
    item: InputItem,
    index: number,
    input: readonly InputItem[],
    storeDisabled: boolean,
  ): Rejection | undefined {
    const id = typeof item.id === 'string' ? item.id : undefined;
    const content = item.encrypted_content;
    if (typeof content === 'string') {
      const issuedFor = this.idByEncrypted.get(content);
      const issued = id === undefined ? undefined : this.encryptedById.get(id);
      if (
        (issued !== undefined && issued !== content) ||
        (issuedFor !== undefined && id !== undefined && issuedFor !== id)
      ) {
        return {
          status: 400,
          message: `The encrypted content ${content.slice(0, 4)}...${content.slice(-4)} could not be verified.`,
          code: 'invalid_encrypted_content',
          param: null,
        };
      }
    } else if (storeDisabled || id === undefined || !this.stored.has(id)) {
      return {
        status: 404,
        message: storeDisabled
          ? `Item with id '${id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`
          : `Item with id '${id}' not found.`,
        code: null,
        param: 'input',
      };
    }
    const follower = id === undefined ? undefined : this.followers.get(id);
    if (follower === undefined) return undefined;
    const next = input.slice(index + 1).find((other) => !isReasoning(other));
    const followed =
      follower.kind === 'message'
        ? next?.role === 'assistant'
        : next?.type === 'function_call' && next.call_id === follower.callId;
    if (followed) return undefined;
    return {
      status: 400,
      message: `Item '${id}' of type 'reasoning' was provided without its required following item.`,
      code: null,
      param: 'input',
    };
  }

  private functionCallProblem(
    item: InputItem,
    index: number,
    input: readonly InputItem[],
  ): Rejection | undefined {
    const link = typeof item.call_id === 'string' ? this.callReasoning.get(item.call_id) : undefined;
    if (link === undefined) return undefined;
    const present = input
      .slice(0, index)
      .some((other) => isReasoning(other) && other.id === link.reasoningId);
    if (present) return undefined;
    return {
      status: 400,
      message: `Item '${link.itemId}' of type 'function_call' was provided without its required 'reasoning' item: '${link.reasoningId}'.`,
      code: null,
      param: 'input',
    };
  }
}
