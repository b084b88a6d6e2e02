import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  EndpointProcess,
  http,
  journalEntries,
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

/** The steps that can finish in the first process: everything but `gate` and what waits for it. */
const BEFORE_GATE = ['a1', 'a2', 'a3', 'a4', 'b1', 'b2', 'b3', 'c2', 'c3'];

describe('plan steps replay in the order the journal recorded (real restate-server on 127.0.0.1)', () => {
  it.each([1, 2])(
    'a 12-step plan, 3 at a time, steps finishing out of order, killed mid-plan, completes (run %i)',
    async (attempt) => {
      const { ingressUrl } = restateServer();
      const scratch = scratchDirectory();
      cleanups.push(() => scratch.remove());
      const ledger = path.join(scratch.path, 'ledger.txt');
      const agentName = `dag_agent_${uniqueSuffix().replaceAll('-', '_')}`;
      const env = { LEDGER_FILE: ledger, AGENT_NAME: agentName };
      const first = await EndpointProcess.start('dag-agent.endpoint.mjs', { ...env, HANG_GATE: '1' });
      cleanups.push(() => first.kill());
      await registerDeployment(first);
      const sent = await http('POST', `${ingressUrl}/${agentName}/dag-${attempt}/run/send`, {
        task: 'Run the plan.',
      });
      const invocationId = (sent.json as { invocationId: string }).invocationId;

      // Killed once every step that can finish has finished and its result is in the journal (acknowledged).
      await waitFor('the steps before the gate to be journaled', async () => {
        const done = new Set(readLedger(ledger).map(({ entry }) => entry));
        if (!BEFORE_GATE.every((id) => done.has(`work ${id}`)) || !done.has('gate waiting')) return undefined;
        const runs = (await journalEntries(invocationId)).filter(({ type }) => type === 'Notification: Run');
        // The run's start, the model call, and the nine steps.
        return runs.length >= 2 + BEFORE_GATE.length ? true : undefined;
      });
      await first.kill();

      const second = await EndpointProcess.start('dag-agent.endpoint.mjs', env, first.port);
      cleanups.push(() => second.kill());
      const attached = await http('GET', `${ingressUrl}/restate/workflow/${agentName}/dag-${attempt}/attach`);
      expect(attached.status, attached.text).toBe(200);
      const result = attached.json as DurableAgentResult;
      expect(result.finishReason).toBe('final-answer');
      expect(JSON.stringify(result.observations[0]?.output)).toContain(
        'd1(c1(b1(a1(),a2()),b2(a3()),gate),c2(b3(a4(),a1())),c3(b2(a3()),c2(b3(a4(),a1()))))',
      );

      const entries = readLedger(ledger);
      const ranIn = (entry: string) => entries.filter((line) => line.entry === entry).map(({ pid }) => pid);
      for (const id of BEFORE_GATE) expect(ranIn(`work ${id}`), id).toEqual([first.pid]);
      expect(ranIn('gate open')).toEqual([second.pid]);
      expect(ranIn('work c1')).toEqual([second.pid]);
      expect(ranIn('work d1')).toEqual([second.pid]);
      expect(entries.filter(({ entry }) => entry.startsWith('warning'))).toEqual([]);
      expect(entries.filter(({ entry }) => entry.startsWith('model call')).map(({ pid }) => pid)).toEqual([
        first.pid,
        second.pid,
      ]);
    },
  );
});
