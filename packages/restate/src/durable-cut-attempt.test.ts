import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type LocalRestateServer, startLocalRestateServer } from '../scripts/local-restate-server.mjs';
import {
  EndpointProcess,
  http,
  readLedger,
  scratchDirectory,
  uniqueSuffix,
  waitFor,
} from './__fixtures__/restate-test-kit.js';
import type { DurableAgentResult } from './index.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('an attempt the engine cut stops its calls (its own restate-server on 127.0.0.1, killed and restarted)', () => {
  it('aborts the model call, the tool call, the plan step and the program call of a cut attempt before the engine runs them again', async () => {
    const scratch = scratchDirectory();
    cleanups.push(() => scratch.remove());
    const ledger = path.join(scratch.path, 'ledger.txt');
    const dataDirectory = path.join(scratch.path, 'restate-data');
    const retry = { initialInterval: '100ms', maxInterval: '500ms' };
    let server: LocalRestateServer = await startLocalRestateServer({ retry, dataDirectory });
    cleanups.push(() => server.stop());
    const { ports } = server;
    /** The server machine is lost mid-call and comes back: same ports, same data. */
    const crashAndRestart = async (): Promise<void> => {
      await server.kill();
      server = await startLocalRestateServer({ retry, dataDirectory, ports });
    };

    const agentName = `cut_agent_${uniqueSuffix().replaceAll('-', '_')}`;
    const endpoint = await EndpointProcess.start('cut-attempt-agent.endpoint.mjs', {
      LEDGER_FILE: ledger,
      AGENT_NAME: agentName,
    });
    cleanups.push(() => endpoint.kill());
    await server.registerDeployment(endpoint.uri);
    const sent = await http('POST', `${server.ingressUrl}/${agentName}/cut-1/run/send`, { task: 'Go.' });
    expect(sent.status, sent.text).toBeLessThan(300);

    const entries = (): string[] => readLedger(ledger).map(({ entry }) => entry);
    for (const name of ['model', 'direct', 'step', 'code']) {
      await waitFor(`the ${name} call to hold`, async () =>
        entries().includes(`${name} held`) ? true : undefined,
      );
      await crashAndRestart();
    }
    const attached = await http('GET', `${server.ingressUrl}/restate/workflow/${agentName}/cut-1/attach`);
    expect(attached.status, attached.text).toBe(200);
    expect(attached.json).toMatchObject({
      finishReason: 'final-answer',
      text: 'Done after 3 tool results.',
    } satisfies Partial<DurableAgentResult>);

    // Each cut call saw its abort signal at once, before its re-run began (no overlap), and ran to its end once.
    expect(entries()).toEqual([
      'model call after 0 tool result(s)',
      'model held',
      'model aborted',
      'model call after 0 tool result(s)',
      'direct held',
      'direct aborted',
      'direct done',
      'model call after 1 tool result(s)',
      'step held',
      'step aborted',
      'step done',
      'model call after 2 tool result(s)',
      'code held',
      'code aborted',
      'code done',
      'model call after 3 tool result(s)',
    ]);
  });
});
