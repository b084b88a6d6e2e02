// Shared by the test endpoints: a ledger of side effects (a file, so it outlives a killed process) and serving.
import { appendFileSync } from 'node:fs';
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
