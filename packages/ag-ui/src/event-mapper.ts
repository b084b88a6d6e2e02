import { type Event as AgUiEvent, EventType } from '@ag-ui/core';
import {
  type ObservationError,
  type ObservationStatus,
  nestedCallOf as programCallOf,
  type RunEvent,
} from '@org/core';
import { formatObservationForModel, type ToolObservation } from '@org/tools';

/** Options of `AgUiEventMapper`. */
export interface AgUiEventMapperOptions {
  /** Prefix of the message ids the mapper makes (the run's id): unique per run, stable within it. */
  readonly runId: string;
  /** Tools the front end runs: their calls are left open for the front end (no `TOOL_CALL_RESULT`). */
  readonly frontEndToolNames: ReadonlySet<string>;
}

/** A call the stream has announced (`TOOL_CALL_START` sent). */
interface AnnouncedCall {
  readonly parentMessageId: string | undefined;
  /** Its `TOOL_CALL_END` is not sent yet (the model is still writing its arguments). */
  open: boolean;
  /** A result that arrived while the call was still open (an `eager` tool finishing before the answer ended). */
  deferredResult?: AgUiEvent;
}

/**
 * A call made inside another one, which a generic AG-UI client shows as its own tool call: a plan step of
 * `execute_tool_plan`, or any tool call whose event names a `parentToolCallId` (a call of a code-mode program).
 */
interface NestedCall {
  readonly parentToolCallId: string;
  readonly toolCallId: string;
  readonly toolName: string;
}

/** The id of a plan step as a nested tool call: unique across plans, which may share step ids. */
export function planStepCallId(planId: string | undefined, stepId: string): string {
  return `${planId ?? 'plan'}/${stepId}`;
}

/** The id of the tool message a call's result becomes, in `TOOL_CALL_RESULT` and in the messages snapshot. */
export function toolResultMessageId(toolCallId: string): string {
  return `${toolCallId}/result`;
}

/**
 * Turns the loop's run events (`RunEvent` of `@org/core`) into AG-UI events, keeping the protocol's order rules: a
 * model call is a `STEP_STARTED` / `STEP_FINISHED` pair; its text a `TEXT_MESSAGE_*` triple and its reasoning a
 * `REASONING_*` span; each call `TOOL_CALL_START` / `ARGS` / `END` then `TOOL_CALL_RESULT` (never before its end);
 * plan steps, calls carrying a parent and calls a tool reports as its progress (each call of a code-mode program,
 * with its arguments) become nested calls (`parentMessageId` of their parent's message, and
 * `metadata.parentToolCallId`); events AG-UI has no word for (`validation-failed`, `adjustment`, `approval-requested`,
 * ...) are `CUSTOM` events named after their type. `run-started` / `run-finished` are the handler's to send.
 */
export class AgUiEventMapper {
  readonly #runId: string;
  readonly #frontEndToolNames: ReadonlySet<string>;
  /** Calls announced so far, by id (a Map: a model may name a call `__proto__`). */
  readonly #calls = new Map<string, AnnouncedCall>();
  #modelCalls = 0;
  #stepName: string | undefined;
  #messageId: string | undefined;
  #textOpen = false;
  #reasoningId: string | undefined;
  /** The id of the last text message, the final answer's when the run ends with one. */
  #lastTextMessageId: string | undefined;
  /** Calls that reported plan steps: their nested calls are shown as the steps (`plan-step-*`). */
  readonly #plans = new Set<string>();

  constructor(options: AgUiEventMapperOptions) {
    this.#runId = options.runId;
    this.#frontEndToolNames = options.frontEndToolNames;
  }

  /** The AG-UI events of one run event, in order (often none or one). */
  map(event: RunEvent): AgUiEvent[] {
    const out: AgUiEvent[] = [];
    const nested = nestedCallOf(event);
    switch (event.type) {
      case 'inference-started':
        this.#closeModelCall(out);
        this.#modelCalls += 1;
        this.#stepName = `model call ${this.#modelCalls}`;
        this.#messageId = `${this.#runId}/message-${this.#modelCalls}`;
        out.push({ type: EventType.STEP_STARTED, stepName: this.#stepName });
        break;
      case 'reasoning-delta':
        if (event.delta === '') break;
        if (this.#reasoningId === undefined) {
          this.#reasoningId = `${this.#currentMessageId()}/reasoning`;
          out.push({ type: EventType.REASONING_START, messageId: this.#reasoningId });
          out.push({
            type: EventType.REASONING_MESSAGE_START,
            messageId: this.#reasoningId,
            role: 'reasoning',
          });
        }
        out.push({
          type: EventType.REASONING_MESSAGE_CONTENT,
          messageId: this.#reasoningId,
          delta: event.delta,
        });
        break;
      case 'text-delta':
        if (event.delta === '') break;
        this.#closeReasoning(out);
        this.#openText(out);
        out.push({
          type: EventType.TEXT_MESSAGE_CONTENT,
          messageId: this.#currentMessageId(),
          delta: event.delta,
        });
        break;
      case 'tool-call-streaming-started':
        this.#announce(out, event.toolCallId, event.toolName, this.#messageId, { open: true });
        break;
      case 'tool-call-arguments-delta':
        if (event.delta !== '' && this.#calls.get(event.toolCallId)?.open === true) {
          out.push({ type: EventType.TOOL_CALL_ARGS, toolCallId: event.toolCallId, delta: event.delta });
        }
        break;
      case 'tool-call-arguments-complete': {
        // Every argument delta has been sent: the call's arguments are whole, which is what TOOL_CALL_END says.
        const call = this.#calls.get(event.toolCallId);
        if (call?.open === true) this.#endCall(out, event.toolCallId, call);
        break;
      }
      case 'inference-finished':
        this.#closeReasoning(out);
        if (!this.#textOpen && event.text !== undefined && event.text !== '') {
          this.#openText(out);
          out.push({
            type: EventType.TEXT_MESSAGE_CONTENT,
            messageId: this.#currentMessageId(),
            delta: event.text,
          });
        }
        for (const call of event.toolCalls) {
          this.#announce(out, call.id, call.toolName, this.#messageId, {
            open: false,
            arguments: call.arguments,
          });
        }
        this.#closeModelCall(out);
        break;
      case 'inference-failed':
        this.#closeModelCall(out);
        break;
      case 'tool-call-started':
        if (nested !== undefined) this.#startNested(out, nested);
        // A ReAct decision has no streamed call: the action is its first and only announcement.
        // (An eager call starts while its arguments still stream: it stays open until the answer ends.)
        else if (!this.#calls.has(event.action.id))
          this.#announce(out, event.action.id, event.action.toolName, this.#messageId, {
            open: false,
            arguments: JSON.stringify(event.action.args),
          });
        break;
      case 'tool-call-finished': {
        const observation = event.observation;
        if (nested !== undefined) {
          this.#startNested(out, nested);
          this.#result(out, nested.toolCallId, formatObservationForModel(observation as ToolObservation));
          break;
        }
        // A call refused before it started (invalid arguments, denied) was announced by its model call already;
        // one that never was (a custom planner's) is announced here, so its result has a call to answer.
        if (!this.#calls.has(observation.actionId)) {
          this.#announce(out, observation.actionId, observation.toolName, this.#messageId, { open: false });
        }
        if (this.#isAwaitingFrontEnd(observation)) break;
        this.#result(out, observation.actionId, formatObservationForModel(observation as ToolObservation));
        break;
      }
      case 'plan-step-started':
        if (nested !== undefined) this.#startNested(out, nested);
        break;
      case 'plan-step-finished':
        if (nested !== undefined) {
          this.#startNested(out, nested);
          this.#result(out, nested.toolCallId, stepResultText(event.status, event.error));
        }
        break;
      case 'tool-call-progress': {
        const progress = programCallOf(event.progress);
        // A plan tool reports its steps as progress too; the top-level plan-step events already carry them.
        if (progress?.type === 'plan-step') {
          this.#plans.add(event.actionId);
          break;
        }
        // A call another tool made (each call of a code-mode program): a nested call of that tool's call.
        if (progress !== undefined && !this.#plans.has(event.actionId)) {
          if (progress.type === 'started') {
            const { id, toolName, args } = progress.action;
            this.#startNested(
              out,
              { parentToolCallId: event.actionId, toolCallId: id, toolName },
              argumentsText(args),
            );
          } else {
            const { observation } = progress;
            const nested = {
              parentToolCallId: event.actionId,
              toolCallId: observation.actionId,
              toolName: observation.toolName,
            };
            this.#startNested(out, nested);
            this.#result(out, nested.toolCallId, formatObservationForModel(observation));
          }
          break;
        }
        out.push(custom(event));
        break;
      }
      case 'run-started':
      case 'run-finished':
        break;
      case 'validation-failed':
      case 'approval-requested':
      case 'tool-call-intercepted':
      case 'adjustment':
      case 'decision-extraction-failed':
        out.push(custom(event));
        break;
      default:
        // An event type added to the union later: sent as it is rather than lost.
        out.push(custom(event as RunEvent));
    }
    // AG-UI timestamps are integers (milliseconds); plan steps are timed to the fraction.
    if (Number.isFinite(event.timestamp))
      for (const mapped of out) mapped.timestamp = Math.round(event.timestamp);
    return out;
  }

  /** Ends everything still open (a model call, a text, a reasoning span, calls), before the run's last event. */
  closeAll(): AgUiEvent[] {
    const out: AgUiEvent[] = [];
    this.#closeModelCall(out);
    for (const [toolCallId, call] of this.#calls) if (call.open) this.#endCall(out, toolCallId, call);
    return out;
  }

  /** The assistant message a call was announced in, for the messages snapshot's ids. */
  parentMessageIdOf(toolCallId: string): string | undefined {
    return this.#calls.get(toolCallId)?.parentMessageId;
  }

  /** The id of the last text message sent. */
  get lastTextMessageId(): string | undefined {
    return this.#lastTextMessageId;
  }

  #currentMessageId(): string {
    this.#messageId ??= `${this.#runId}/message-0`;
    return this.#messageId;
  }

  #openText(out: AgUiEvent[]): void {
    if (this.#textOpen) return;
    this.#textOpen = true;
    this.#lastTextMessageId = this.#currentMessageId();
    out.push({ type: EventType.TEXT_MESSAGE_START, messageId: this.#lastTextMessageId, role: 'assistant' });
  }

  #closeReasoning(out: AgUiEvent[]): void {
    if (this.#reasoningId === undefined) return;
    out.push({ type: EventType.REASONING_MESSAGE_END, messageId: this.#reasoningId });
    out.push({ type: EventType.REASONING_END, messageId: this.#reasoningId });
    this.#reasoningId = undefined;
  }

  /** Ends the model call: its reasoning, its text, the calls it was writing, then its step. */
  #closeModelCall(out: AgUiEvent[]): void {
    this.#closeReasoning(out);
    if (this.#textOpen) {
      out.push({ type: EventType.TEXT_MESSAGE_END, messageId: this.#currentMessageId() });
      this.#textOpen = false;
    }
    for (const [toolCallId, call] of this.#calls) {
      if (call.open && call.parentMessageId === this.#messageId) this.#endCall(out, toolCallId, call);
    }
    if (this.#stepName !== undefined) {
      out.push({ type: EventType.STEP_FINISHED, stepName: this.#stepName });
      this.#stepName = undefined;
    }
  }

  /**
   * Sends `TOOL_CALL_START` for a call not announced yet (with its whole arguments when they are known), and ends a
   * call that is complete (`open: false`) but still open.
   */
  #announce(
    out: AgUiEvent[],
    toolCallId: string,
    toolName: string,
    parentMessageId: string | undefined,
    options: { open: boolean; arguments?: string; metadata?: Record<string, string> },
  ): void {
    let call = this.#calls.get(toolCallId);
    if (call === undefined) {
      call = { parentMessageId, open: true };
      this.#calls.set(toolCallId, call);
      out.push({
        type: EventType.TOOL_CALL_START,
        toolCallId,
        toolCallName: toolName,
        ...(parentMessageId === undefined ? {} : { parentMessageId }),
        ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
      });
      if (options.arguments !== undefined && options.arguments !== '') {
        out.push({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta: options.arguments });
      }
    }
    if (!options.open && call.open) this.#endCall(out, toolCallId, call);
  }

  #endCall(out: AgUiEvent[], toolCallId: string, call: AnnouncedCall): void {
    call.open = false;
    out.push({ type: EventType.TOOL_CALL_END, toolCallId });
    if (call.deferredResult !== undefined) {
      out.push(call.deferredResult);
      delete call.deferredResult;
    }
  }

  /** Announces a nested call (with its whole arguments when known) unless it was already. */
  #startNested(out: AgUiEvent[], nested: NestedCall, args?: string): void {
    this.#announce(out, nested.toolCallId, nested.toolName, this.parentMessageIdOf(nested.parentToolCallId), {
      open: false,
      metadata: { parentToolCallId: nested.parentToolCallId },
      ...(args === undefined ? {} : { arguments: args }),
    });
  }

  #result(out: AgUiEvent[], toolCallId: string, content: string): void {
    const result: AgUiEvent = {
      type: EventType.TOOL_CALL_RESULT,
      messageId: toolResultMessageId(toolCallId),
      toolCallId,
      content,
      role: 'tool',
    };
    const call = this.#calls.get(toolCallId);
    if (call?.open === true) call.deferredResult = result;
    else out.push(result);
  }

  #isAwaitingFrontEnd(observation: { toolName: string; status: ObservationStatus }): boolean {
    return observation.status === 'success' && this.#frontEndToolNames.has(observation.toolName);
  }
}

/** The nested call an event describes: a plan step, or a tool call whose event names its parent call. */
function nestedCallOf(event: RunEvent): NestedCall | undefined {
  if (event.type === 'plan-step-started' || event.type === 'plan-step-finished') {
    return {
      parentToolCallId: event.planId ?? 'plan',
      toolCallId: planStepCallId(event.planId, event.stepId),
      toolName: event.toolName,
    };
  }
  if (event.type !== 'tool-call-started' && event.type !== 'tool-call-finished') return undefined;
  // Calls made by a program (code mode) name the call that runs the program; read as an own field only.
  const parent = Object.hasOwn(event, 'parentToolCallId')
    ? (event as { parentToolCallId?: unknown }).parentToolCallId
    : undefined;
  if (typeof parent !== 'string') return undefined;
  return event.type === 'tool-call-started'
    ? { parentToolCallId: parent, toolCallId: event.action.id, toolName: event.action.toolName }
    : {
        parentToolCallId: parent,
        toolCallId: event.observation.actionId,
        toolName: event.observation.toolName,
      };
}

/** A nested call's arguments as the JSON text `TOOL_CALL_ARGS` carries; `undefined` when they are not JSON. */
function argumentsText(args: unknown): string | undefined {
  if (args === undefined) return undefined;
  try {
    return JSON.stringify(args);
  } catch {
    // Cyclic or BigInt arguments (a tool's own progress): the call is shown without them.
    return undefined;
  }
}

function stepResultText(status: ObservationStatus, error: ObservationError | undefined): string {
  return JSON.stringify(
    error === undefined ? { status } : { status, error: { code: error.code, message: error.message } },
  );
}

function custom(event: RunEvent): AgUiEvent {
  return { type: EventType.CUSTOM, name: event.type, value: event };
}
