import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  EndpointProcess,
  http,
  readLedger,
  registerDeployment,
  restateServer,
  scratchDirectory,
  uniqueSuffix,
  waitFor,
} from './__fixtures__/restate-test-kit.js';
import type { DurableAgentResult } from './index.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a durable run survives the death of its process (real restate-server on 127.0.0.1)', () => {
  it('resumes on a new process from its journal: every side effect once, no completed model call again', async () => {
    const { ingressUrl } = restateServer();
    const scratch = scratchDirectory();
    cleanups.push(() => scratch.remove());
    const ledger = path.join(scratch.path, 'ledger.txt');
    const agentName = `crash_agent_${uniqueSuffix().replaceAll('-', '_')}`;
    const env = { LEDGER_FILE: ledger, AGENT_NAME: agentName };

    const first = await EndpointProcess.start('crash-agent.endpoint.mjs', { ...env, HANG_SHIP: '1' });
    cleanups.push(() => first.kill());
    await registerDeployment(first);
    const started = await http('POST', `${ingressUrl}/${agentName}/order-7/run/send`, {
      task: 'Charge and ship order o-7, then tell the customer.',
    });
    expect(started.status, started.text).toBeLessThan(300);

    // `ship_order` starts only once `charge_card`, its dependency, has finished and its result is journaled: the
    // engine acknowledged it before the plan could move on.
    await waitFor('ship_order to start in the first process', async () =>
      readLedger(ledger).some(({ entry }) => entry.startsWith('ship started')) ? true : undefined,
    );
    await first.kill();
    const beforeRestart = readLedger(ledger);

    const second = await EndpointProcess.start('crash-agent.endpoint.mjs', env, first.port);
    cleanups.push(() => second.kill());
    const attached = await http('GET', `${ingressUrl}/restate/workflow/${agentName}/order-7/attach`);
    expect(attached.status, attached.text).toBe(200);
    const result = attached.json as DurableAgentResult;
    expect(result).toMatchObject({ runId: 'order-7', finishReason: 'final-answer', roundTrips: 2 });
    expect(result.text).toMatch(/^Order o-7 is charged and shipped\./);

    const entries = readLedger(ledger);
    const by = (prefix: string) => entries.filter(({ entry }) => entry.startsWith(prefix));
    // The first process planned (one model call), charged, audited, started shipping, and died.
    expect(beforeRestart.map(({ pid, entry }) => [pid, entry.split(' ')[0]])).toEqual(
      expect.arrayContaining([
        [first.pid, 'model'],
        [first.pid, 'charge'],
        [first.pid, 'audit'],
        [first.pid, 'ship'],
      ]),
    );
    // Each side effect took place once; what had completed was not run again by the second process.
    expect(by('charge ')).toEqual([{ pid: first.pid, entry: 'charge o-7 1250' }]);
    expect(by('audit ')).toEqual([{ pid: first.pid, entry: 'audit order o-7 placed' }]);
    expect(by('ship o-7')).toEqual([{ pid: second.pid, entry: 'ship o-7' }]);
    expect(by('notify ')).toEqual([{ pid: second.pid, entry: 'notify T-o-7' }]);
    // Two model calls in all: the plan (first process, replayed from the journal) and the answer (second process).
    expect(by('model call')).toEqual([
      { pid: first.pid, entry: 'model call after 0 tool result(s)' },
      { pid: second.pid, entry: 'model call after 1 tool result(s)' },
    ]);
    // The plan, as the model saw it, succeeded.
    expect(result.observations[0]).toMatchObject({ toolName: 'execute_tool_plan', status: 'success' });
  });
});
