// The versions the workspace actually installed (resolved by pnpm-lock.yaml), read from node_modules.
//
// check:packages installs each tarball alone with npm. Left to itself npm takes the newest version in every
// range, and a registry can list a release before the releases it depends on (seen: a newer
// @aws-sdk/credential-provider-node needing @aws-sdk/credential-provider-env@^3.972.86, which did not exist),
// which fails the check for a reason outside the package. Pinning the external tree to the versions the tests
// ran against makes the check reproducible; npm still refuses a pin outside a declared range.
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { readJson } from './workspace.mjs';

/** The directory of `name` as Node would resolve it from `fromDir` (walking up node_modules), or undefined. */
export function installedDir(name, fromDir) {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', ...name.split('/'));
    if (existsSync(path.join(candidate, 'package.json'))) return realpathSync(candidate);
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * Every external package reachable from `roots` (names resolved from `fromDir`) through `dependencies`,
 * `optionalDependencies` and `peerDependencies`, as name → set of installed versions.
 */
export function lockedClosure(roots, fromDir) {
  const versions = new Map();
  const seen = new Set();
  const queue = roots.map((name) => [name, fromDir]);
  while (queue.length > 0) {
    const [name, from] = queue.pop();
    const dir = installedDir(name, from);
    if (dir === undefined || seen.has(dir)) continue;
    seen.add(dir);
    const manifest = readJson(path.join(dir, 'package.json'));
    if (!versions.has(name)) versions.set(name, new Set());
    versions.get(name).add(manifest.version);
    for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies']) {
      for (const dependency of Object.keys(manifest[field] ?? {})) queue.push([dependency, dir]);
    }
  }
  return versions;
}

/**
 * npm `overrides` pinning every package of the closure that the workspace installed at exactly one version
 * (a package installed at several versions is left to npm: one override would force them all to one).
 */
export function lockedOverrides(closure, exclude) {
  const overrides = {};
  for (const [name, versions] of [...closure].sort(([a], [b]) => a.localeCompare(b))) {
    if (versions.size === 1 && !exclude.has(name)) overrides[name] = [...versions][0];
  }
  return overrides;
}
