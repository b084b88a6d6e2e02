import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  freePort,
  type LocalRestateServer,
  startLocalRestateServer,
} from '../scripts/local-restate-server.mjs';
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

const NODES = 3;
const RUNS = 6;

/**
 * Three restate-server nodes on 127.0.0.1 as one cluster: every node runs every role (metadata server, admin,
 * worker, log server, ingress); logs and partitions replicated on 2 nodes, so the cluster survives one node's loss.
 * The first node provisions the cluster; the others join it.
 */
async function startCluster(directory: string): Promise<LocalRestateServer[]> {
  const ports: { admin: number; ingress: number; fabric: number }[] = [];
  for (let index = 0; index < NODES; index++) {
    ports.push({ admin: await freePort(), ingress: await freePort(), fabric: await freePort() });
  }
  const metadataAddresses = JSON.stringify(ports.map(({ fabric }) => `http://127.0.0.1:${fabric}/`));
  const clusterName = `test-cluster-${uniqueSuffix()}`;
  const started = await Promise.allSettled(
    ports.map((nodePorts, index) =>
      startLocalRestateServer({
        ports: nodePorts,
        dataDirectory: path.join(directory, `node-${index + 1}`),
        retry: { initialInterval: '100ms', maxInterval: '500ms' },
        environment: {
          RESTATE_CLUSTER_NAME: clusterName,
          RESTATE_NODE_NAME: `node-${index + 1}`,
          RESTATE_AUTO_PROVISION: index === 0 ? 'true' : 'false',
          RESTATE_DEFAULT_REPLICATION: '2',
          RESTATE_METADATA_CLIENT__ADDRESSES: metadataAddresses,
          RESTATE_BIFROST__DEFAULT_PROVIDER: 'replicated',
          RESTATE_ROCKSDB_TOTAL_MEMORY_SIZE: '256MiB',
        },
      }),
    ),
  );
  const nodes = started.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  if (nodes.length < NODES) {
    await Promise.all(nodes.map((node) => node.stop()));
    const failure = started.find((outcome) => outcome.status === 'rejected');
    throw (failure as PromiseRejectedResult).reason;
  }
  return nodes;
}

describe('durable runs on a 3-node Restate cluster that loses a node (restate-server processes on 127.0.0.1)', () => {
  it('finishes every run through another node, the tool calls of cut attempts aborted before they run again', async () => {
    const scratch = scratchDirectory();
    cleanups.push(() => scratch.remove());
    const nodes = await startCluster(path.join(scratch.path, 'cluster'));
    // Killed, not stopped: a node's graceful shutdown waits on its peers; the data goes with the scratch directory.
    cleanups.push(() => Promise.all(nodes.map((node) => node.kill())).then(() => undefined));
    const [first, lost, survivor] = nodes as [LocalRestateServer, LocalRestateServer, LocalRestateServer];

    const ledger = path.join(scratch.path, 'ledger.txt');
    const agentName = `cluster_agent_${uniqueSuffix().replaceAll('-', '_')}`;
    const endpoint = await EndpointProcess.start('cluster-agent.endpoint.mjs', {
      LEDGER_FILE: ledger,
      AGENT_NAME: agentName,
      HOLD_MS: '10000',
    });
    cleanups.push(() => endpoint.kill());
    await first.registerDeployment(endpoint.uri);

    // The runs start through the node about to be lost (once it knows the new deployment).
    const runIds = Array.from({ length: RUNS }, (_, index) => `c-${index + 1}`);
    for (const runId of runIds) {
      await waitFor(`run ${runId} to be accepted`, async () => {
        const sent = await http('POST', `${lost.ingressUrl}/${agentName}/${runId}/run/send`, {
          task: `run ${runId}`,
        });
        return sent.status < 300 ? true : undefined;
      });
    }
    const entriesOf = (runId: string): string[] =>
      readLedger(ledger)
        .map(({ entry }) => entry)
        .filter((entry) => entry.startsWith(`${runId} `))
        .map((entry) => entry.slice(runId.length + 1));
    await waitFor('every run to hold in its tool', async () =>
      runIds.every((runId) => entriesOf(runId).includes('held')) ? true : undefined,
    );

    await lost.kill();

    const results = await Promise.all(
      runIds.map((runId, index) =>
        http(
          'GET',
          `${(index % 2 === 0 ? survivor : first).ingressUrl}/restate/workflow/${agentName}/${runId}/attach`,
          undefined,
          90_000,
        ),
      ),
    );
    for (const [index, attached] of results.entries()) {
      expect(attached.status, attached.text).toBe(200);
      expect(attached.json).toMatchObject({
        finishReason: 'final-answer',
        text: `Finished: ${runIds[index]} done`,
      } satisfies Partial<DurableAgentResult>);
    }

    // A run whose attempt the lost node cut: its tool saw the abort before the engine ran it again (no overlap). A run
    // the loss did not touch: its tool held to the end, once.
    const cut = runIds.filter((runId) => entriesOf(runId).includes('aborted'));
    for (const runId of runIds) {
      expect(entriesOf(runId), runId).toEqual(
        cut.includes(runId)
          ? ['started', 'held', 'aborted', 'started', 'done']
          : ['started', 'held', 'never aborted', 'done'],
      );
    }
    expect(cut.length, 'runs whose attempt the node loss cut').toBeGreaterThan(0);
  }, 180_000);
});
