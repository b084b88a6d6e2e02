// The guide's example in one command: starts restate-server on 127.0.0.1, the agent endpoint (durable-agent.mjs),
// a run; kills the endpoint (SIGKILL) once the run's first plan steps are journaled, while `ship_order` runs; starts
// a new endpoint process; and prints the run's result and its journal. Stops everything it started.
//
//   pnpm build && node packages/restate/examples/crash-and-resume.mjs
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort, startLocalRestateServer } from '../scripts/local-restate-server.mjs';

const endpointScript = fileURLToPath(new URL('./durable-agent.mjs', import.meta.url));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function startEndpoint(port) {
  const child = spawn(process.execPath, [endpointScript], {
    env: { ...process.env, PORT: String(port), RESTATE_LOGGING: 'WARN' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
    process.stdout.write(`  endpoint | ${chunk}`.replaceAll(/\n(?=.)/g, '\n  endpoint | '));
  });
  return { child, output: () => output, exited: new Promise((resolve) => child.once('exit', resolve)) };
}

async function journal(adminUrl, invocationId) {
  const response = await fetch(`${adminUrl}/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({
      query: `SELECT index, entry_type, name FROM sys_journal WHERE id = '${invocationId}' ORDER BY index`,
    }),
  });
  return (await response.json()).rows;
}

console.log('Starting restate-server on 127.0.0.1 (fetched from npm on first use)…');
const server = await startLocalRestateServer({ retry: { initialInterval: '200ms', maxInterval: '1s' } });
const port = await freePort();
let endpoint = startEndpoint(port);
try {
  while (!endpoint.output().includes('serving')) await sleep(50);
  await server.registerDeployment(`http://127.0.0.1:${port}`);
  const started = await fetch(`${server.ingressUrl}/orders/order-42/run/send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ task: 'Ship order o-42 and tell the customer.' }),
  });
  const { invocationId } = await started.json();
  console.log(`\nStarted run order-42 (${invocationId}). Waiting for ship_order to start…\n`);
  // ship_order starts once charge_card and reserve_stock are done and journaled.
  while (!endpoint.output().includes('ship_order started')) await sleep(50);
  console.log('\nKilling the endpoint (SIGKILL) while ship_order runs.');
  endpoint.child.kill('SIGKILL');
  await endpoint.exited;
  console.log('\nThe journal so far:');
  for (const row of await journal(server.adminUrl, invocationId)) {
    console.log(`  ${String(row.index).padStart(2)} ${row.entry_type}${row.name ? `  ${row.name}` : ''}`);
  }
  console.log('\nStarting a new endpoint process; the engine resumes the run there from its journal.\n');
  endpoint = startEndpoint(port);
  const result = await (await fetch(`${server.ingressUrl}/restate/workflow/orders/order-42/attach`)).json();
  console.log(`\nResult: ${result.finishReason}: ${result.text}`);
  console.log(
    'The model was called once per process, the first plan steps ran once, in the first process: see the pids above.',
  );
} finally {
  endpoint.child.kill('SIGKILL');
  await endpoint.exited;
  await server.stop();
}
