import type { Message, ToolCall } from '@org/core';
import type { ToolRunView } from '@org/tools';

/**
 * The read-only view of a run that a step's tool calls receive (`context.run`). Built once per step and cheap: the
 * history's frozen copy is made on the first read only (most tools never read it), and covers the messages that were
 * there when the step's calls started, whatever the loop appends later.
 */
export function createRunView(
  runId: string,
  step: number,
  history: readonly Message[],
  toolCalls: readonly ToolCall[],
): ToolRunView {
  return new RunView(runId, step, history, toolCalls);
}

/**
 * A class rather than an object literal with getters: the getters live once on the prototype, so a view costs one
 * small object per step (the loop's hottest path builds one for every step with calls).
 */
class RunView implements ToolRunView {
  readonly runId: string;
  readonly step: number;
  readonly #history: readonly Message[];
  readonly #length: number;
  readonly #toolCalls: readonly ToolCall[];
  #frozenHistory: readonly Message[] | undefined;
  #frozenCalls: readonly ToolCall[] | undefined;

  constructor(runId: string, step: number, history: readonly Message[], toolCalls: readonly ToolCall[]) {
    this.runId = runId;
    this.step = step;
    this.#history = history;
    this.#length = history.length;
    this.#toolCalls = toolCalls;
    Object.freeze(this);
  }

  get history(): readonly Message[] {
    this.#frozenHistory ??= Object.freeze(this.#history.slice(0, this.#length).map(frozenMessage));
    return this.#frozenHistory;
  }

  get toolCalls(): readonly ToolCall[] {
    this.#frozenCalls ??= Object.freeze(this.#toolCalls.map(frozenCall));
    return this.#frozenCalls;
  }
}

function frozenCall(call: ToolCall): ToolCall {
  return Object.freeze({ ...call });
}

/** A frozen copy: the loop's own message objects are never handed out, so a tool cannot edit them. */
function frozenMessage(message: Message): Message {
  if (message.role === 'assistant' && message.toolCalls !== undefined) {
    return Object.freeze({ ...message, toolCalls: Object.freeze(message.toolCalls.map(frozenCall)) });
  }
  return Object.freeze({ ...message });
}
