import { assertToolCallPairing, InvalidMessageHistoryError, type Message } from '@org/core';
import { InvalidAgentOptionsError, InvalidCompiledMessagesError } from './errors.js';

/** Where one recorded step's messages sit in the history: `[start, end)`. */
export interface StepMessages {
  readonly step: number;
  readonly start: number;
  readonly end: number;
}

/** What a message compiler sees before each step's model call(s). */
export interface MessageCompilerContext {
  /** The stored conversation (given messages, task, every recorded step), system prompt excluded. Do not mutate. */
  readonly history: readonly Message[];
  /** Zero-based index of the step about to be planned. */
  readonly step: number;
  /** Index in `history` of this run's first own message: the messages before it were given (`messages`, `task`). */
  readonly runStart: number;
  /** Where each recorded step of this run put its messages (assistant turn and results), in step order. */
  readonly stepMessages: readonly StepMessages[];
}

/**
 * Decides what history a model call sees (seed 004's `CanCompileMessages`, seed 000's filtered history): applied to
 * each step's model call(s), never to the stored history (`result.messages` keeps everything). The output is checked:
 * a non-empty list of user, assistant and tool messages whose calls and results pair (`InvalidCompiledMessagesError`).
 */
export type MessageCompiler = (context: MessageCompilerContext) => readonly Message[];

/**
 * Seed 004's `ConversationWithCurrentToolTrace`: the whole conversation, with tool traces (assistant tool calls and
 * their results) of this run only. Earlier runs' traces in the given `messages` are dropped; an assistant message
 * that also carried text keeps its text. ReAct traces are text and are kept as they are.
 *
 * @example
 * await runAgent({ model, tools, messages: earlierConversation, task, compileMessages: currentRunToolTraces() });
 */
export function currentRunToolTraces(): MessageCompiler {
  return (context) => {
    const given = context.history.slice(0, context.runStart);
    if (!given.some((message) => message.role === 'tool')) return context.history;
    const compiled: Message[] = [];
    for (const message of given) {
      if (message.role === 'tool') continue;
      if (message.role === 'assistant' && message.toolCalls !== undefined && message.toolCalls.length > 0) {
        if (message.content !== '') compiled.push({ role: 'assistant', content: message.content });
        continue;
      }
      compiled.push(message);
    }
    for (let index = context.runStart; index < context.history.length; index++) {
      compiled.push(context.history[index] as Message);
    }
    return compiled;
  };
}

/**
 * Keeps the traces of the last `steps` steps only, so a long run does not resend every old result: the messages of
 * older steps (an assistant turn with its calls together with their results, or a ReAct decision with its
 * observation) are dropped whole, which keeps every call paired with its result. Messages given before the run are
 * kept (combine with your own compiler to drop those too).
 *
 * @example
 * await runAgent({ model, tools, task, maxSteps: 50, compileMessages: recentToolTraces({ steps: 5 }) });
 */
export function recentToolTraces(options: { readonly steps: number }): MessageCompiler {
  const keep = options.steps;
  if (!Number.isInteger(keep) || keep < 1) {
    throw new InvalidAgentOptionsError({
      option: 'compileMessages',
      message: `recentToolTraces: steps must be an integer >= 1, got ${String(keep)}.`,
    });
  }
  return (context) => {
    const oldest = context.step - keep;
    const dropped = context.stepMessages.filter((range) => range.step < oldest && range.end > range.start);
    if (dropped.length === 0) return context.history;
    const compiled: Message[] = [];
    let next = 0;
    for (const range of dropped) {
      for (let index = next; index < range.start; index++) compiled.push(context.history[index] as Message);
      next = range.end;
    }
    for (let index = next; index < context.history.length; index++) {
      compiled.push(context.history[index] as Message);
    }
    return compiled;
  };
}

const ROLES: ReadonlySet<string> = new Set(['user', 'assistant', 'tool']);

/** Runs the compiler and checks what it returned before any model sees it. */
export function compileMessages(
  compiler: MessageCompiler,
  context: MessageCompilerContext,
): readonly Message[] {
  const compiled: unknown = compiler(context);
  if (!Array.isArray(compiled)) {
    throw new InvalidCompiledMessagesError({
      message: `expected an array of messages, got ${compiled === null ? 'null' : typeof compiled}.`,
    });
  }
  if (compiled.length === 0) {
    throw new InvalidCompiledMessagesError({
      message: 'it is empty; a model call needs at least one message.',
    });
  }
  for (const [index, message] of compiled.entries()) {
    const role = (message as { role?: unknown } | null)?.role;
    if (typeof role !== 'string' || !ROLES.has(role)) {
      throw new InvalidCompiledMessagesError({
        message: `message ${index} has role ${JSON.stringify(role)}; expected user, assistant or tool (the system prompt is the run's).`,
        messageIndex: index,
      });
    }
  }
  const messages = compiled as readonly Message[];
  try {
    assertToolCallPairing(messages);
  } catch (error) {
    if (!InvalidMessageHistoryError.isInstance(error)) throw error;
    throw new InvalidCompiledMessagesError({
      message: error.message,
      messageIndex: error.messageIndex,
      cause: error,
    });
  }
  return messages;
}
