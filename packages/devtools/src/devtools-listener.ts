import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { LanguageModel, ModelRequest, RunEvent, RunEventListener, StreamPart } from '@org/core';
import {
  DEFAULT_DEVTOOLS_DIR,
  DEFAULT_MAX_RECORD_BYTES,
  DEFAULT_MAX_STRING_BYTES,
  type ModelRequestEvent,
  RECORD_FILE_SUFFIX,
} from './devtools-record.js';
import { DevtoolsOptionError } from './errors.js';
import { recordLine } from './record-line.js';

/** Options of {@link devtoolsListener}. */
export interface DevtoolsListenerOptions {
  /** The directory to record into (created if missing). Default `.org-devtools` in the working directory. */
  readonly dir?: string;
  /**
   * The file's name inside `dir`, ending in `.jsonl`. Default: the time and the process id
   * (`2026-11-27T07-30-00-000Z-4242.jsonl`), so each process writes its own file.
   */
  readonly fileName?: string;
  /** The largest record (one line), in UTF-8 bytes. Default 65536; at least 1024. */
  readonly maxRecordBytes?: number;
  /** The largest string inside a record; longer ones are cut and the cut listed. Default 16384; at least 256. */
  readonly maxStringBytes?: number;
  /** The wall clock stamped on each record as `recordedAt`. Default `Date.now`. */
  readonly now?: () => number;
}

/** A `RunEventListener` that records every event it hears to a file the viewer reads. */
export interface DevtoolsListener extends RunEventListener {
  /** The absolute path of the file being written. */
  readonly file: string;
  /** Records written so far. */
  readonly recorded: number;
  /**
   * Why the last write failed (a full disk, a closed file), if one did; the events that could not be written are
   * counted in `failedWrites`. A listener never throws into the run it records.
   */
  readonly lastWriteError: Error | undefined;
  readonly failedWrites: number;
  /**
   * The model, recording what each call asks of it (messages, tool specs, tool choice, settings) as a
   * `model-request` record of the run `runId`: the run events carry only counts of those. Pass the same `runId` to
   * `runAgent`, and one wrapped model per run, so each request is shown with its model call.
   *
   * @example
   * const runId = crypto.randomUUID();
   * await runAgent({ model: devtools.recordModel(model, { runId }), runId, tools, task, onEvent: devtools });
   */
  recordModel(model: LanguageModel, options: { readonly runId: string }): LanguageModel;
  /** Closes the file; later events are counted in `failedWrites`. */
  close(): void;
}

/** What a request is recorded with: everything but the signal and the provider options (they may hold secrets). */
function requestEvent(
  model: LanguageModel,
  request: ModelRequest,
  runId: string,
  method: ModelRequestEvent['method'],
  timestamp: number,
): ModelRequestEvent {
  return {
    type: 'model-request',
    timestamp,
    runId,
    provider: model.provider,
    modelId: model.modelId,
    method,
    messages: request.messages,
    tools: request.tools ?? [],
    ...(request.toolChoice === undefined ? {} : { toolChoice: request.toolChoice }),
    ...(request.parallelToolCalls === undefined ? {} : { parallelToolCalls: request.parallelToolCalls }),
    ...(request.maxOutputTokens === undefined ? {} : { maxOutputTokens: request.maxOutputTokens }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.responseFormat === undefined ? {} : { responseFormat: request.responseFormat }),
  };
}

function checkSize(option: string, value: number | undefined, fallback: number, minimum: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < minimum) {
    throw new DevtoolsOptionError({
      option,
      message: `${option} must be an integer of at least ${minimum} bytes; got ${String(value)}.`,
    });
  }
  return value;
}

function defaultFileName(now: number): string {
  return `${new Date(now).toISOString().replace(/[:.]/g, '-')}-${process.pid}${RECORD_FILE_SUFFIX}`;
}

/**
 * Records the events of agent runs (model calls with their tool choice, usage, text and tool calls, tool calls with
 * their arguments, results and timing, plan steps, approvals, adjustments, errors) as JSON lines in a local file,
 * each redacted of secrets and bounded; `npx @org/devtools` (or `startDevtoolsServer`) shows them in a browser,
 * live. Writes are synchronous and in order, so what the page shows is exactly what the loop did, up to the last
 * event before a crash.
 *
 * @example
 * import { devtoolsListener } from '@org/devtools';
 * import { runAgent } from '@org/planner';
 *
 * const devtools = devtoolsListener(); // writes .org-devtools/<time>-<pid>.jsonl
 * await runAgent({ model, tools, task: 'Weather in Rome?', onEvent: devtools });
 * devtools.close();
 * // then: npx @org/devtools   → http://127.0.0.1:4319
 */
export function devtoolsListener(options: DevtoolsListenerOptions = {}): DevtoolsListener {
  const now = options.now ?? Date.now;
  const limits = {
    maxRecordBytes: checkSize('maxRecordBytes', options.maxRecordBytes, DEFAULT_MAX_RECORD_BYTES, 1024),
    maxStringBytes: checkSize('maxStringBytes', options.maxStringBytes, DEFAULT_MAX_STRING_BYTES, 256),
  };
  const fileName = options.fileName ?? defaultFileName(now());
  if (!fileName.endsWith(RECORD_FILE_SUFFIX) || basename(fileName) !== fileName) {
    throw new DevtoolsOptionError({
      option: 'fileName',
      message: `fileName must be a plain file name ending in ${RECORD_FILE_SUFFIX}; got ${JSON.stringify(fileName)}.`,
    });
  }
  const dir = resolve(options.dir ?? DEFAULT_DEVTOOLS_DIR);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, fileName);
  let descriptor: number | undefined = openSync(file, 'a');
  let seq = 0;
  let failedWrites = 0;
  let lastWriteError: Error | undefined;

  const write = (event: RunEvent | ModelRequestEvent): void => {
    try {
      if (descriptor === undefined) throw new Error('the devtools listener is closed');
      const line = `${recordLine(event, seq, now(), limits)}\n`;
      // One write call per line: with O_APPEND, a reader never sees half of one line followed by another.
      writeSync(descriptor, line);
      seq += 1;
    } catch (error) {
      failedWrites += 1;
      lastWriteError = error instanceof Error ? error : new Error(String(error));
    }
  };
  const listener: RunEventListener = (event) => write(event);
  const recordModel = (model: LanguageModel, { runId }: { readonly runId: string }): LanguageModel => {
    // A prototype link keeps every other member of the model (getters, extra methods) as it is.
    const recording = Object.create(model) as LanguageModel;
    return Object.defineProperties(recording, {
      generate: {
        value: (request: ModelRequest) => {
          write(requestEvent(model, request, runId, 'generate', now()));
          return model.generate(request);
        },
      },
      stream: {
        value: (request: ModelRequest): AsyncIterable<StreamPart> => {
          write(requestEvent(model, request, runId, 'stream', now()));
          return model.stream(request);
        },
      },
    });
  };

  return Object.defineProperties(listener, {
    file: { value: file, enumerable: true },
    recorded: { get: () => seq, enumerable: true },
    failedWrites: { get: () => failedWrites, enumerable: true },
    lastWriteError: { get: () => lastWriteError, enumerable: true },
    recordModel: { value: recordModel },
    close: {
      value: (): void => {
        if (descriptor === undefined) return;
        closeSync(descriptor);
        descriptor = undefined;
      },
    },
  }) as DevtoolsListener;
}
