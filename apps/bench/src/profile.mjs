// CPU profile of our agent loop on the overhead benchmark's conversation (`node --cpu-prof` in a child process),
// summarised per function: self time of the hottest frames, and inclusive time of the @org packages' functions.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { table } from './report.mjs';

/** `packages/planner/dist/agent-loop.js:102` for our packages, `node_modules` package paths shortened, else as is. */
function location(frame) {
  const url = frame.url.replace(/^file:\/\//, '');
  const line = frame.lineNumber + 1;
  const ours = /\/packages\/([^/]+)\/(dist\/.*)$/.exec(url);
  if (ours) return `@org/${ours[1]} ${ours[2]}:${line}`;
  const dependency = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(url);
  if (dependency) return `${dependency[1]} ${dependency[2]}:${line}`;
  return url === '' ? '(native)' : `${url.replace(/.*\/apps\/bench\//, 'apps/bench/')}:${line}`;
}

export function summariseProfile(profile) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const sampled = new Map();
  for (let index = 0; index < profile.samples.length; index++) {
    const id = profile.samples[index];
    sampled.set(id, (sampled.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
  }
  const key = (node) => `\`${node.callFrame.functionName || '(anonymous)'}\` ${location(node.callFrame)}`;
  const self = new Map();
  const inclusive = new Map();
  let total = 0;
  for (const [id, time] of sampled) {
    total += time;
    const node = nodes.get(id);
    self.set(key(node), (self.get(key(node)) ?? 0) + time);
    const seen = new Set();
    for (let current = id; current !== undefined; current = parent.get(current)) {
      const name = key(nodes.get(current));
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + time);
    }
  }
  return { total, self, inclusive };
}

const share = (time, total) => `${((100 * time) / total).toFixed(1)}%`;

/** Profiles `runs` conversations of `steps` steps and prints the summary as markdown. */
export async function profileOrgLoop({ runs, steps }) {
  const directory = mkdtempSync(join(tmpdir(), 'org-bench-profile-'));
  try {
    const script = fileURLToPath(new URL('./org-loop.mjs', import.meta.url));
    execFileSync(
      process.execPath,
      ['--cpu-prof', `--cpu-prof-dir=${directory}`, script, String(runs), String(steps)],
      {
        stdio: 'inherit',
      },
    );
    const file = readdirSync(directory).find((name) => name.endsWith('.cpuprofile'));
    const { total, self, inclusive } = summariseProfile(
      JSON.parse(readFileSync(join(directory, file), 'utf8')),
    );
    const top = (map, count, filter = () => true) =>
      [...map]
        .filter(([name]) => filter(name))
        .sort((left, right) => right[1] - left[1])
        .slice(0, count);
    console.log(
      `${runs} conversations of ${steps} steps, ${(total / 1000).toFixed(0)} ms sampled (module loading included).\n`,
    );
    console.log('Self time, hottest functions:\n');
    table(
      ['function', 'where', 'self time'],
      top(self, 12).map(([name, time]) => [...splitName(name), share(time, total)]),
    );
    console.log('\nInclusive time, functions of the @org packages:\n');
    table(
      ['function', 'where', 'inclusive time'],
      top(inclusive, 16, (name) => name.includes(' @org/')).map(([name, time]) => [
        ...splitName(name),
        share(time, total),
      ]),
    );
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

function splitName(name) {
  const end = name.indexOf('` ');
  return [name.slice(0, end + 1), name.slice(end + 2)];
}
