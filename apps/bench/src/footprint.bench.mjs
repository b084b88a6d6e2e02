// Benchmark 4: install footprint. Packs every publishable package (`pnpm pack`: workspace ranges rewritten, exactly
// what `changeset publish` uploads) and reports each tarball's size; then installs @org/core + @org/tools +
// @org/planner from their tarballs with `npm install` into an empty temp project (zod, their peer, from the
// registry), beside a fresh install of `ai` + zod (and of @langchain/core + zod, for reference), and reports bytes on
// disk and package count. Temp directories are removed at the end, also on failure.
// Usage: node src/footprint.bench.mjs
import { execFile } from 'node:child_process';
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { fixed, ratio, table } from './report.mjs';

const run = promisify(execFile);
const root = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const npmEnv = {
  ...process.env,
  npm_config_update_notifier: 'false',
  npm_config_fund: 'false',
  npm_config_audit: 'false',
};
const ZOD = 'zod@4.6.7';
const AI = 'ai@6.0.322';
const LANGCHAIN = '@langchain/core@1.4.0';

/** The publishable (non-private) packages under packages/. */
function publishablePackages() {
  return readdirSync(join(root, 'packages'))
    .map((name) => join(root, 'packages', name))
    .filter((dir) => {
      try {
        return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).private !== true;
      } catch {
        return false;
      }
    })
    .map((dir) => ({ dir, name: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name }));
}

async function pack(dir, destination) {
  const { stdout } = await run('pnpm', ['pack', '--json', '--pack-destination', destination], { cwd: dir });
  const report = JSON.parse(stdout.slice(stdout.indexOf('{')));
  const tarball = resolve(destination, report.filename);
  return { tarball, bytes: statSync(tarball).size, files: report.files.length };
}

/** Bytes of every file under `dir` (apparent size, symlinks not followed), and disk usage from `du`. */
async function diskUsage(dir) {
  let bytes = 0;
  const walk = (path) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) walk(child);
      else bytes += lstatSync(child).size;
    }
  };
  walk(dir);
  const { stdout } = await run('du', ['-sk', dir]);
  return { bytes, blocksBytes: Number(stdout.split(/\s/)[0]) * 1024 };
}

/** Installed packages: every directory holding a package.json with a name, at any depth of node_modules. */
function installedPackages(nodeModules) {
  const found = [];
  const visit = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.name.startsWith('@')) {
        visit(path);
        continue;
      }
      try {
        const manifest = JSON.parse(readFileSync(join(path, 'package.json'), 'utf8'));
        if (typeof manifest.name === 'string') found.push(`${manifest.name}@${manifest.version}`);
      } catch {
        // not a package directory
      }
      try {
        if (statSync(join(path, 'node_modules')).isDirectory()) visit(join(path, 'node_modules'));
      } catch {
        // no nested node_modules
      }
    }
  };
  visit(nodeModules);
  return found.sort();
}

async function freshInstall(work, label, specifiers) {
  const project = join(work, label);
  mkdirSync(project, { recursive: true });
  writeFileSync(
    join(project, 'package.json'),
    `${JSON.stringify({ name: label, private: true, type: 'module' })}\n`,
  );
  await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error', ...specifiers],
    {
      cwd: project,
      env: npmEnv,
      timeout: 300_000,
    },
  );
  const nodeModules = join(project, 'node_modules');
  // Bytes per top-level package directory (nested node_modules count with their parent).
  const perPackage = [];
  for (const entry of readdirSync(nodeModules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const names = entry.name.startsWith('@')
      ? readdirSync(join(nodeModules, entry.name)).map((name) => `${entry.name}/${name}`)
      : [entry.name];
    for (const name of names) perPackage.push([name, (await diskUsage(join(nodeModules, name))).bytes]);
  }
  perPackage.sort((left, right) => right[1] - left[1]);
  return { ...(await diskUsage(nodeModules)), perPackage, packages: installedPackages(nodeModules) };
}

const kB = (bytes) => `${fixed(bytes / 1024, 1)} kB`;
const MB = (bytes) => `${fixed(bytes / 1024 / 1024, 2)} MB`;

const work = mkdtempSync(join(tmpdir(), 'org-bench-footprint-'));
try {
  const tarballs = join(work, 'tarballs');
  mkdirSync(tarballs);
  const packed = new Map();
  for (const { dir, name } of publishablePackages()) packed.set(name, await pack(dir, tarballs));

  console.log('## 4. Install footprint\n');
  console.log('### Tarballs (`pnpm pack`, what `changeset publish` uploads)\n');
  table(
    ['package', 'tarball', 'files'],
    [...packed].map(([name, { bytes, files }]) => [name, kB(bytes), files]),
  );

  const ours = ['@org/core', '@org/tools', '@org/planner'].map((name) => packed.get(name).tarball);
  const installs = [
    [
      '@org/core + @org/tools + @org/planner (tarballs) + zod',
      await freshInstall(work, 'org', [...ours, ZOD]),
    ],
    [`${AI} + zod`, await freshInstall(work, 'ai', [AI, ZOD])],
    [`${LANGCHAIN} + zod (reference)`, await freshInstall(work, 'langchain', [LANGCHAIN, ZOD])],
  ];
  console.log('\n### Fresh `npm install` into an empty project\n');
  const [orgInstall, aiInstall] = [installs[0][1], installs[1][1]];
  table(
    ['install', 'packages', 'bytes on disk (files)', 'disk usage (du)', 'files bytes / ours'],
    installs.map(([label, result]) => [
      label,
      result.packages.length,
      MB(result.bytes),
      MB(result.blocksBytes),
      ratio(result.bytes, orgInstall.bytes),
    ]),
  );
  console.log('');
  for (const [label, result] of installs) console.log(`- ${label}: ${result.packages.join(', ')}`);
  console.log(
    `\nOurs against ai + zod: ${orgInstall.packages.length} packages against ${aiInstall.packages.length}; ${MB(orgInstall.bytes)} against ${MB(aiInstall.bytes)} on disk (ai + zod / ours: ${ratio(aiInstall.bytes, orgInstall.bytes)}). Where the bytes are, per top-level package: ours ${orgInstall.perPackage.map(([name, bytes]) => `${name} ${MB(bytes)}`).join(', ')}; ai ${aiInstall.perPackage.map(([name, bytes]) => `${name} ${MB(bytes)}`).join(', ')}.`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
