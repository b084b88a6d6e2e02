#!/usr/bin/env node
// A Restate server on 127.0.0.1 for this repository's durable tests, its benchmark and the guide's example.
//
// The server is a ~225 MB binary shipped on npm (`@restatedev/restate-server-<platform>-<arch>`). `pnpm install`
// never fetches it: the first call of `ensureRestateServerBinary()` installs the one platform package with npm into
// `<repo>/.tmp/restate-server/<version>` (about 3 s from the registry), and later calls reuse it. Set
// `RESTATE_SERVER_BIN` to use a binary you already have.
//
// `startLocalRestateServer()` starts it on free ports of 127.0.0.1 (admin, ingress, node-to-node), with its data in a
// fresh temp directory, and returns `stop()`, which ends the process (SIGTERM, then SIGKILL) and removes the data,
// and `kill()`, which ends it at once and keeps the data (a lost machine: start it again on the same `ports` and
// `dataDirectory`). With `environment` (`RESTATE_CLUSTER_NAME`, ...) it starts one node of a cluster.
// Run as a script, it starts one in the foreground and prints its addresses until Ctrl-C:
//
//   node packages/restate/scripts/local-restate-server.mjs
//
// Note: restate-server looks up the latest release on api.github.com when it starts (a DNS query; it cannot be
// turned off). Without network access the lookup fails and the server carries on; nothing else leaves the machine
// (telemetry is disabled here).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The server version the tests and the benchmark run (the SDK 1.17 speaks its protocol). */
export const RESTATE_SERVER_VERSION = '1.7.12';

const PLATFORMS = new Set(['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64']);
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * The path of the restate-server binary: `RESTATE_SERVER_BIN` when set, else the cached platform package, installed
 * with npm on first use. Throws, naming the platforms there are, when this machine's has no package.
 */
export function ensureRestateServerBinary({ log = () => {} } = {}) {
  const fromEnvironment = process.env.RESTATE_SERVER_BIN;
  if (fromEnvironment !== undefined && fromEnvironment !== '') {
    if (!existsSync(fromEnvironment))
      throw new Error(`RESTATE_SERVER_BIN=${fromEnvironment} does not exist.`);
    return fromEnvironment;
  }
  const platform = `${process.platform}-${process.arch}`;
  if (!PLATFORMS.has(platform)) {
    throw new Error(
      `@restatedev/restate-server ships no binary for ${platform} (it has ${[...PLATFORMS].join(', ')}). ` +
        'Set RESTATE_SERVER_BIN to a restate-server binary to run the durable tests here.',
    );
  }
  const packageName = `@restatedev/restate-server-${platform}`;
  const directory = path.join(repoRoot, '.tmp', 'restate-server', RESTATE_SERVER_VERSION);
  const binary = path.join(directory, 'node_modules', ...packageName.split('/'), 'bin', 'restate-server');
  if (existsSync(binary)) return binary;
  // Installed beside the final place, then renamed into it: two processes installing at once both end well.
  const partial = `${directory}.partial-${process.pid}`;
  mkdirSync(partial, { recursive: true });
  log(
    `Fetching ${packageName}@${RESTATE_SERVER_VERSION} (about 225 MB) into ${path.relative(repoRoot, directory)}…`,
  );
  const result = spawnSync(
    'npm',
    [
      'install',
      '--prefix',
      partial,
      '--no-audit',
      '--no-fund',
      '--no-package-lock',
      '--loglevel=error',
      `${packageName}@${RESTATE_SERVER_VERSION}`,
    ],
    { encoding: 'utf8', timeout: 600_000, env: { ...process.env, npm_config_update_notifier: 'false' } },
  );
  if (result.status !== 0) {
    rmSync(partial, { recursive: true, force: true });
    throw new Error(
      `npm could not install ${packageName}@${RESTATE_SERVER_VERSION} (exit ${result.status ?? result.signal}): ` +
        `${(result.stderr || result.error?.message || '').trim().slice(-2000)}`,
    );
  }
  try {
    renameSync(partial, directory);
  } catch (error) {
    // Another process finished first: its copy is as good as ours.
    rmSync(partial, { recursive: true, force: true });
    if (!existsSync(binary)) throw error;
  }
  if (!existsSync(binary)) throw new Error(`${packageName} installed, but ${binary} is missing.`);
  return binary;
}

/** A free TCP port of 127.0.0.1, as the kernel hands out for port 0. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function isHealthy(url) {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * Starts restate-server on 127.0.0.1 and resolves once its admin API and ingress answer. Options: `ports`
 * (`{ admin, ingress, fabric }`; default free ones), `retry` (the invoker's retry policy:
 * `{ initialInterval, maxInterval }`, e.g. `'100ms'`, so a crashed endpoint is retried quickly), `dataDirectory`
 * (the server's base directory, kept by `stop()`: the caller's to remove; default a fresh temp directory, removed),
 * `environment` (more `RESTATE_*` settings, e.g. a cluster node's), `log` (progress messages). Resolves with
 * `{ adminUrl, ingressUrl, ports, pid, registerDeployment(uri), stop(), kill(), output() }`.
 */
export async function startLocalRestateServer({
  ports,
  retry,
  dataDirectory,
  environment = {},
  log = () => {},
} = {}) {
  const binary = ensureRestateServerBinary({ log });
  const settings = { retry, dataDirectory, environment };
  if (ports !== undefined) return startOnce(binary, ports, settings);
  let lastError;
  // A free port can be taken between our probe and the server's bind: try again with fresh ports.
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      return await startOnce(
        binary,
        { admin: await freePort(), ingress: await freePort(), fabric: await freePort() },
        settings,
      );
    } catch (error) {
      lastError = error;
      log(`restate-server did not start (attempt ${attempt}): ${error.message}`);
    }
  }
  throw lastError;
}

async function startOnce(
  binary,
  { admin, ingress, fabric },
  { retry, dataDirectory: given, environment: more },
) {
  const dataDirectory = given ?? mkdtempSync(path.join(tmpdir(), 'restate-data-'));
  const removeData = () => {
    if (given === undefined) rmSync(dataDirectory, { recursive: true, force: true });
  };
  const environment = {
    ...process.env,
    RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${admin}`,
    RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingress}`,
    RESTATE_BIND_ADDRESS: `127.0.0.1:${fabric}`,
    RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${fabric}/`,
    RESTATE_DISABLE_TELEMETRY: 'true',
    RESTATE_ADMIN__DISABLE_WEB_UI: 'true',
    RESTATE_DEFAULT_NUM_PARTITIONS: '4',
    RESTATE_ROCKSDB_TOTAL_MEMORY_SIZE: '512MiB',
    RESTATE_LOG_FILTER: 'warn',
    RESTATE_LOG_DISABLE_ANSI_CODES: 'true',
    ...(retry === undefined
      ? {}
      : {
          RESTATE_DEFAULT_RETRY_POLICY__INITIAL_INTERVAL: retry.initialInterval,
          RESTATE_DEFAULT_RETRY_POLICY__MAX_INTERVAL: retry.maxInterval,
        }),
    ...more,
  };
  const child = spawn(binary, ['--no-logo', '--listen-mode', 'tcp', '--base-dir', dataDirectory], {
    env: environment,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk) => {
    output = (output + chunk).slice(-8_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let hasExited = false;
  exited.then(() => {
    hasExited = true;
  });

  // If this process ends without stopping the server (a crash, process.exit), the server goes with it.
  const onExit = () => {
    if (!hasExited) child.kill('SIGKILL');
    removeData();
  };
  process.once('exit', onExit);

  const stop = async () => {
    process.removeListener('exit', onExit);
    if (!hasExited) {
      child.kill('SIGTERM');
      const outcome = await Promise.race([exited, sleep(10_000).then(() => 'timeout')]);
      if (outcome === 'timeout') {
        child.kill('SIGKILL');
        await exited;
      }
    }
    child.stdout.destroy();
    child.stderr.destroy();
    removeData();
  };

  /** Ends the process at once (SIGKILL: a machine lost), keeping its data: start it again on the same directory. */
  const kill = async () => {
    process.removeListener('exit', onExit);
    if (!hasExited) child.kill('SIGKILL');
    await exited;
    child.stdout.destroy();
    child.stderr.destroy();
  };

  const adminUrl = `http://127.0.0.1:${admin}`;
  const ingressUrl = `http://127.0.0.1:${ingress}`;
  const deadline = Date.now() + 60_000;
  while (!(await isHealthy(`${adminUrl}/health`)) || !(await isHealthy(`${ingressUrl}/restate/health`))) {
    if (hasExited || Date.now() > deadline) {
      await stop();
      throw new Error(
        `restate-server ${hasExited ? 'exited' : 'did not become healthy within 60 s'}; its output:\n${output}`,
      );
    }
    await sleep(50);
  }

  /** Registers (or, with `force`, re-registers) the endpoint at `uri` through the admin API. */
  const registerDeployment = async (uri, { force = true } = {}) => {
    const response = await fetch(`${adminUrl}/deployments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ uri, force }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`registering ${uri} failed (${response.status}): ${text}`);
    return JSON.parse(text);
  };

  return {
    adminUrl,
    ingressUrl,
    ports: { admin, ingress, fabric },
    pid: child.pid,
    registerDeployment,
    stop,
    kill,
    output: () => output,
  };
}

// As a script: one server in the foreground on Restate's usual ports (ingress 8080, admin 9070, node-to-node 5122),
// until Ctrl-C. `--ingress-port`, `--admin-port` and `--fabric-port` choose others.
if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const flag = (name, fallback) => {
    const index = process.argv.indexOf(`--${name}`);
    return index === -1 ? fallback : Number(process.argv[index + 1]);
  };
  const server = await startLocalRestateServer({
    ports: {
      ingress: flag('ingress-port', 8080),
      admin: flag('admin-port', 9070),
      fabric: flag('fabric-port', 5122),
    },
    log: (message) => console.error(message),
  });
  console.log(`restate-server ${RESTATE_SERVER_VERSION} is up (pid ${server.pid}).`);
  console.log(`  admin:   ${server.adminUrl}`);
  console.log(`  ingress: ${server.ingressUrl}`);
  console.log('Ctrl-C stops it and removes its data.');
  const shutdown = async () => {
    await server.stop();
    process.exit(0);
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}
