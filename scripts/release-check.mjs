#!/usr/bin/env node
// `pnpm check:release`: proves that publishing with changesets works, for real, without touching npm.
//
//   1. copies the repository (tracked and untracked-but-not-ignored files of the working tree, or HEAD with
//      --head) into a temp dir, makes it a git repository, and installs it with pnpm from the local store
//   2. starts Verdaccio (6.8.0, installed in isolation under .tmp/) on 127.0.0.1 on a free port, serving only
//      @org/* with no uplinks, and creates a user whose token goes into the copy's .npmrc
//   3. in the copy: builds with turbo (reading, never writing, the repository's turbo cache), writes a patch
//      changeset for @org/core unless one already names it, runs `changeset version`, then `changeset publish`
//      against Verdaccio (what the release workflow's `pnpm release` does after the version PR is merged)
//   4. checks every publishable package landed at its new version, with its git tag
//   5. installs @org/core from Verdaccio into an empty project and calls toToolChoice('any')
//   6. stops Verdaccio and removes every temp dir, on success, failure, Ctrl-C or SIGTERM
//
// Usage: node scripts/release-check.mjs [--head] [--only @org/name[,@org/other]] [--keep]
//   --head   release the last commit instead of the working tree
//   --only   release only these packages and the internal packages they depend on (the others are marked
//            private in the copy); for local use while some packages are still being written. CI runs all.
//   --keep   keep the temp dirs (paths printed) for debugging; Verdaccio is still stopped
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { makeTempDir, onCleanup, run, runCleanups, seconds } from './lib/process.mjs';
import { ensureVerdaccio, startVerdaccio, VERDACCIO_VERSION } from './lib/verdaccio.mjs';
import { internalClosure, publishablePackages, readJson, repoRoot } from './lib/workspace.mjs';

const CONSUMER_PACKAGE = '@org/core';

const { values: options } = parseArgs({
  options: {
    head: { type: 'boolean', default: false },
    only: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});

const started = Date.now();
const log = (message) =>
  console.log(`[release-check ${seconds(Date.now() - started).padStart(7)}] ${message}`);

/** Environment for commands in the copy before the registry exists: the public registry, never Verdaccio. */
const baseEnv = {
  ...process.env,
  npm_config_update_notifier: 'false',
  npm_config_fund: 'false',
  CI: process.env.CI ?? '1',
  TURBO_TELEMETRY_DISABLED: '1',
  NO_COLOR: '1',
  FORCE_COLOR: '0',
};

async function main() {
  const keepDir = (dir) => {
    if (options.keep) log(`keeping ${dir}`);
  };
  const workRoot = options.keep ? makeKeptDir('release-check') : makeTempDir('release-check');
  keepDir(workRoot);
  const copy = path.join(workRoot, 'repo');
  const registryDir = path.join(workRoot, 'registry');
  const consumer = path.join(workRoot, 'consumer');

  const verdaccioInstall = ensureVerdaccio(path.join(repoRoot, '.tmp'));

  log(`copying the repository (${options.head ? 'HEAD' : 'working tree'}) to ${copy}`);
  await copyRepository(copy);
  await run('git', ['init', '-q', '-b', 'main'], { cwd: copy });
  await run('git', ['add', '-A'], { cwd: copy });
  await run(
    'git',
    [
      '-c',
      'user.name=release-check',
      '-c',
      'user.email=release-check@localhost',
      'commit',
      '-q',
      '-m',
      'copy',
    ],
    { cwd: copy },
  );

  log('pnpm install --frozen-lockfile --prefer-offline (in the copy)');
  await run('pnpm', ['install', '--frozen-lockfile', '--prefer-offline', '--reporter=silent'], {
    cwd: copy,
    env: baseEnv,
    timeoutMs: 300_000,
  });

  const all = publishablePackages(copy);
  const releasing = selectPackages(all);
  if (releasing.length < all.length) {
    const skipped = all.filter((pkg) => !releasing.includes(pkg));
    log(`--only: marking ${skipped.map((pkg) => pkg.name).join(', ')} private in the copy`);
    for (const pkg of skipped) {
      const manifestPath = path.join(pkg.dir, 'package.json');
      writeFileSync(
        manifestPath,
        `${JSON.stringify({ ...readJson(manifestPath), private: true }, null, 2)}\n`,
      );
    }
  }

  // Build before `changeset version`: versions do not change build output, and the unchanged package.json
  // files let turbo reuse the real repository's cache (read-only) for packages already built there.
  const repoCache = path.join(repoRoot, '.turbo', 'cache');
  const cacheFlags = existsSync(repoCache) ? [`--cache-dir=${repoCache}`, '--cache=local:r'] : [];
  log(`turbo run build (in the copy${cacheFlags.length > 0 ? ', reading the repository turbo cache' : ''})`);
  const filters = releasing.length < all.length ? releasing.map((pkg) => `--filter=${pkg.name}`) : [];
  const build = await run(
    path.join(copy, 'node_modules', '.bin', 'turbo'),
    ['run', 'build', '--output-logs=errors-only', ...cacheFlags, ...filters],
    { cwd: copy, env: baseEnv, timeoutMs: 300_000 },
  );
  const summary = build.stdout.match(/Tasks:\s+(.*)\n\s*Cached:\s+(.*)/);
  if (summary) log(`built: ${summary[1].trim()}; cached: ${summary[2].trim()}`);

  const changeset = ensureChangesetFor(copy, CONSUMER_PACKAGE);
  log(changeset.written ? `wrote ${changeset.file} (patch for ${CONSUMER_PACKAGE})` : changeset.note);
  const before = new Map(releasing.map((pkg) => [pkg.name, pkg.version]));

  log('changeset version');
  await run(path.join(copy, 'node_modules', '.bin', 'changeset'), ['version'], { cwd: copy, env: baseEnv });
  const versioned = publishablePackages(copy).filter((pkg) => before.has(pkg.name));
  const consumerPackage = versioned.find((pkg) => pkg.name === CONSUMER_PACKAGE);
  if (consumerPackage.version === before.get(CONSUMER_PACKAGE)) {
    throw new Error(`changeset version did not bump ${CONSUMER_PACKAGE} (still ${consumerPackage.version})`);
  }
  if (!existsSync(path.join(consumerPackage.dir, 'CHANGELOG.md'))) {
    throw new Error(`changeset version wrote no CHANGELOG.md for ${CONSUMER_PACKAGE}`);
  }
  const releasingNames = new Set(releasing.map((pkg) => pkg.name));
  const leftover = changesetFiles(copy).filter((file) =>
    file.packages.some((name) => releasingNames.has(name)),
  );
  if (leftover.length > 0) {
    throw new Error(
      `changeset version left changesets behind: ${leftover.map((file) => file.name).join(', ')}`,
    );
  }
  log(
    `versions: ${versioned.map((pkg) => `${pkg.name} ${before.get(pkg.name)} -> ${pkg.version}`).join(', ')}`,
  );

  const { bin, installed } = await verdaccioInstall;
  log(
    installed
      ? `installed verdaccio ${VERDACCIO_VERSION} in .tmp/`
      : `verdaccio ${VERDACCIO_VERSION} (cached)`,
  );
  mkdirSync(registryDir);
  const registry = await startVerdaccio({ bin, workDir: registryDir });
  onCleanup(() => {
    if (options.keep) log(`verdaccio log: ${registry.logFile}`);
  });
  log(`verdaccio listening on ${registry.url} (pid ${registry.pid})`);
  try {
    const registryHost = registry.url.replace(/^http:/, '');
    writeFileSync(
      path.join(copy, '.npmrc'),
      `registry=${registry.url}\n${registryHost}:_authToken=${registry.token}\n`,
    );
    const publishEnv = { ...baseEnv, npm_config_registry: registry.url };

    log('changeset publish (to verdaccio)');
    await run(path.join(copy, 'node_modules', '.bin', 'changeset'), ['publish'], {
      cwd: copy,
      env: publishEnv,
      timeoutMs: 300_000,
    });

    await verifyPublished(registry.url, versioned, copy);
    log(`registry has ${versioned.map((pkg) => `${pkg.name}@${pkg.version}`).join(', ')}, tags present`);

    log(`npm install ${CONSUMER_PACKAGE}@${consumerPackage.version} into an empty project, from verdaccio`);
    await installAndImport(consumer, registry.url, consumerPackage.version);
    log(
      `${CONSUMER_PACKAGE}@${consumerPackage.version} installed from ${registry.url}; toToolChoice('any') ok`,
    );
  } finally {
    await registry.stop();
    log('verdaccio stopped');
  }
}

function makeKeptDir(prefix) {
  const dir = path.join(repoRoot, '.tmp', `${prefix}-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

function selectPackages(all) {
  if (!options.only) return all;
  const names = options.only
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !all.some((pkg) => pkg.name === name));
  if (unknown.length > 0) {
    throw new Error(
      `--only: unknown package(s) ${unknown.join(', ')}; known: ${all.map((p) => p.name).join(', ')}`,
    );
  }
  if (!names.includes(CONSUMER_PACKAGE)) names.push(CONSUMER_PACKAGE);
  const wanted = new Set(names);
  for (const name of names) for (const dependency of internalClosure(name, all)) wanted.add(dependency.name);
  return all.filter((pkg) => wanted.has(pkg.name));
}

/** Copies the working tree's tracked and untracked-but-not-ignored files (or HEAD's tree) into `target`. */
async function copyRepository(target) {
  mkdirSync(target, { recursive: true });
  if (options.head) {
    const archive = path.join(path.dirname(target), 'head.tar');
    await run('git', ['archive', '--format=tar', '-o', archive, 'HEAD'], { cwd: repoRoot });
    await run('tar', ['-xf', archive, '-C', target]);
    return;
  }
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: repoRoot,
  });
  let copied = 0;
  for (const file of stdout.split('\0').filter(Boolean)) {
    const source = path.join(repoRoot, file);
    if (!existsSync(source)) continue; // deleted in the working tree, not yet committed
    const destination = path.join(target, file);
    mkdirSync(path.dirname(destination), { recursive: true });
    cpSync(source, destination, { preserveTimestamps: true, verbatimSymlinks: true });
    copied += 1;
  }
  if (copied === 0) throw new Error('git ls-files listed no files to copy');
}

/**
 * The changesets in `<copy>/.changeset` with the package names their front matter lists. A file without
 * valid front matter is reported by name (changesets itself only prints its content).
 */
function changesetFiles(copy) {
  const dir = path.join(copy, '.changeset');
  return readdirSync(dir)
    .filter((file) => file.endsWith('.md') && file !== 'README.md')
    .map((file) => {
      const text = readFileSync(path.join(dir, file), 'utf8');
      const frontMatter = text.match(/^---\r?\n([\s\S]*?)\r?\n---/);
      if (frontMatter === null) {
        throw new Error(
          `.changeset/${file} has no front matter (it must start with ---, "@org/name": patch|minor|major, ---); ` +
            'was it reformatted by a Markdown formatter?',
        );
      }
      const packages = [...frontMatter[1].matchAll(/^\s*["']?([^"':\s]+)["']?\s*:/gm)].map(
        (match) => match[1],
      );
      return { name: file, packages };
    });
}

/** Writes a patch changeset for `name` in the copy unless an existing changeset already names it. */
function ensureChangesetFor(copy, name) {
  const naming = changesetFiles(copy)
    .filter((file) => file.packages.includes(name))
    .map((file) => file.name);
  if (naming.length > 0) {
    return {
      written: false,
      note: `${naming.length} existing changeset(s) name ${name}: ${naming.join(', ')}`,
    };
  }
  const file = '.changeset/release-check-core.md';
  writeFileSync(
    path.join(copy, file),
    `---\n"${name}": patch\n---\n\nRelease check: a throwaway patch release to a local registry.\n`,
  );
  return { written: true, file };
}

async function verifyPublished(url, packages, copy) {
  const { stdout: tags } = await run('git', ['tag', '--list'], { cwd: copy });
  const tagList = tags.split('\n').filter(Boolean);
  const problems = [];
  const versions = new Map(packages.map((pkg) => [pkg.name, pkg.version]));
  for (const pkg of packages) {
    const response = await fetch(new URL(pkg.name.replace('/', '%2f'), url), {
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) {
      problems.push(`${pkg.name}: the registry answered HTTP ${response.status}`);
      continue;
    }
    const document = await response.json();
    if (!document.versions?.[pkg.version]) {
      problems.push(
        `${pkg.name}: version ${pkg.version} is not on the registry (has ${Object.keys(document.versions ?? {})})`,
      );
      continue;
    }
    const manifest = document.versions[pkg.version];
    for (const field of ['dependencies', 'peerDependencies']) {
      for (const [dependency, range] of Object.entries(manifest[field] ?? {})) {
        const internal = versions.get(dependency);
        if (String(range).startsWith('workspace:')) {
          problems.push(`${pkg.name}: published ${field}.${dependency} is "${range}"`);
        } else if (internal !== undefined && ![internal, `^${internal}`, `~${internal}`].includes(range)) {
          problems.push(
            `${pkg.name}: published ${field}.${dependency} is "${range}", not the released ${internal}`,
          );
        }
      }
    }
    if (!tagList.includes(`${pkg.name}@${pkg.version}`))
      problems.push(`${pkg.name}: no git tag ${pkg.name}@${pkg.version}`);
  }
  if (problems.length > 0) throw new Error(`publish incomplete:\n- ${problems.join('\n- ')}`);
}

async function installAndImport(consumer, url, version) {
  mkdirSync(consumer);
  writeFileSync(
    path.join(consumer, 'package.json'),
    `${JSON.stringify({ name: 'release-check-consumer', private: true, type: 'module' }, null, 2)}\n`,
  );
  // Only the @org scope comes from Verdaccio; the rest of the npm config stays as the user has it.
  writeFileSync(path.join(consumer, '.npmrc'), `@org:registry=${url}\n`);
  await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--loglevel=error', `${CONSUMER_PACKAGE}@${version}`],
    {
      cwd: consumer,
      env: baseEnv,
      timeoutMs: 120_000,
    },
  );
  // Proof of origin: the installed tarball's integrity is the one Verdaccio serves for that version.
  const lock = readJson(path.join(consumer, 'package-lock.json'));
  const entry = lock.packages?.[`node_modules/${CONSUMER_PACKAGE}`];
  const document = await (await fetch(new URL(CONSUMER_PACKAGE.replace('/', '%2f'), url))).json();
  const served = document.versions?.[version]?.dist?.integrity;
  if (entry?.version !== version || served === undefined || entry.integrity !== served) {
    throw new Error(
      `${CONSUMER_PACKAGE} did not come from the local registry: installed ${JSON.stringify(entry)}, ` +
        `registry integrity ${served}`,
    );
  }
  const script = `
    import assert from 'node:assert/strict';
    const core = await import(${JSON.stringify(CONSUMER_PACKAGE)});
    assert.deepEqual(core.toToolChoice('any'), { type: 'required' });
    assert.throws(() => core.toToolChoice('sometimes'), (error) => core.InvalidToolChoiceError.isInstance(error));
  `;
  await run(process.execPath, ['--input-type=module', '-e', script], { cwd: consumer, timeoutMs: 30_000 });
}

main()
  .then(() => {
    runCleanups();
    log('release check passed');
  })
  .catch((error) => {
    console.error(`\nrelease check FAILED: ${error instanceof Error ? error.message : String(error)}`);
    runCleanups();
    process.exit(1);
  });
