import { join } from 'node:path';
import type { LanguageModel, ModelRequest, RunEvent, StreamPart } from '@org/core';
import { type DevtoolsListener, devtoolsListener, startDevtoolsServer } from '@org/devtools';

/** The run viewer of `--ui`: a recorder for the runs and the page that shows them. */
export interface DemoUi {
  /** The page's address. */
  readonly url: string;
  /** Records an event (pass every event of every run, as the loop emits it). */
  readonly listener: (event: RunEvent) => void;
  /** The recording file. */
  readonly file: string;
  /**
   * `model`, recording what each call was asked (messages, tools, tool choice) under the run in flight, so the viewer
   * shows each model call's messages (run events carry only their counts). The demo runs one run at a time, so the
   * run in flight is the one `listener` last saw start.
   */
  recordModel(model: LanguageModel): LanguageModel;
  /** Keeps serving until `signal` aborts (Ctrl-C, SIGTERM), then closes; closes at once without a signal. */
  serveUntil(signal: AbortSignal | undefined): Promise<void>;
}

/**
 * Starts `--ui`: records the demo's runs with `devtoolsListener` into `.org-devtools/` under `cwd` and serves the
 * viewer (`@org/devtools`) on 127.0.0.1, before the first run, so each run shows live.
 *
 * @example
 * const ui = await startDemoUi(process.cwd(), 0);
 * console.log(ui.url);
 */
export async function startDemoUi(cwd: string, port: number): Promise<DemoUi> {
  const dir = join(cwd, '.org-devtools');
  const recorder: DevtoolsListener = devtoolsListener({ dir });
  const server = await startDevtoolsServer({ dir, port }).catch((error: unknown) => {
    recorder.close();
    throw error;
  });
  let runInFlight: string | undefined;
  const listener = (event: RunEvent): void => {
    if (event.type === 'run-started') runInFlight = event.runId;
    else if (event.type === 'run-finished' && event.runId === runInFlight) runInFlight = undefined;
    recorder(event);
  };
  /** The model as it is, or recording under the run in flight when there is one. */
  const current = (model: LanguageModel): LanguageModel =>
    runInFlight === undefined ? model : recorder.recordModel(model, { runId: runInFlight });
  return {
    url: server.url,
    listener,
    file: recorder.file,
    recordModel: (model) =>
      // A prototype link keeps every other member of the model (capabilities, ids) as it is.
      Object.defineProperties(Object.create(model) as LanguageModel, {
        generate: { value: (request: ModelRequest) => current(model).generate(request) },
        stream: {
          value: (request: ModelRequest): AsyncIterable<StreamPart> => current(model).stream(request),
        },
      }),
    serveUntil: async (signal) => {
      if (signal !== undefined && !signal.aborted) {
        await new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => resolve(), { once: true }),
        );
      }
      recorder.close();
      await server.close();
    },
  };
}
