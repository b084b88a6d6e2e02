import type { Interrupt, ResumeEntry } from '@ag-ui/core';
import type { Action } from '@org/core';
import type { AgentState, ApprovalDecision } from '@org/planner';
import { AgUiRequestError } from './errors.js';

/** The key of an approval interrupt's `metadata` (and of its resume entry's) that carries the paused run's state. */
export const AGENT_STATE_METADATA_KEY = 'agentState';

/** The `reason` of the interrupts this package sends: a tool call waits for a person's approval. */
export const TOOL_APPROVAL_REASON = 'tool_approval';

/** The answer an approval interrupt expects in its resume entry's `payload`. */
const APPROVAL_RESPONSE_SCHEMA = {
  type: 'object',
  properties: {
    approved: { type: 'boolean', description: 'Whether the call may run.' },
    reason: { type: 'string', description: 'Shown to the model when the call is denied.' },
  },
  required: ['approved'],
  additionalProperties: false,
};

/**
 * One AG-UI interrupt per action waiting for approval, each carrying the paused run's state (sealed with
 * `stateSecret`) in `metadata.agentState`, beside the tool's name and the arguments that will run. The interrupt's id
 * is the tool call's id.
 */
export function toApprovalInterrupts(pending: readonly Action[], state: AgentState): Interrupt[] {
  return pending.map((action) => ({
    id: action.id,
    reason: TOOL_APPROVAL_REASON,
    message: `Approve the call of ${action.toolName}?`,
    toolCallId: action.id,
    responseSchema: APPROVAL_RESPONSE_SCHEMA,
    metadata: { toolName: action.toolName, arguments: action.args, [AGENT_STATE_METADATA_KEY]: state },
  }));
}

/** A decision of a person on an approval interrupt: approve or deny, with a reason shown to the model. */
export type ApprovalAnswer = boolean | { readonly approved: boolean; readonly reason?: string };

/**
 * The resume entries that answer approval interrupts, for a front end: each interrupt answered with its decision
 * (`true`, `false` or `{ approved, reason }`) and its `metadata.agentState` carried back. Pass them as
 * `agent.runAgent({ resume })` of `@ag-ui/client`. An interrupt without a decision is cancelled (denied).
 *
 * @example
 * const interrupts = agent.pendingInterrupts;
 * await agent.runAgent({ resume: approvalResume(interrupts, { [interrupts[0].id]: true }) });
 */
export function approvalResume(
  interrupts: readonly Interrupt[],
  decisions: Readonly<Record<string, ApprovalAnswer>>,
): ResumeEntry[] {
  return interrupts.map((interrupt) => {
    const decision = Object.hasOwn(decisions, interrupt.id) ? decisions[interrupt.id] : undefined;
    const metadata = { [AGENT_STATE_METADATA_KEY]: interrupt.metadata?.[AGENT_STATE_METADATA_KEY] };
    if (decision === undefined) return { interruptId: interrupt.id, status: 'cancelled', metadata };
    const payload = typeof decision === 'boolean' ? { approved: decision } : decision;
    return { interruptId: interrupt.id, status: 'resolved', payload, metadata };
  });
}

/** What a run input's resume entries ask for: the paused run's state and a decision per pending call. */
export interface ApprovalResume {
  readonly state: AgentState;
  readonly decisions: Readonly<Record<string, ApprovalDecision>>;
}

/**
 * Reads the resume entries of a run input: each answers one interrupt once, `resolved` with a payload `true` /
 * `false` / `{ approved, reason? }`, or `cancelled` (a denial); the paused state rides in `metadata.agentState` of the
 * entries, the same in each that carries it. Whether the state is sealed, matches the decisions and was not resumed
 * before is the planner's check when the run resumes (`InvalidResumeStateError`, `ResumeAlreadyClaimedError`).
 */
export function readApprovalResume(entries: readonly ResumeEntry[]): ApprovalResume {
  const decisions: Record<string, ApprovalDecision> = Object.create(null);
  let stateText: string | undefined;
  let state: unknown;
  entries.forEach((entry, index) => {
    const field = `resume[${index}]`;
    if (Object.hasOwn(decisions, entry.interruptId)) {
      throw new AgUiRequestError({
        problem: 'resume',
        message: `Interrupt ${JSON.stringify(entry.interruptId.slice(0, 100))} is answered twice.`,
        field: `${field}.interruptId`,
      });
    }
    decisions[entry.interruptId] =
      entry.status === 'cancelled' ? cancelled() : readDecision(entry.payload, field);
    const metadata: unknown = entry.metadata;
    if (
      typeof metadata !== 'object' ||
      metadata === null ||
      !Object.hasOwn(metadata, AGENT_STATE_METADATA_KEY)
    )
      return;
    const carried: unknown = (metadata as Record<string, unknown>)[AGENT_STATE_METADATA_KEY];
    const text = JSON.stringify(carried);
    if (stateText !== undefined && text !== stateText) {
      throw new AgUiRequestError({
        problem: 'resume',
        message:
          'The resume entries carry different paused states: answer the interrupts of one run at a time.',
        field: `${field}.metadata.${AGENT_STATE_METADATA_KEY}`,
      });
    }
    stateText = text;
    state = carried;
  });
  if (typeof state !== 'object' || state === null) {
    throw new AgUiRequestError({
      problem: 'resume',
      message:
        `The resume entries do not carry the paused run's state: send back each interrupt's ` +
        `metadata.${AGENT_STATE_METADATA_KEY} in its entry's metadata (approvalResume does).`,
      field: 'resume',
    });
  }
  return { state: state as AgentState, decisions };
}

function cancelled(): ApprovalDecision {
  return { approved: false, reason: 'The person cancelled the approval.' };
}

function readDecision(payload: unknown, field: string): ApprovalDecision {
  if (typeof payload === 'boolean') return payload;
  if (typeof payload === 'object' && payload !== null && !Array.isArray(payload)) {
    const approved = Object.hasOwn(payload, 'approved')
      ? (payload as { approved?: unknown }).approved
      : undefined;
    const reason = Object.hasOwn(payload, 'reason') ? (payload as { reason?: unknown }).reason : undefined;
    const keys = Object.keys(payload).filter((key) => key !== 'approved' && key !== 'reason');
    if (
      typeof approved === 'boolean' &&
      (reason === undefined || typeof reason === 'string') &&
      keys.length === 0
    ) {
      return reason === undefined ? approved : { approved, reason };
    }
  }
  throw new AgUiRequestError({
    problem: 'resume',
    message: `An approval is answered with true, false or { approved: boolean, reason?: string } (${field}.payload).`,
    field: `${field}.payload`,
  });
}
