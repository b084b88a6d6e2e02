import type { Message, ResponseFormat, RunEvent, ToolChoice, ToolSpec } from '@org/core';

/** The version of the record format written to the files; the reader refuses other versions row by row. */
export const DEVTOOLS_RECORD_VERSION = 1;

/** The directory `devtoolsListener` writes to and the viewer reads, relative to the working directory. */
export const DEFAULT_DEVTOOLS_DIR = '.org-devtools';

/** What the files are named: one per recording process, so two processes never interleave a line. */
export const RECORD_FILE_SUFFIX = '.jsonl';

/** The largest line the listener writes (and the reader accepts), in UTF-8 bytes. */
export const DEFAULT_MAX_RECORD_BYTES = 64 * 1024;

/** The largest single string kept in a record (an argument, a result, a message); longer ones are cut, marked. */
export const DEFAULT_MAX_STRING_BYTES = 16 * 1024;

/**
 * One line of a recording file: a run event, redacted of secrets and bounded, with the time it was recorded.
 * `truncated` lists what was cut to fit (`path: shown of total bytes`), so a cut is never silent; `omitted` is set
 * when even the cut event did not fit, and the event then holds only its type, run and time.
 */
export interface DevtoolsRecord {
  readonly v: typeof DEVTOOLS_RECORD_VERSION;
  /** Order of the record in its file (0, 1, ...). */
  readonly seq: number;
  /** Wall-clock milliseconds when it was written (the event's own `timestamp` may be on a virtual clock). */
  readonly recordedAt: number;
  readonly event: RunEvent | ModelRequestEvent;
  readonly truncated?: readonly string[];
  readonly omitted?: string;
}

/**
 * What a model was asked, recorded by a model wrapped with `DevtoolsListener.recordModel`: the run events carry only
 * the number of messages and tools of a call (`inference-started`), not the messages and tool specs themselves. The
 * viewer pairs the n-th request of a run with its n-th model call (a run makes one call at a time).
 */
export interface ModelRequestEvent {
  readonly type: 'model-request';
  /** Wall-clock milliseconds of the call. */
  readonly timestamp: number;
  readonly runId: string;
  readonly provider: string;
  readonly modelId: string;
  /** Which entry point was called. */
  readonly method: 'generate' | 'stream';
  readonly messages: readonly Message[];
  readonly tools: readonly ToolSpec[];
  readonly toolChoice?: ToolChoice;
  readonly parallelToolCalls?: boolean;
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  readonly responseFormat?: ResponseFormat;
}
