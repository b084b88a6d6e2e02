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
} from './__fixtures__/restate-test-kit.js';
import type { DurableAgentResult } from './index.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('tools served by another process (real restate-server on 127.0.0.1)', () => {
  it('runs a tool service’s tools where the service runs: direct calls and plan steps', async () => {
    const { ingressUrl } = restateServer();
    const scratch = scratchDirectory();
    cleanups.push(() => scratch.remove());
    const suffix = uniqueSuffix().replaceAll('-', '_');
    const env = {
      LEDGER_FILE: path.join(scratch.path, 'ledger.txt'),
      AGENT_NAME: `remote_agent_${suffix}`,
      BROKEN_AGENT_NAME: `broken_agent_${suffix}`,
      TOOLS_SERVICE: `remote_tools_${suffix}`,
      BROKEN_TOOLS_SERVICE: `broken_tools_${suffix}`,
    };
    const toolProcess = await EndpointProcess.start('remote-tools.endpoint.mjs', env);
    cleanups.push(() => toolProcess.kill());
    const agentProcess = await EndpointProcess.start('remote-agent.endpoint.mjs', env);
    cleanups.push(() => agentProcess.kill());
    await registerDeployment(toolProcess);
    await registerDeployment(agentProcess);

    const answer = await http('POST', `${ingressUrl}/${env.AGENT_NAME}/where-1/run`, {
      task: 'Where do tools run?',
    });
    expect(answer.status, answer.text).toBe(200);
    const result = answer.json as DurableAgentResult;
    expect(result).toMatchObject({ finishReason: 'final-answer', roundTrips: 3 });

    // The direct call's result names the tool process, which is not the agent's.
    expect(toolProcess.pid).not.toBe(agentProcess.pid);
    expect(result.observations[0]).toMatchObject({
      toolName: 'remote_where_am_i',
      status: 'success',
      rawOutput: { pid: toolProcess.pid, label: 'direct' },
    });
    expect(result.observations[1]).toMatchObject({ toolName: 'execute_tool_plan', status: 'success' });
    const ledger = readLedger(env.LEDGER_FILE);
    expect(ledger.filter(({ entry }) => entry.startsWith('where_am_i'))).toEqual([
      { pid: toolProcess.pid, entry: 'where_am_i direct' },
      { pid: toolProcess.pid, entry: 'where_am_i plan-first' },
      { pid: toolProcess.pid, entry: 'where_am_i after plan-first' },
    ]);
    expect(ledger.filter(({ entry }) => entry.startsWith('model call')).map(({ pid }) => pid)).toEqual([
      agentProcess.pid,
      agentProcess.pid,
      agentProcess.pid,
    ]);
    // Outside callers cannot reach the tool service through the ingress: approvals cannot be skipped.
    const direct = await http('POST', `${ingressUrl}/${env.TOOLS_SERVICE}/execute`, {
      actionId: 'x',
      toolName: 'where_am_i',
      args: { label: 'outside' },
    });
    expect(direct.status).toBeGreaterThanOrEqual(400);
  });

  it('refuses a tool service that answers out of protocol, naming it', async () => {
    const { ingressUrl } = restateServer();
    const scratch = scratchDirectory();
    cleanups.push(() => scratch.remove());
    const suffix = uniqueSuffix().replaceAll('-', '_');
    const env = {
      LEDGER_FILE: path.join(scratch.path, 'ledger.txt'),
      AGENT_NAME: `remote_agent_${suffix}`,
      BROKEN_AGENT_NAME: `broken_agent_${suffix}`,
      TOOLS_SERVICE: `remote_tools_${suffix}`,
      BROKEN_TOOLS_SERVICE: `broken_tools_${suffix}`,
    };
    const toolProcess = await EndpointProcess.start('remote-tools.endpoint.mjs', env);
    cleanups.push(() => toolProcess.kill());
    const agentProcess = await EndpointProcess.start('remote-agent.endpoint.mjs', env);
    cleanups.push(() => agentProcess.kill());
    await registerDeployment(toolProcess);
    await registerDeployment(agentProcess);

    const answer = await http('POST', `${ingressUrl}/${env.BROKEN_AGENT_NAME}/broken-1/run`, {
      task: 'Anything.',
    });
    expect(answer.status).toBe(502);
    expect(answer.json).toMatchObject({
      message: `The agent could not be set up: Tool service '${env.BROKEN_TOOLS_SERVICE}' answered with an invalid description.version: expected 1, got "2".`,
    });
    expect(readLedger(env.LEDGER_FILE)).toEqual([]);
  });
});
