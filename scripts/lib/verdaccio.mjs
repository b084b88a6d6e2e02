// A throwaway Verdaccio registry on 127.0.0.1 for the release check.
//
// Verdaccio is installed with npm, outside the pnpm workspace, into <repo>/.tmp/verdaccio-<version>/ and reused
// from there. verdaccio@6.8.0 (the newest that runs on Node 20) depends on verdaccio-audit@13.0.3, which asks
// for `node-fetch@cjs`, a dist-tag the npm registry does not have, so a plain install fails; the generated
// package.json overrides it with node-fetch 2.7.0 (the CommonJS line that tag meant). Its dependency tree is
// resolved as the registry stood on REGISTRY_DATE (`npm --before`): a registry can list a new release before the
// releases it depends on, which once failed CI's install of an unrelated package, and a date makes it reproducible.
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { onCleanup, run, startBackground } from './process.mjs';

export const VERDACCIO_VERSION = '6.8.0';
/** Verdaccio's dependencies are the newest published before this instant (6.8.0 came out on 2026-07-15). */
const REGISTRY_DATE = '2026-11-01T00:00:00Z';

const INSTALL_MANIFEST = {
  name: 'release-check-verdaccio',
  private: true,
  description: 'Verdaccio for scripts/release-check.mjs, installed outside the pnpm workspace.',
  dependencies: { verdaccio: VERDACCIO_VERSION },
  overrides: { 'node-fetch': '2.7.0' },
};

/** Installs Verdaccio under `<cacheRoot>/verdaccio-<version>` unless already there; returns its bin path. */
export async function ensureVerdaccio(cacheRoot) {
  const target = path.join(cacheRoot, `verdaccio-${VERDACCIO_VERSION}`);
  const manifestText = `${JSON.stringify(INSTALL_MANIFEST, null, 2)}\n`;
  const bin = (root) => path.join(root, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
  const installedVersion = (root) => {
    try {
      return JSON.parse(readFileSync(path.join(root, 'node_modules', 'verdaccio', 'package.json'), 'utf8'))
        .version;
    } catch {
      return undefined;
    }
  };
  const upToDate = (root) =>
    existsSync(path.join(root, '.complete')) &&
    readFileSync(path.join(root, 'package.json'), 'utf8') === manifestText &&
    installedVersion(root) === VERDACCIO_VERSION;
  if (upToDate(target)) return { bin: bin(target), installed: false };

  // Install into a private directory, then rename it into place: concurrent runs never see half an install.
  mkdirSync(cacheRoot, { recursive: true });
  const staging = `${target}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging);
  const removeStaging = onCleanup(() => rmSync(staging, { recursive: true, force: true }));
  try {
    writeFileSync(path.join(staging, 'package.json'), manifestText);
    await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: staging,
      env: {
        ...process.env,
        npm_config_registry: 'https://registry.npmjs.org/',
        npm_config_update_notifier: 'false',
        npm_config_before: REGISTRY_DATE,
      },
      timeoutMs: 240_000,
    });
    if (installedVersion(staging) !== VERDACCIO_VERSION) {
      throw new Error(`npm installed verdaccio ${installedVersion(staging)}, expected ${VERDACCIO_VERSION}`);
    }
    writeFileSync(path.join(staging, '.complete'), `${new Date().toISOString()}\n`);
    rmSync(target, { recursive: true, force: true });
    renameSync(staging, target);
  } finally {
    removeStaging();
  }
  return { bin: bin(target), installed: true };
}

/** A port that was free on 127.0.0.1 a moment ago. */
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

/**
 * Starts Verdaccio on 127.0.0.1 with storage, htpasswd and config in `workDir`. Only `@org/*` is served
 * (anyone may read, logged-in users may publish); there are no uplinks, so nothing reaches the internet.
 * Returns `{ url, token, stop, logFile }` once a user exists and its token is known.
 */
export async function startVerdaccio({ bin, workDir }) {
  const storage = path.join(workDir, 'storage');
  mkdirSync(storage, { recursive: true });
  const config = path.join(workDir, 'config.yaml');
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(storage)}`,
      'auth:',
      '  htpasswd:',
      `    file: ${JSON.stringify(path.join(workDir, 'htpasswd'))}`,
      '    max_users: 10',
      'uplinks: {}',
      'packages:',
      "  '@org/*':",
      '    access: $all',
      '    publish: $authenticated',
      '    unpublish: $authenticated',
      'web:',
      '  enable: false',
      'server:',
      '  keepAliveTimeout: 5',
      'log: { type: stdout, format: pretty, level: warn }',
      '',
    ].join('\n'),
  );
  const logFile = path.join(workDir, 'verdaccio.log');
  let lastError;
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/`;
    const logFd = openSync(logFile, 'a');
    const server = startBackground(
      process.execPath,
      [bin, '--config', config, '--listen', `127.0.0.1:${port}`],
      {
        cwd: workDir,
        logFd,
      },
    );
    closeSync(logFd);
    try {
      await waitForPing(url, server);
      const token = await createUser(url);
      return { url, token, stop: server.stop, logFile, pid: server.child.pid };
    } catch (error) {
      lastError = error;
      await server.stop();
    }
  }
  const log = existsSync(logFile)
    ? readFileSync(logFile, 'utf8').trim().split('\n').slice(-20).join('\n')
    : '';
  throw new Error(`Verdaccio did not start: ${lastError?.message}${log ? `\nverdaccio.log:\n${log}` : ''}`);
}

async function waitForPing(url, server) {
  const deadline = Date.now() + 30_000;
  let exitCode;
  server.exited.then((code) => {
    exitCode = code ?? 'signal';
  });
  while (Date.now() < deadline) {
    if (exitCode !== undefined) throw new Error(`Verdaccio exited (${exitCode}) before answering`);
    try {
      const response = await fetch(new URL('-/ping', url), { signal: AbortSignal.timeout(2000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`Verdaccio did not answer ${url}-/ping within 30 s`);
}

async function createUser(url) {
  const name = 'release-check';
  const response = await fetch(new URL(`-/user/org.couchdb.user:${name}`, url), {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, password: randomBytes(18).toString('base64url') }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok || typeof body.token !== 'string') {
    throw new Error(`creating a Verdaccio user failed: HTTP ${response.status} ${JSON.stringify(body)}`);
  }
  return body.token;
}
