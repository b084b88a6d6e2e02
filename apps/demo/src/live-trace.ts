import type { RunEvent } from '@org/core';
import { describeEvent, type EarlyStart, seconds, stamp } from './report.js';

/** Options of {@link createLiveTrace}. */
export interface LiveTraceOptions {
  /** The run's start on its clock: every line is stamped with the time since. */
  readonly startedAt: number;
  /** ReAct: the tools are described in the system prompt, not sent as native tools. */
  readonly toolsInPrompt?: boolean;
  /**
   * Print the model's text as it streams, on the line it is writing (for a terminal). Default false: each stretch of
   * streamed text is printed once complete, on one line stamped with when it started and ended streaming, so that a
   * log (CI, a file, a test) stays one event per line.
   */
  readonly inline?: boolean;
  /** Writes text as is (lines end with `\n`; inline text does not). */
  readonly write: (text: string) => void;
}

/** The live trace of one run: feed it every event, in order, and end it after the run. */
export interface LiveTrace {
  readonly onEvent: (event: RunEvent) => void;
  /** Ends a line the model's inline text left open. */
  end(): void;
}

/** Characters of one stretch of streamed text shown on its line; the rest is counted, not shown. */
const SHOWN_CHARACTERS = 400;

type StreamKind = 'text' | 'reasoning';

/** Events that are more of the model's answer: the model is still writing. */
const MODEL_PARTS: ReadonlySet<RunEvent['type']> = new Set([
  'text-delta',
  'reasoning-delta',
  'tool-call-streaming-started',
  'tool-call-arguments-delta',
  'tool-call-arguments-complete',
]);

interface Stretch {
  /** The model call's step. */
  readonly step: number;
  shown: string;
  length: number;
  readonly firstAt: number;
  lastAt: number;
}

/**
 * Control characters, and the bidirectional controls that reorder what a terminal shows: model text must not steer
 * the terminal it is printed on.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters it escapes.
const UNPRINTABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

function escapeUnprintable(text: string): string {
  return text.replace(
    UNPRINTABLE,
    (char) => `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );
}

/** Model text on one line: line breaks and tabs written as `\n` and `\t`, other controls escaped. */
function oneLine(text: string): string {
  return escapeUnprintable(text.replaceAll('\r', '\\r').replaceAll('\n', '\\n').replaceAll('\t', '\\t'));
}

/**
 * The live trace of a run: one stamped line per lifecycle event (`describeEvent`), the model's text as it streams,
 * the calls it starts writing, and, for a tool call or plan step that started before the model had finished its
 * answer, `started early, while model call N was still writing` (an `eager` tool, a plan dispatched as it streamed).
 *
 * @example
 * const trace = createLiveTrace({ startedAt: clock.now(), inline: process.stdout.isTTY === true, write });
 * await runAgent({ model, tools, task, clock, onEvent: trace.onEvent });
 * trace.end();
 */
export function createLiveTrace(options: LiveTraceOptions): LiveTrace {
  const { startedAt, write } = options;
  const inline = options.inline === true;
  /** The step of the model call in progress. */
  let writing: number | undefined;
  const stretches = new Map<StreamKind, Stretch>();
  /** Calls of the answer being written whose arguments are streaming, and those whose arguments are complete. */
  const streamingCalls = new Set<string>();
  const completeCalls = new Set<string>();
  /**
   * Calls that started on their streaming arguments (`tool-call-started` carried `{}`): their
   * `tool-call-arguments-complete` is printed, since it is the first event to hold their arguments.
   */
  const startedStreaming = new Set<string>();
  let openInline: StreamKind | undefined;

  const endInline = (): void => {
    if (openInline === undefined) return;
    write('\n');
    openInline = undefined;
  };
  /** Prints the text streamed since the last line, one line per kind, stamped with when it ended. */
  const flushStretches = (): void => {
    for (const [kind, stretch] of stretches) {
      const more = stretch.length - stretch.shown.length;
      write(
        `${stamp(stretch.lastAt - startedAt)} model call ${stretch.step + 1} ${kind === 'text' ? 'wrote' : 'reasoned'}, streamed from +${seconds(stretch.firstAt - startedAt)}: ${oneLine(stretch.shown)}${more > 0 ? `… (${more} more characters)` : ''}\n`,
      );
    }
    stretches.clear();
  };
  const line = (text: string): void => {
    endInline();
    flushStretches();
    write(`${text}\n`);
  };
  const streamed = (kind: StreamKind, step: number, delta: string, timestamp: number): void => {
    if (inline) {
      if (openInline !== kind) {
        endInline();
        flushStretches();
        write(
          `${stamp(timestamp - startedAt)} model call ${step + 1} ${kind === 'text' ? 'writes' : 'reasons'}: `,
        );
        openInline = kind;
      }
      // Line breaks go on under the text; every other control character (a carriage return too) is escaped.
      write(escapeUnprintable(delta).replaceAll('\n', `\n${' '.repeat(16)}`));
      return;
    }
    const stretch = stretches.get(kind) ?? {
      step,
      shown: '',
      length: 0,
      firstAt: timestamp,
      lastAt: timestamp,
    };
    if (stretch.shown.length < SHOWN_CHARACTERS) {
      stretch.shown += delta.slice(0, SHOWN_CHARACTERS - stretch.shown.length);
    }
    stretch.length += delta.length;
    stretch.lastAt = timestamp;
    stretches.set(kind, stretch);
  };
  /** What a start during the model's answer is marked with; nothing when the answer was complete. */
  const earlyStart = (toolCallId?: string): EarlyStart | undefined => {
    if (writing === undefined) return undefined;
    // A tool that reads its arguments as they stream starts before its `tool-call-arguments-complete`.
    const argumentsStreaming =
      toolCallId !== undefined && streamingCalls.has(toolCallId) && !completeCalls.has(toolCallId);
    if (argumentsStreaming) startedStreaming.add(toolCallId);
    return { modelCall: writing + 1, ...(argumentsStreaming ? { argumentsStreaming } : {}) };
  };
  const describe = (event: RunEvent, early?: EarlyStart): void => {
    const text = describeEvent(event, startedAt, {
      ...(options.toolsInPrompt === undefined ? {} : { toolsInPrompt: options.toolsInPrompt }),
      ...(early === undefined ? {} : { early }),
      ...(event.type === 'tool-call-arguments-complete' && startedStreaming.has(event.toolCallId)
        ? { callStarted: true }
        : {}),
    });
    if (text !== undefined) line(escapeUnprintable(text));
  };

  /**
   * Calls and steps that started while the model was writing, not printed yet: a call complete in the stream starts
   * at once, often in the same instant as the answer ends (its last token). It started early only if the model was
   * still writing after it: a later event, or more of the answer, says so; the answer ending in that instant says not.
   */
  let held: { readonly event: RunEvent; readonly early: EarlyStart }[] = [];
  const release = (early: boolean): void => {
    const pending = held;
    held = [];
    for (const start of pending) describe(start.event, early ? start.early : undefined);
  };
  const settleHeld = (event: RunEvent): void => {
    const heldAt = held[0]?.event.timestamp;
    if (heldAt === undefined) return;
    if (event.type === 'inference-finished' || event.type === 'inference-failed') {
      release(event.timestamp > heldAt);
    } else if (event.timestamp > heldAt || MODEL_PARTS.has(event.type)) {
      release(true);
    } else if (event.type !== 'tool-call-started' && event.type !== 'plan-step-started') {
      // Something else in the same instant: nothing shows the model was still writing.
      release(false);
    }
  };
  const startEvent = (event: RunEvent, early: EarlyStart | undefined): void => {
    if (early === undefined) describe(event);
    else held.push({ event, early });
  };

  const onEvent = (event: RunEvent): void => {
    settleHeld(event);
    switch (event.type) {
      case 'inference-started':
        describe(event);
        writing = event.step;
        streamingCalls.clear();
        completeCalls.clear();
        startedStreaming.clear();
        return;
      case 'text-delta':
        streamed('text', event.step, event.delta, event.timestamp);
        return;
      case 'reasoning-delta':
        streamed('reasoning', event.step, event.delta, event.timestamp);
        return;
      case 'tool-call-streaming-started':
        streamingCalls.add(event.toolCallId);
        line(
          `${stamp(event.timestamp - startedAt)} model call ${event.step + 1} … writing a call to ${oneLine(event.toolName)}`,
        );
        return;
      case 'tool-call-arguments-delta':
        return;
      case 'tool-call-arguments-complete':
        completeCalls.add(event.toolCallId);
        describe(event);
        return;
      case 'inference-finished':
      case 'inference-failed':
        endInline();
        flushStretches();
        writing = undefined;
        describe(event);
        return;
      case 'tool-call-started':
        startEvent(event, earlyStart(event.action.id));
        return;
      case 'plan-step-started':
        startEvent(event, earlyStart());
        return;
      default:
        describe(event);
    }
  };
  return {
    onEvent,
    end: () => {
      release(false);
      endInline();
      flushStretches();
    },
  };
}
