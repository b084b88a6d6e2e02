import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { startLocalRestateServer } from '../../scripts/local-restate-server.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    restate: { readonly adminUrl: string; readonly ingressUrl: string };
  }
}

const packageDirectory = fileURLToPath(new URL('../..', import.meta.url));

/** The newest modification time of the package's non-test sources. */
function newestSource(directory: string): number {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const file = path.join(directory, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== '__fixtures__') newest = Math.max(newest, newestSource(file));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
      newest = Math.max(newest, statSync(file).mtimeMs);
    }
  }
  return newest;
}

/**
 * The endpoint processes the tests start import the built package (as a user's endpoint would): build it when its
 * `dist` is missing or older than its sources (`pnpm test` builds it first; this serves `npx vitest run`).
 */
function ensureBuilt(): void {
  const entry = path.join(packageDirectory, 'dist', 'index.js');
  if (existsSync(entry) && statSync(entry).mtimeMs >= newestSource(path.join(packageDirectory, 'src')))
    return;
  const build = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], {
    cwd: packageDirectory,
    encoding: 'utf8',
  });
  if (build.status !== 0)
    throw new Error(
      `Building @org/restate for the endpoint processes failed:\n${build.stdout}${build.stderr}`,
    );
}

/** One restate-server on 127.0.0.1 for every test file of the package; stopped (and its data removed) at the end. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  ensureBuilt();
  const server = await startLocalRestateServer({
    // A crashed endpoint is retried within half a second, so a restart is picked up at once.
    retry: { initialInterval: '100ms', maxInterval: '500ms' },
    log: (message) => console.log(message),
  });
  project.provide('restate', { adminUrl: server.adminUrl, ingressUrl: server.ingressUrl });
  return () => server.stop();
}
