// Shared by the test endpoints: a ledger of side effects (a file, so it outlives a killed process) and serving.
import { appendFileSync } from 'node:fs';
import { AbortedError } from '@org/core';
import * as restate from '@restatedev/restate-sdk';

/** Appends `<pid> <entry>` to the ledger file the test gave (`LEDGER_FILE`). */
export function record(entry) {
  appendFileSync(process.env.LEDGER_FILE, `${process.pid} ${entry}\n`);
}

/** Serves `services` on `PORT` and says so on stdout; exits when the test runner's pipe to it closes. */
export async function serveEndpoint(services) {
  const port = await restate.serve({ services, port: Number(process.env.PORT) });
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
  process.stdout.write(`listening ${port}\n`);
}

/** The tool results in a model request. */
export const toolResults = (request) => request.messages.filter((message) => message.role === 'tool');

const HOLD_MS = Number(process.env.HOLD_MS ?? 20_000);
const held = new Set();

/**
 * On the first call named `name` in this process: waits for `signal` to abort (then throws, as a well-behaved slow
 * call does) or for HOLD_MS (`HOLD_MS` of the environment, default 20 s; then goes on); later calls go straight on.
 * The ledger says which: `<name> held`, then `<name> aborted` or `<name> never aborted`.
 */
export async function holdOnce(name, signal) {
  if (held.has(name)) return;
  held.add(name);
  record(`${name} held`);
  const aborted = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), HOLD_MS);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(true);
    };
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
  record(aborted ? `${name} aborted` : `${name} never aborted`);
  if (aborted) throw new AbortedError({ operation: name, cause: signal.reason });
}
