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

/** What a `run_code` call returned to the model, read back from the run's observations. */
function programValue(result: DurableAgentResult, toolCallId = 'code-1'): unknown {
  const observation = result.observations.find(({ actionId }) => actionId === toolCallId);
  expect(observation?.status).toBe('success');
  const output = JSON.parse(String(observation?.output)) as {
    status: string;
    value: Record<string, unknown>;
  };
  expect(output.status).toBe('success');
  return output.value;
}

describe('code mode in a durable run (real restate-server on 127.0.0.1)', () => {
  it('resumes a program killed mid-way without running a finished call again, on the same path (Date.now, Math.random)', async () => {
    const { ingressUrl } = restateServer();
    const scratch = scratchDirectory();
    cleanups.push(() => scratch.remove());
    const ledger = path.join(scratch.path, 'ledger.txt');
    const agentName = `code_agent_${uniqueSuffix().replaceAll('-', '_')}`;
    const env = { LEDGER_FILE: ledger, AGENT_NAME: agentName, PROGRAM: 'crash' };

    const first = await EndpointProcess.start('code-agent.endpoint.mjs', { ...env, HANG_GATE: '1' });
    cleanups.push(() => first.kill());
    await registerDeployment(first);
    const sent = await http('POST', `${ingressUrl}/${agentName}/code-1/run/send`, { task: 'Run it.' });
    expect(sent.status, sent.text).toBeLessThan(300);
    const invocationId = (sent.json as { invocationId: string }).invocationId;

    // Killed once the gate waits and every call before it is in the journal (acknowledged by the engine): the
    // run's start, the model call, the program's time and seed, a, b, c, the note and the branch's call.
    await waitFor('the calls before the gate to be journaled', async () => {
      if (!readLedger(ledger).some(({ entry }) => entry === 'gate waiting')) return undefined;
      const runs = (await journalEntries(invocationId)).filter(({ type }) => type === 'Notification: Run');
      return runs.length >= 9 ? true : undefined;
    });
    await first.kill();
    const beforeRestart = readLedger(ledger);

    const second = await EndpointProcess.start('code-agent.endpoint.mjs', env, first.port);
    cleanups.push(() => second.kill());
    const attached = await http('GET', `${ingressUrl}/restate/workflow/${agentName}/code-1/attach`);
    expect(attached.status, attached.text).toBe(200);
    const result = attached.json as DurableAgentResult;
    expect(result).toMatchObject({ runId: 'code-1', finishReason: 'final-answer', roundTrips: 2 });

    // The first process took a branch from its time and randomness and noted them; the replay took the same one.
    const notes = readLedger(ledger).filter(({ entry }) => entry.startsWith('note '));
    expect(notes.map(({ pid }) => pid)).toEqual([first.pid]);
    const [branch, now, random] = (notes[0]?.entry ?? '').slice('note '.length).split(' ');
    const value = programValue(result);
    expect(value).toEqual({
      values: ['done a', 'done b', 'done c', `done ${branch}`, 'done d', 'done e:open'],
      branch,
      now: Number(now),
      random: Number(random),
    });

    const entries = readLedger(ledger);
    const ranIn = (entry: string) => entries.filter((line) => line.entry === entry).map(({ pid }) => pid);
    // Every call that finished before the kill ran once, in the first process; the rest once, in the second.
    for (const id of ['a', 'b', 'c', branch]) expect(ranIn(`work ${id}`), id).toEqual([first.pid]);
    expect(ranIn(`work ${branch === 'low' ? 'high' : 'low'}`)).toEqual([]);
    expect(ranIn('gate open')).toEqual([second.pid]);
    expect(ranIn('work d')).toEqual([second.pid]);
    expect(ranIn('work e:open')).toEqual([second.pid]);
    expect(beforeRestart.every(({ pid }) => pid === first.pid)).toBe(true);
    // Two model calls in all: the program (first process, replayed from the journal) and the answer (second).
    expect(entries.filter(({ entry }) => entry.startsWith('model call'))).toEqual([
      { pid: first.pid, entry: 'model call after 0 tool result(s)' },
      { pid: second.pid, entry: 'model call after 1 tool result(s)' },
    ]);
  });

  it('runs two programs of one answer one after the other, and resumes the second mid-way', async () => {
    const { ingressUrl } = restateServer();
    const scratch = scratchDirectory();
    cleanups.push(() => scratch.remove());
    const ledger = path.join(scratch.path, 'ledger.txt');
    const agentName = `code_two_${uniqueSuffix().replaceAll('-', '_')}`;
    const env = { LEDGER_FILE: ledger, AGENT_NAME: agentName, PROGRAM: 'two' };

    const first = await EndpointProcess.start('code-agent.endpoint.mjs', { ...env, HANG_GATE: '1' });
    cleanups.push(() => first.kill());
    await registerDeployment(first);
    const sent = await http('POST', `${ingressUrl}/${agentName}/two-1/run/send`, { task: 'Run both.' });
    expect(sent.status, sent.text).toBeLessThan(300);
    const invocationId = (sent.json as { invocationId: string }).invocationId;
    // The run's start, the model call, each program's time and seed, p1-a, p1-b and p2-a.
    await waitFor('the second program to wait at the gate', async () => {
      if (!readLedger(ledger).some(({ entry }) => entry === 'gate waiting')) return undefined;
      const runs = (await journalEntries(invocationId)).filter(({ type }) => type === 'Notification: Run');
      return runs.length >= 9 ? true : undefined;
    });
    await first.kill();

    const second = await EndpointProcess.start('code-agent.endpoint.mjs', env, first.port);
    cleanups.push(() => second.kill());
    const attached = await http('GET', `${ingressUrl}/restate/workflow/${agentName}/two-1/attach`);
    expect(attached.status, attached.text).toBe(200);
    const result = attached.json as DurableAgentResult;
    expect(result).toMatchObject({ finishReason: 'final-answer', text: 'Programs finished: 2' });
    expect(programValue(result, 'code-1')).toEqual(['done p1-a', 'done p1-b']);
    expect(programValue(result, 'code-2')).toEqual(['done p2-a', 'open', 'done p2-b']);

    // The first program ended before the second began; nothing that finished ran again.
    const entries = readLedger(ledger).filter(({ entry }) => !entry.startsWith('model call'));
    expect(entries).toEqual([
      { pid: first.pid, entry: 'work p1-a' },
      { pid: first.pid, entry: 'work p1-b' },
      expect.objectContaining({ pid: first.pid }),
      expect.objectContaining({ pid: first.pid }),
      { pid: second.pid, entry: 'gate open' },
      { pid: second.pid, entry: 'work p2-b' },
    ]);
    expect(
      entries
        .slice(2, 4)
        .map(({ entry }) => entry)
        .sort(),
    ).toEqual(['gate waiting', 'work p2-a']);
  });
});
