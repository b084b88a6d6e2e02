// The workspace's publishable packages, read from packages/*/package.json, in dependency order.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (two levels above this file). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Reads and parses a JSON file, naming the file when it is not valid JSON. */
export function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

const INTERNAL_SCOPE = '@org/';

/** Names of the internal (@org/*) packages a manifest depends on at runtime (dependencies and peers). */
export function internalRuntimeDependencies(manifest) {
  const names = new Set();
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const name of Object.keys(manifest[field] ?? {})) {
      if (name.startsWith(INTERNAL_SCOPE)) names.add(name);
    }
  }
  return [...names];
}

/**
 * Every non-private package under `<root>/packages`, as `{ name, version, dir, manifest }`, ordered so that
 * each package comes after the internal packages it depends on.
 */
export function publishablePackages(root = repoRoot) {
  const packagesDir = path.join(root, 'packages');
  const found = [];
  for (const entry of readdirSync(packagesDir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const dir = path.join(packagesDir, entry.name);
    const manifestPath = path.join(dir, 'package.json');
    if (!existsSync(manifestPath)) continue;
    const manifest = readJson(manifestPath);
    if (manifest.private === true) continue;
    found.push({ name: manifest.name, version: manifest.version, dir, manifest });
  }
  return topologicalOrder(found);
}

function topologicalOrder(packages) {
  const byName = new Map(packages.map((pkg) => [pkg.name, pkg]));
  const ordered = [];
  const state = new Map();
  const visit = (pkg, trail) => {
    if (state.get(pkg.name) === 'done') return;
    if (state.get(pkg.name) === 'visiting') {
      throw new Error(`dependency cycle between workspace packages: ${[...trail, pkg.name].join(' -> ')}`);
    }
    state.set(pkg.name, 'visiting');
    for (const dependency of internalRuntimeDependencies(pkg.manifest)) {
      const target = byName.get(dependency);
      if (target) visit(target, [...trail, pkg.name]);
    }
    state.set(pkg.name, 'done');
    ordered.push(pkg);
  };
  for (const pkg of [...packages].sort((a, b) => a.name.localeCompare(b.name))) visit(pkg, []);
  return ordered;
}

/**
 * The internal packages `name` needs at runtime, transitively, excluding itself, in dependency order.
 * Throws when a dependency is not a publishable workspace package (it could never be installed by users).
 */
export function internalClosure(name, packages) {
  const byName = new Map(packages.map((pkg) => [pkg.name, pkg]));
  const needed = new Set();
  const walk = (current) => {
    const pkg = byName.get(current);
    if (!pkg) throw new Error(`${current} is not a publishable package of this workspace`);
    for (const dependency of internalRuntimeDependencies(pkg.manifest)) {
      if (!byName.has(dependency)) {
        throw new Error(
          `${current} depends on ${dependency}, which is not a publishable package of this workspace: ` +
            'users could not install it',
        );
      }
      if (!needed.has(dependency)) {
        needed.add(dependency);
        walk(dependency);
      }
    }
  };
  walk(name);
  return packages.filter((pkg) => needed.has(pkg.name));
}
