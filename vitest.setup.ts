import { afterAll, beforeAll } from 'vitest';

/**
 * Open-handle guard, shared by every package's tests: a test file that leaves a server, a socket or a child process
 * behind fails, naming what it left. Unhandled rejections already fail the run (vitest's default).
 * Handles that existed before the file's tests started (the worker's own) are the baseline.
 */
// Timers are not counted: vitest's own hook timers make their count unreliable from inside a test file.
const GUARDED = new Set([
  'TCPServerWrap',
  'TCPSocketWrap',
  'ProcessWrap',
  'Http2Session',
  'UDPWrap',
  'PipeServerWrap',
]);
let baseline = new Map<string, number>();

function countGuarded(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const resource of process.getActiveResourcesInfo()) {
    if (GUARDED.has(resource)) counts.set(resource, (counts.get(resource) ?? 0) + 1);
  }
  return counts;
}

beforeAll(() => {
  baseline = countGuarded();
});

afterAll(async () => {
  // Sockets closed in the last test need a few turns of the event loop to release their handles.
  let leaked: string[] = [];
  for (let attempt = 0; attempt < 20; attempt++) {
    await new Promise((resolve) => setImmediate(resolve));
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 10 * attempt));
    leaked = [...countGuarded()]
      .map(([resource, count]) => [resource, count - (baseline.get(resource) ?? 0)] as const)
      .filter(([, extra]) => extra > 0)
      .map(([resource, extra]) => `${extra} × ${resource}`);
    if (leaked.length === 0) return;
  }
  throw new Error(
    `Open handles left by this test file: ${leaked.join(', ')}. Close the servers, sockets and processes you start.`,
  );
});
