import { join } from 'node:path';
import type { RunEvent } from '@org/core';
import { type DevtoolsListener, devtoolsListener, startDevtoolsServer } from '@org/devtools';

/** The run viewer of `--ui`: a recorder for the runs and the page that shows them. */
export interface DemoUi {
  /** The page's address. */
  readonly url: string;
  /** Records an event (pass every event of every run, as the loop emits it). */
  readonly listener: (event: RunEvent) => void;
  /** The recording file. */
  readonly file: string;
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
  return {
    url: server.url,
    listener: recorder,
    file: recorder.file,
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
