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
import type { DurableAgentResult, RestateAgentStatus } from './index.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(): Promise<{
  readonly ledger: string;
  readonly agentName: string;
  readonly env: Record<string, string>;
  readonly first: EndpointProcess;
}> {
  const scratch = scratchDirectory();
  cleanups.push(() => scratch.remove());
  const ledger = path.join(scratch.path, 'ledger.txt');
  const agentName = `approval_agent_${uniqueSuffix().replaceAll('-', '_')}`;
  const env = { LEDGER_FILE: ledger, AGENT_NAME: agentName };
  const first = await EndpointProcess.start('approval-agent.endpoint.mjs', env);
  cleanups.push(() => first.kill());
  await registerDeployment(first);
  return { ledger, agentName, env, first };
}

describe('approvals of a durable run are durable promises (real restate-server on 127.0.0.1)', () => {
  it('waits through a restart, resumes when approved, and refuses a second approval', async () => {
    const { ingressUrl } = restateServer();
    const { ledger, agentName, env, first } = await setUp();
    const base = `${ingressUrl}/${agentName}/cleanup-1`;
    expect((await http('POST', `${base}/run/send`, { task: 'Delete report.txt.' })).status).toBeLessThan(300);

    const status = await waitFor('the run to wait for approval', async () => {
      const answer = await http('POST', `${base}/status`);
      const value = answer.json as RestateAgentStatus;
      return value?.pending === null || value?.pending === undefined ? undefined : value;
    });
    expect(status).toEqual({
      runId: 'cleanup-1',
      pending: {
        round: 1,
        actions: [{ id: 'delete-1', toolName: 'delete_file', args: { path: 'report.txt' } }],
      },
    });

    // The process holding the paused run dies; the pause is in the engine, not in the process.
    await first.kill();
    const second = await EndpointProcess.start('approval-agent.endpoint.mjs', env, first.port);
    cleanups.push(() => second.kill());

    // An approval for something that is not waiting is refused, and decides nothing.
    const wrong = await http('POST', `${base}/approve`, { decisions: { 'delete-2': true } });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain("'delete-2' is not waiting for approval");

    // Two approvals at once, from two callers: the engine lets exactly one decide.
    const [one, two] = await Promise.all([
      http('POST', `${base}/approve`, { decisions: { 'delete-1': true }, round: 1 }),
      http('POST', `${base}/approve`, {
        decisions: { 'delete-1': { approved: false, reason: 'no' } },
        round: 1,
      }),
    ]);
    expect([one?.status, two?.status].sort()).toEqual([200, 409]);
    const refused = one?.status === 409 ? one : two;
    expect(refused?.text).toMatch(/already decided|not waiting for an approval/);

    const attached = await http('GET', `${ingressUrl}/restate/workflow/${agentName}/cleanup-1/attach`);
    expect(attached.status, attached.text).toBe(200);
    const result = attached.json as DurableAgentResult;
    const approvedFirst = one?.status === 200;
    expect(result.finishReason).toBe('final-answer');
    // One usage, the whole run's: both model calls (one each side of the pause) counted once, and no segment's.
    expect(result).not.toHaveProperty('segmentUsage');
    expect(result.steps).toHaveLength(2);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage).toMatchObject({
      inputTokens: result.steps.reduce((sum, step) => sum + step.usage.inputTokens, 0),
      outputTokens: result.steps.reduce((sum, step) => sum + step.usage.outputTokens, 0),
    });
    expect(result.approvals).toEqual([
      {
        round: 1,
        actions: [{ id: 'delete-1', toolName: 'delete_file', args: { path: 'report.txt' } }],
        decisions: { 'delete-1': approvedFirst ? true : { approved: false, reason: 'no' } },
      },
    ]);

    // Later, a third approval is refused too: the run is approved once.
    const late = await http('POST', `${base}/approve`, { decisions: { 'delete-1': true }, round: 1 });
    expect(late.status).toBe(409);
    expect(late.text).toMatch(/already decided|not waiting for an approval/);

    const entries = readLedger(ledger);
    expect(entries.filter(({ entry }) => entry.startsWith('model call'))).toEqual([
      { pid: first.pid, entry: 'model call after 0 tool result(s)' },
      { pid: second.pid, entry: 'model call after 1 tool result(s)' },
    ]);
    expect(entries.filter(({ entry }) => entry.startsWith('delete'))).toEqual(
      approvedFirst ? [{ pid: second.pid, entry: 'delete report.txt' }] : [],
    );
    expect(result.text).toEqual(
      approvedFirst
        ? 'Done: deleted report.txt'
        : expect.stringMatching(/^Done: Blocked \(approval_denied\)/),
    );
  });

  it('a run cancelled while it waits for approval waits no more: approve answers 409, status shows nothing pending', async () => {
    const { adminUrl, ingressUrl } = restateServer();
    const { ledger, agentName } = await setUp();
    const base = `${ingressUrl}/${agentName}/cancelled-1`;
    const sent = await http('POST', `${base}/run/send`, { task: 'Delete report.txt.' });
    expect(sent.status, sent.text).toBeLessThan(300);
    const invocationId = (sent.json as { invocationId: string }).invocationId;
    await waitFor('the run to wait for approval', async () => {
      const answer = await http('POST', `${base}/status`);
      return (answer.json as RestateAgentStatus)?.pending?.round === 1 ? true : undefined;
    });

    // Restate's own cancel, as an operator (or `restate invocations cancel`) sends it.
    const cancel = await http('PATCH', `${adminUrl}/invocations/${invocationId}/cancel`);
    expect(cancel.status, cancel.text).toBeLessThan(300);
    const attached = await http('GET', `${ingressUrl}/restate/workflow/${agentName}/cancelled-1/attach`);
    expect(attached.status, attached.text).toBe(409);
    expect(attached.text).toMatch(/cancel/i);

    const approve = await http('POST', `${base}/approve`, { decisions: { 'delete-1': true } });
    expect(approve.status, approve.text).toBe(409);
    expect(approve.text).toMatch(/not waiting for an approval|cancelled/);
    expect((await http('POST', `${base}/status`)).json).toEqual({ runId: 'cancelled-1', pending: null });
    // Nothing was deleted, and the model was asked once.
    expect(readLedger(ledger).map(({ entry }) => entry)).toEqual(['model call after 0 tool result(s)']);
  });

  it('refuses malformed input with 400 before anything runs', async () => {
    const { ingressUrl } = restateServer();
    const { ledger, agentName } = await setUp();
    const typo = await http('POST', `${ingressUrl}/${agentName}/typo-1/run`, { tsk: 'Delete report.txt.' });
    expect(typo.status).toBe(400);
    expect(typo.json).toMatchObject({
      message:
        'Invalid run input: unknown field "tsk". Expected { task?, messages?, metadata? }; nothing ran.',
    });
    const notJson = await http('POST', `${ingressUrl}/${agentName}/typo-2/status`);
    expect(notJson.json).toEqual({ runId: 'typo-2', pending: null });
    const noRun = await http('POST', `${ingressUrl}/${agentName}/typo-3/approve`, { decisions: {} });
    expect(noRun.status).toBe(409);
    expect(noRun.text).toContain("Run 'typo-3' is not waiting for an approval");
    expect(readLedger(ledger)).toEqual([]);
  });
});
