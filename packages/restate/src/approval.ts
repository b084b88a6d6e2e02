import type { ApprovalDecision } from '@org/planner';
import { type DurablePromise, TerminalError, type WorkflowSharedContext } from '@restatedev/restate-sdk';
import type { ApprovalInput, PendingApproval, RestateAgentStatus } from './restate-agent-types.js';

/** The workflow state key of the approval the run waits for. */
export const PENDING_APPROVAL_KEY = 'pendingApproval';

/** The durable promise of one round of approval: resolved once, by `approve`. */
export function approvalPromiseName(round: number): string {
  return `approval-${round}`;
}

/** Longest reason kept with a decision (it is shown to the model). */
const MAX_REASON_LENGTH = 2_000;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function badRequest(problem: string): never {
  throw new TerminalError(`Invalid approval: ${problem}. Nothing was decided.`, { errorCode: 400 });
}

function alreadyDecided(runId: string, round: number): never {
  throw new TerminalError(
    `The approval of round ${round} of run '${runId}' was already decided: a run is approved once per pause. This approval was refused.`,
    { errorCode: 409 },
  );
}

function checkDecision(value: unknown, actionId: string): ApprovalDecision {
  if (typeof value === 'boolean') return value;
  if (!isRecord(value))
    badRequest(`the decision for '${actionId}' is not true, false or { approved, reason }`);
  for (const key of Object.keys(value)) {
    if (key !== 'approved' && key !== 'reason')
      badRequest(`the decision for '${actionId}' has an unknown field`);
  }
  const approved = Object.hasOwn(value, 'approved') ? value.approved : undefined;
  const reason = Object.hasOwn(value, 'reason') ? value.reason : undefined;
  if (typeof approved !== 'boolean') badRequest(`the decision for '${actionId}' has no boolean 'approved'`);
  if (reason !== undefined && (typeof reason !== 'string' || reason.length > MAX_REASON_LENGTH)) {
    badRequest(`the reason for '${actionId}' is not a string of at most ${MAX_REASON_LENGTH} characters`);
  }
  return reason === undefined ? { approved } : { approved, reason };
}

/**
 * An approval's body checked against what the run waits for: a decision for every pending action and for nothing
 * else, and, when it names one, the waiting round. The decisions come back as plain data, with their own keys only.
 */
export function checkApproval(input: unknown, pending: PendingApproval, runId: string): ApprovalInput {
  if (!isRecord(input)) badRequest('the body is not a JSON object { decisions, round? }');
  for (const key of Object.keys(input)) {
    if (key !== 'decisions' && key !== 'round')
      badRequest(`unknown field ${JSON.stringify(key.slice(0, 80))}`);
  }
  const round = Object.hasOwn(input, 'round') ? input.round : undefined;
  if (round !== undefined) {
    if (typeof round !== 'number' || !Number.isSafeInteger(round) || round < 1)
      badRequest('round is not a whole number from 1');
    if (round < pending.round) alreadyDecided(runId, round);
    if (round > pending.round) {
      throw new TerminalError(
        `Run '${runId}' waits for round ${pending.round}, not round ${round}; nothing was decided.`,
        { errorCode: 409 },
      );
    }
  }
  const decisions = Object.hasOwn(input, 'decisions') ? input.decisions : undefined;
  if (!isRecord(decisions)) badRequest('decisions is not an object of action id → decision');
  const pendingIds = new Set(pending.actions.map((action) => action.id));
  const checked: Record<string, ApprovalDecision> = {};
  for (const actionId of Object.keys(decisions)) {
    if (!pendingIds.has(actionId)) {
      badRequest(
        `'${actionId.slice(0, 120)}' is not waiting for approval (waiting: ${[...pendingIds].join(', ')})`,
      );
    }
    Object.defineProperty(checked, actionId, {
      value: checkDecision(decisions[actionId], actionId),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  const missing = [...pendingIds].filter((id) => !Object.hasOwn(checked, id));
  if (missing.length > 0) badRequest(`no decision for ${missing.map((id) => `'${id}'`).join(', ')}`);
  return { decisions: checked, round: pending.round };
}

/**
 * The `approve` handler: decides the approval the run waits for, exactly once. The decisions are checked first
 * (400 when malformed); a second approval of the same pause, concurrent or later, from any process, is refused with
 * 409: the durable promise the run awaits can be resolved only once, and the engine enforces it atomically.
 */
export async function approveRun(
  ctx: WorkflowSharedContext,
  input: unknown,
): Promise<{ readonly runId: string; readonly round: number }> {
  const runId = ctx.key;
  const pending = await ctx.get<PendingApproval>(PENDING_APPROVAL_KEY);
  if (pending === null) {
    throw new TerminalError(
      `Run '${runId}' is not waiting for an approval (it has not paused, its approval was already decided, or it has finished); nothing was decided.`,
      { errorCode: 409 },
    );
  }
  const approval = checkApproval(input, pending, runId);
  const promise = ctx.promise<ApprovalInput>(approvalPromiseName(pending.round));
  if ((await peekOpen(promise, runId)) !== undefined) alreadyDecided(runId, pending.round);
  try {
    await promise.resolve(approval);
  } catch (error) {
    // Two approvals raced past the check above, or the run stopped waiting meanwhile: the engine let one complete
    // the promise.
    if (error instanceof TerminalError && error.code === 409) {
      await peekOpen(promise, runId);
      alreadyDecided(runId, pending.round);
    }
    throw error;
  }
  return { runId, round: pending.round };
}

/**
 * The decision an approval promise holds, `undefined` while it is open. A run that stopped waiting (cancelled
 * through Restate's API) rejected its promise: refused with 409, saying why.
 */
async function peekOpen(
  promise: DurablePromise<ApprovalInput>,
  runId: string,
): Promise<ApprovalInput | undefined> {
  try {
    return await promise.peek();
  } catch (error) {
    if (!(error instanceof TerminalError)) throw error;
    throw new TerminalError(
      `Run '${runId}' is not waiting for an approval any more: ${error.message} Nothing was decided.`,
      { errorCode: 409 },
    );
  }
}

/** The `status` handler: the approval the run waits for, if any. */
export async function runStatus(ctx: WorkflowSharedContext): Promise<RestateAgentStatus> {
  return { runId: ctx.key, pending: (await ctx.get<PendingApproval>(PENDING_APPROVAL_KEY)) ?? null };
}
