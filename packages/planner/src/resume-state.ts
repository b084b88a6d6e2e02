import {
  assertToolCallPairing,
  InvalidMessageHistoryError,
  isObservationStatus,
  type Message,
} from '@org/core';
import { type ToolRegistry, toolCallToAction, validateToolArguments } from '@org/tools';
import type { AgentState, ApprovalDecision } from './agent-types.js';
import { canonicalJson } from './argument-leak.js';
import { InvalidResumeStateError } from './errors.js';
import type { Planner } from './planner.js';
import { RESUME_REQUIRED_OPTIONS } from './resume-options.js';

type JsonRecord = Record<string, unknown>;

const isRecord = (value: unknown): value is JsonRecord =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const own = (record: JsonRecord, key: string): unknown =>
  Object.hasOwn(record, key) ? record[key] : undefined;

/** A state field or model-chosen key as it appears in a message: quoted and short. */
const shown = (text: string): string => JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);

function malformed(field: string, problem: string): never {
  throw new InvalidResumeStateError({
    reason: 'malformed',
    field,
    message: `The state to resume is malformed: ${field} ${problem}. Nothing was run.`,
  });
}

function inconsistent(field: string, problem: string): never {
  throw new InvalidResumeStateError({
    reason: 'inconsistent',
    field,
    message: `The state to resume is inconsistent: ${field} ${problem}. Nothing was run.`,
  });
}

/**
 * The state to resume as plain JSON data: a copy made through JSON text, so that what is checked (and verified
 * against its seal) is exactly what runs: no getter, prototype or shared object can change it in between, and
 * prototype-named keys are own data. A value JSON cannot carry (a BigInt, a cycle) is `malformed`.
 */
export function copyResumeState(value: unknown): JsonRecord {
  if (!isRecord(value)) malformed('state', 'is not an object');
  let copy: unknown;
  try {
    copy = JSON.parse(JSON.stringify(value));
  } catch (error) {
    throw new InvalidResumeStateError({
      reason: 'malformed',
      field: 'state',
      message:
        'The state to resume is malformed: it cannot be read as JSON data (a BigInt, a cycle, or too deep).',
      cause: error,
    });
  }
  if (!isRecord(copy)) malformed('state', 'is not an object');
  return copy;
}

// ---------------------------------------------------------------------------------------------------------------
// Shape: every field the loop reads, checked before it is read, each refusal naming the field.

function string(value: unknown, field: string): string {
  if (typeof value !== 'string') malformed(field, 'is not a string');
  return value;
}

function optionalString(value: unknown, field: string): void {
  if (value !== undefined) string(value, field);
}

function wholeNumber(value: unknown, field: string, minimum = 0): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < minimum) {
    malformed(field, `is not a whole number from ${minimum}`);
  }
  return value;
}

function finiteNumber(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) malformed(field, 'is not a finite number');
  return value;
}

function boolean(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') malformed(field, 'is not a boolean');
  return value;
}

function record(value: unknown, field: string): JsonRecord {
  if (!isRecord(value)) malformed(field, 'is not an object');
  return value;
}

function list(value: unknown, field: string): unknown[] {
  if (!Array.isArray(value)) malformed(field, 'is not an array');
  return value;
}

function checkUsage(value: unknown, field: string): void {
  const usage = record(value, field);
  for (const name of ['inputTokens', 'outputTokens', 'totalTokens']) {
    finiteNumber(own(usage, name), `${field}.${name}`);
  }
  for (const name of ['cachedInputTokens', 'reasoningTokens']) {
    if (own(usage, name) !== undefined) finiteNumber(own(usage, name), `${field}.${name}`);
  }
}

function checkToolCall(value: unknown, field: string): void {
  const call = record(value, field);
  string(own(call, 'id'), `${field}.id`);
  string(own(call, 'toolName'), `${field}.toolName`);
  string(own(call, 'arguments'), `${field}.arguments`);
}

function checkAction(value: unknown, field: string): void {
  const action = record(value, field);
  string(own(action, 'id'), `${field}.id`);
  string(own(action, 'toolName'), `${field}.toolName`);
  record(own(action, 'args'), `${field}.args`);
}

function checkObservation(value: unknown, field: string): void {
  const observation = record(value, field);
  string(own(observation, 'actionId'), `${field}.actionId`);
  string(own(observation, 'toolName'), `${field}.toolName`);
  if (!isObservationStatus(own(observation, 'status'))) malformed(`${field}.status`, 'is not a status');
  finiteNumber(own(observation, 'durationMs'), `${field}.durationMs`);
  const error = own(observation, 'error');
  if (error !== undefined) {
    const checked = record(error, `${field}.error`);
    string(own(checked, 'code'), `${field}.error.code`);
    string(own(checked, 'message'), `${field}.error.message`);
  }
}

function checkMessage(value: unknown, field: string): void {
  const message = record(value, field);
  const role = own(message, 'role');
  string(own(message, 'content'), `${field}.content`);
  if (role === 'user') return;
  if (role === 'assistant') {
    const calls = own(message, 'toolCalls');
    if (calls !== undefined) {
      list(calls, `${field}.toolCalls`).forEach((call, index) => {
        checkToolCall(call, `${field}.toolCalls[${index}]`);
      });
    }
    return;
  }
  if (role === 'tool') {
    string(own(message, 'toolCallId'), `${field}.toolCallId`);
    string(own(message, 'toolName'), `${field}.toolName`);
    if (own(message, 'isError') !== undefined) boolean(own(message, 'isError'), `${field}.isError`);
    return;
  }
  malformed(`${field}.role`, "is not 'user', 'assistant' or 'tool'");
}

function checkToolChoice(value: unknown, field: string): void {
  const choice = record(value, field);
  const type = own(choice, 'type');
  if (type === 'tool') string(own(choice, 'toolName'), `${field}.toolName`);
  else if (type !== 'auto' && type !== 'required' && type !== 'none') {
    malformed(`${field}.type`, "is not 'auto', 'required', 'none' or 'tool'");
  }
}

function checkInference(value: unknown, field: string): void {
  const inference = record(value, field);
  wholeNumber(own(inference, 'step'), `${field}.step`);
  const purpose = own(inference, 'purpose');
  if (purpose !== 'decision' && purpose !== 'retry' && purpose !== 'final-answer') {
    malformed(`${field}.purpose`, "is not 'decision', 'retry' or 'final-answer'");
  }
  checkUsage(own(inference, 'usage'), `${field}.usage`);
  string(own(inference, 'finishReason'), `${field}.finishReason`);
  finiteNumber(own(inference, 'durationMs'), `${field}.durationMs`);
}

function checkStep(value: unknown, field: string): void {
  const step = record(value, field);
  wholeNumber(own(step, 'index'), `${field}.index`);
  checkToolChoice(own(step, 'toolChoice'), `${field}.toolChoice`);
  string(own(step, 'text'), `${field}.text`);
  list(own(step, 'toolCalls'), `${field}.toolCalls`).forEach((call, index) => {
    checkToolCall(call, `${field}.toolCalls[${index}]`);
  });
  list(own(step, 'actions'), `${field}.actions`).forEach((action, index) => {
    checkAction(action, `${field}.actions[${index}]`);
  });
  list(own(step, 'observations'), `${field}.observations`).forEach((observation, index) => {
    checkObservation(observation, `${field}.observations[${index}]`);
  });
  list(own(step, 'rejectedToolCalls'), `${field}.rejectedToolCalls`);
  list(own(step, 'inferences'), `${field}.inferences`).forEach((inference, index) => {
    checkInference(inference, `${field}.inferences[${index}]`);
  });
  checkUsage(own(step, 'usage'), `${field}.usage`);
  finiteNumber(own(step, 'startedAt'), `${field}.startedAt`);
  finiteNumber(own(step, 'finishedAt'), `${field}.finishedAt`);
}

function checkTurn(value: unknown, field: string): void {
  const turn = record(value, field);
  if (own(turn, 'kind') !== 'actions') malformed(`${field}.kind`, "is not 'actions'");
  string(own(turn, 'text'), `${field}.text`);
  list(own(turn, 'toolCalls'), `${field}.toolCalls`).forEach((call, index) => {
    checkToolCall(call, `${field}.toolCalls[${index}]`);
  });
  list(own(turn, 'actions'), `${field}.actions`).forEach((action, index) => {
    checkAction(action, `${field}.actions[${index}]`);
  });
  list(own(turn, 'rejected'), `${field}.rejected`).forEach((item, index) => {
    const rejected = record(item, `${field}.rejected[${index}]`);
    checkToolCall(own(rejected, 'toolCall'), `${field}.rejected[${index}].toolCall`);
    const reason = own(rejected, 'reason');
    if (reason !== 'validation' && reason !== 'parallel-limit') {
      malformed(`${field}.rejected[${index}].reason`, "is not 'validation' or 'parallel-limit'");
    }
    checkObservation(own(rejected, 'observation'), `${field}.rejected[${index}].observation`);
  });
  const assistant = record(own(turn, 'assistantMessage'), `${field}.assistantMessage`);
  if (own(assistant, 'role') !== 'assistant')
    malformed(`${field}.assistantMessage.role`, "is not 'assistant'");
  checkMessage(assistant, `${field}.assistantMessage`);
  list(own(turn, 'inferences'), `${field}.inferences`).forEach((inference, index) => {
    checkInference(inference, `${field}.inferences[${index}]`);
  });
}

const SAVED_NUMBER_SETTINGS = [
  'maxConcurrency',
  'toolTimeoutMs',
  'outputBudgetBytes',
  'maxOutputTokens',
  'temperature',
] as const;

function checkSettings(value: unknown, field: string): void {
  const settings = record(value, field);
  optionalString(own(settings, 'systemPrompt'), `${field}.systemPrompt`);
  wholeNumber(own(settings, 'maxSteps'), `${field}.maxSteps`, 1);
  wholeNumber(own(settings, 'maxIdenticalToolCalls'), `${field}.maxIdenticalToolCalls`, 1);
  if (own(settings, 'maxConcurrency') !== undefined) {
    wholeNumber(own(settings, 'maxConcurrency'), `${field}.maxConcurrency`, 1);
  }
  for (const name of SAVED_NUMBER_SETTINGS) {
    const setting = own(settings, name);
    // Numbers as saved (null: Infinity, as JSON writes it); the tools and the model check their ranges again.
    if (setting !== undefined && setting !== null && typeof setting !== 'number') {
      malformed(`${field}.${name}`, 'is not a number');
    }
  }
  for (const name of ['throwOnToolFailure', 'stopOnToolBlock']) {
    if (own(settings, name) !== undefined) boolean(own(settings, name), `${field}.${name}`);
  }
  const tools = list(own(settings, 'tools'), `${field}.tools`);
  tools.forEach((name, index) => {
    string(name, `${field}.tools[${index}]`);
  });
  const choice = own(settings, 'toolChoice');
  if (choice !== undefined) {
    checkToolChoice(choice, `${field}.toolChoice`);
    const named = own(choice as JsonRecord, 'toolName');
    if (own(choice as JsonRecord, 'type') === 'tool' && !tools.includes(named)) {
      malformed(`${field}.toolChoice.toolName`, 'names a tool the paused run did not offer');
    }
  }
  list(own(settings, 'requires'), `${field}.requires`).forEach((name, index) => {
    if (!RESUME_REQUIRED_OPTIONS.has(name as string)) {
      malformed(`${field}.requires[${index}]`, 'is not an option a state cannot hold');
    }
  });
}

/**
 * Checks the shape of every field of a paused state that the loop reads (types, enumerations, whole numbers, the
 * history's tool-call pairing), refusing the first field at fault with an `InvalidResumeStateError` (`malformed`)
 * that names it: never a `TypeError` in the middle of a run. Linear in the state's size.
 */
export function assertResumeStateShape(state: JsonRecord): asserts state is JsonRecord & AgentState {
  if (own(state, 'version') !== 1) {
    malformed('version', 'is not 1 (the state is not a paused run of this version)');
  }
  string(own(state, 'runId'), 'runId');
  const token = own(state, 'resumeToken');
  if (typeof token !== 'string' || token === '' || token.length > 200) {
    malformed(
      'resumeToken',
      'is not a resume token (a paused run of an earlier version, or an edited state)',
    );
  }
  optionalString(own(state, 'seal'), 'seal');
  wholeNumber(own(state, 'step'), 'step');
  const history = list(own(state, 'history'), 'history');
  history.forEach((message, index) => {
    checkMessage(message, `history[${index}]`);
  });
  try {
    assertToolCallPairing(history as Message[]);
  } catch (error) {
    if (!InvalidMessageHistoryError.isInstance(error)) throw error;
    throw new InvalidResumeStateError({
      reason: 'malformed',
      field: `history[${error.messageIndex ?? 0}]`,
      message: `The state to resume is malformed: its history pairs tool calls and results wrongly (${error.message}). Nothing was run.`,
      cause: error,
    });
  }
  list(own(state, 'steps'), 'steps').forEach((step, index) => {
    checkStep(step, `steps[${index}]`);
  });
  checkUsage(own(state, 'usage'), 'usage');
  const stats = record(own(state, 'toolStats'), 'toolStats');
  for (const name of Object.keys(stats)) {
    const entry = record(stats[name], `toolStats[${shown(name)}]`);
    for (const counter of ['chosen', 'succeeded', 'failed', 'invalid', 'blocked', 'skipped']) {
      wholeNumber(own(entry, counter), `toolStats[${shown(name)}].${counter}`);
    }
  }
  list(own(state, 'callCounts'), 'callCounts').forEach((entry, index) => {
    const pair = list(entry, `callCounts[${index}]`);
    if (pair.length !== 2) malformed(`callCounts[${index}]`, 'is not a [call, count] pair');
    string(pair[0], `callCounts[${index}][0]`);
    wholeNumber(pair[1], `callCounts[${index}][1]`);
  });
  if (own(state, 'callResults') !== undefined) {
    list(own(state, 'callResults'), 'callResults').forEach((entry, index) => {
      const pair = list(entry, `callResults[${index}]`);
      if (pair.length !== 2) malformed(`callResults[${index}]`, 'is not a [call, fingerprint] pair');
      string(pair[0], `callResults[${index}][0]`);
      string(pair[1], `callResults[${index}][1]`);
    });
  }
  list(own(state, 'calledTools'), 'calledTools').forEach((name, index) => {
    string(name, `calledTools[${index}]`);
  });
  boolean(own(state, 'forcedChoiceSatisfied'), 'forcedChoiceSatisfied');
  const pending = record(own(state, 'pending'), 'pending');
  checkTurn(own(pending, 'turn'), 'pending.turn');
  checkToolChoice(own(pending, 'toolChoice'), 'pending.toolChoice');
  finiteNumber(own(pending, 'startedAt'), 'pending.startedAt');
  if (own(pending, 'early') !== undefined) {
    list(own(pending, 'early'), 'pending.early').forEach((observation, index) => {
      checkObservation(observation, `pending.early[${index}]`);
    });
  }
  const approvals = list(own(state, 'pendingApprovals'), 'pendingApprovals');
  if (approvals.length === 0)
    malformed('pendingApprovals', 'is empty (a paused run waits for at least one decision)');
  approvals.forEach((action, index) => {
    checkAction(action, `pendingApprovals[${index}]`);
  });
  if (own(state, 'run') !== undefined) checkSettings(own(state, 'run'), 'run');
  if (own(state, 'messageRanges') !== undefined) {
    const ranges = record(own(state, 'messageRanges'), 'messageRanges');
    const runStart = wholeNumber(own(ranges, 'runStart'), 'messageRanges.runStart');
    if (runStart > history.length) malformed('messageRanges.runStart', 'is past the end of the history');
    list(own(ranges, 'steps'), 'messageRanges.steps').forEach((item, index) => {
      const range = record(item, `messageRanges.steps[${index}]`);
      wholeNumber(own(range, 'step'), `messageRanges.steps[${index}].step`);
      const start = wholeNumber(own(range, 'start'), `messageRanges.steps[${index}].start`);
      const end = wholeNumber(own(range, 'end'), `messageRanges.steps[${index}].end`);
      if (start > end || end > history.length) {
        malformed(`messageRanges.steps[${index}]`, 'is not a range of the history');
      }
    });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Decisions.

/**
 * The decisions as a null-prototype record, checked: an object with exactly one decision (a boolean, or
 * `{ approved: boolean, reason?: string }`) per pending action id, read as own properties (an id such as
 * `constructor` inherits nothing). Refused with `InvalidResumeStateError` (`decisions`) otherwise.
 */
export function readDecisions(
  state: AgentState,
  decisions: unknown,
): Readonly<Record<string, ApprovalDecision>> {
  const pendingIds = state.pendingApprovals.map((action) => action.id);
  if (!isRecord(decisions)) {
    throw new InvalidResumeStateError({
      reason: 'decisions',
      field: 'decisions',
      message: `The decisions are not an object of { [actionId]: decision }. Pending: ${pendingIds.join(', ')}.`,
      missingDecisions: pendingIds,
    });
  }
  const pending = new Set(pendingIds);
  const missing = pendingIds.filter((id) => !Object.hasOwn(decisions, id));
  const unknown = Object.keys(decisions).filter((id) => !pending.has(id));
  if (missing.length > 0 || unknown.length > 0) {
    throw new InvalidResumeStateError({
      reason: 'decisions',
      message:
        (missing.length > 0 ? `No decision for pending action(s) ${missing.join(', ')}. ` : '') +
        (unknown.length > 0 ? `Decisions for unknown action(s) ${unknown.map(shown).join(', ')}. ` : '') +
        `Pending: ${pendingIds.join(', ')}.`,
      missingDecisions: missing,
    });
  }
  const checked = Object.create(null) as Record<string, ApprovalDecision>;
  for (const id of pendingIds) {
    const decision = decisions[id];
    const valid =
      typeof decision === 'boolean' ||
      (isRecord(decision) &&
        typeof own(decision, 'approved') === 'boolean' &&
        (own(decision, 'reason') === undefined || typeof own(decision, 'reason') === 'string'));
    if (!valid) {
      throw new InvalidResumeStateError({
        reason: 'decisions',
        field: `decisions[${shown(id)}]`,
        message: `The decision for ${shown(id)} is neither a boolean nor { approved: boolean, reason?: string }.`,
      });
    }
    checked[id] =
      typeof decision === 'boolean'
        ? decision
        : {
            approved: own(decision as JsonRecord, 'approved') as boolean,
            ...(own(decision as JsonRecord, 'reason') === undefined
              ? {}
              : { reason: own(decision as JsonRecord, 'reason') as string }),
          };
  }
  return checked;
}

// ---------------------------------------------------------------------------------------------------------------
// Consistency: the pending step against itself and the tools.

/**
 * Re-validates the pending step as the loop would have built it, before anything runs:
 * - each call id is unique; each action and each rejected call answers a distinct call of the turn;
 * - each action is what `toolCallToAction` makes of its call (the tool's schema, coercions, hidden parameters and
 *   argument limits applied again to the call's text), so arguments edited in the state are refused;
 * - each pending approval names an action of the turn, once, with its tool, and arguments the tool's schema accepts
 *   as they are; without a `beforeToolUse` hook (nothing can rewrite them) they are the action's own arguments.
 * Refused with `InvalidResumeStateError` (`inconsistent`, naming the field). Which calls then need approval is decided
 * again on the arguments that will run; one that does and has no decision is not run (`approval_required`).
 */
export function assertConsistentPendingStep(
  state: AgentState,
  registry: ToolRegistry,
  options: { readonly rewritesArguments: boolean },
): void {
  const turn = state.pending.turn;
  const calls = new Map<string, number>();
  turn.toolCalls.forEach((call, index) => {
    if (calls.has(call.id))
      inconsistent(`pending.turn.toolCalls[${index}].id`, `repeats the call id ${shown(call.id)}`);
    calls.set(call.id, index);
  });
  // The turn is recorded in the history as its assistant message: its calls are the turn's, and new to the history.
  const recorded = turn.assistantMessage.toolCalls;
  if (recorded !== undefined) {
    if (recorded.length !== turn.toolCalls.length) {
      inconsistent('pending.turn.assistantMessage.toolCalls', "are not the turn's calls");
    }
    recorded.forEach((call, index) => {
      const own = turn.toolCalls[index];
      if (call.id !== own?.id || call.toolName !== own.toolName || call.arguments !== own.arguments) {
        inconsistent(`pending.turn.assistantMessage.toolCalls[${index}]`, "is not the turn's call");
      }
    });
    for (const message of state.history) {
      if (message.role !== 'assistant') continue;
      for (const call of message.toolCalls ?? []) {
        if (calls.has(call.id))
          inconsistent('pending.turn.toolCalls', `reuse the history's call id ${shown(call.id)}`);
      }
    }
  }
  const answered = new Set<string>();
  const actions = new Map<string, number>();
  turn.actions.forEach((action, index) => {
    const field = `pending.turn.actions[${index}]`;
    const callIndex = calls.get(action.id);
    if (callIndex === undefined)
      inconsistent(`${field}.id`, `names no call of the turn (${shown(action.id)})`);
    if (answered.has(action.id)) inconsistent(`${field}.id`, `answers the call ${shown(action.id)} twice`);
    answered.add(action.id);
    actions.set(action.id, index);
    const tool = registry.resolve(action.toolName);
    if (tool === undefined)
      inconsistent(`${field}.toolName`, `names a tool the resume does not offer (${shown(action.toolName)})`);
    const call = turn.toolCalls[callIndex] as (typeof turn.toolCalls)[number];
    const converted = toolCallToAction(registry, call, { finishReason: 'stop' });
    if (!converted.ok) {
      inconsistent(
        `pending.turn.toolCalls[${callIndex}]`,
        `is refused by its tool (${converted.error.message})`,
      );
    }
    if (registry.resolve(converted.action.toolName) !== tool) {
      inconsistent(`${field}.toolName`, 'is not the tool its call names');
    }
    if (canonicalJson(converted.action.args) !== canonicalJson(action.args)) {
      inconsistent(`${field}.args`, 'are not the arguments its call gives (edited after the run paused?)');
    }
  });
  turn.rejected.forEach((rejected, index) => {
    const id = rejected.toolCall.id;
    if (!calls.has(id))
      inconsistent(`pending.turn.rejected[${index}]`, `names no call of the turn (${shown(id)})`);
    if (answered.has(id))
      inconsistent(`pending.turn.rejected[${index}]`, `answers the call ${shown(id)} twice`);
    answered.add(id);
  });
  const ranEarly = new Set<string>();
  (state.pending.early ?? []).forEach((observation, index) => {
    const field = `pending.early[${index}]`;
    const actionIndex = actions.get(observation.actionId);
    if (actionIndex === undefined)
      inconsistent(
        `${field}.actionId`,
        `names no action of the pending step (${shown(observation.actionId)})`,
      );
    if (ranEarly.has(observation.actionId))
      inconsistent(`${field}.actionId`, `repeats ${shown(observation.actionId)}`);
    ranEarly.add(observation.actionId);
    if (observation.toolName !== turn.actions[actionIndex]?.toolName)
      inconsistent(`${field}.toolName`, "is not its action's tool");
  });
  const approvals = new Set<string>();
  state.pendingApprovals.forEach((pending, index) => {
    const field = `pendingApprovals[${index}]`;
    const actionIndex = actions.get(pending.id);
    if (actionIndex === undefined)
      inconsistent(`${field}.id`, `names no action of the pending step (${shown(pending.id)})`);
    if (approvals.has(pending.id)) inconsistent(`${field}.id`, `repeats ${shown(pending.id)}`);
    if (ranEarly.has(pending.id))
      inconsistent(`${field}.id`, `names a call that already ran (${shown(pending.id)})`);
    approvals.add(pending.id);
    const action = turn.actions[actionIndex] as (typeof turn.actions)[number];
    const tool = registry.resolve(action.toolName);
    if (tool === undefined || registry.resolve(pending.toolName) !== tool) {
      inconsistent(`${field}.toolName`, "is not its action's tool");
    }
    const validated = validateToolArguments(tool, pending.args, { toolCallId: pending.id });
    if (!validated.ok || canonicalJson(validated.value) !== canonicalJson(pending.args)) {
      inconsistent(`${field}.args`, "are not arguments the tool's schema accepts as they are");
    }
    if (!options.rewritesArguments && canonicalJson(pending.args) !== canonicalJson(action.args)) {
      inconsistent(`${field}.args`, "differ from the action's, and no beforeToolUse hook can rewrite them");
    }
  });
}

/**
 * Refuses a pending step whose recorded messages would break the history's tool-call pairing (calls missing from
 * the assistant message, ids the history already used): the planner records the turn with a placeholder result per
 * call, and the whole conversation is checked as a provider would check it.
 */
export function assertPendingStepRecordable(state: AgentState, planner: Planner): void {
  const turn = state.pending.turn;
  const placeholders = turn.toolCalls.map((call) => ({
    actionId: call.id,
    toolName: call.toolName,
    status: 'skipped' as const,
    error: { code: 'resume_check', message: '' },
    durationMs: 0,
  }));
  try {
    assertToolCallPairing([...state.history, ...planner.recordTurn(turn, placeholders)]);
  } catch (error) {
    if (!InvalidMessageHistoryError.isInstance(error)) throw error;
    throw new InvalidResumeStateError({
      reason: 'inconsistent',
      field: 'pending.turn',
      message: `The state to resume is inconsistent: its pending step would break the conversation (${error.message}). Nothing was run.`,
      cause: error,
    });
  }
}
