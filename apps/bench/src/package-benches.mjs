// Benchmark 3: the packages' own benchmarks, run as they are (`pnpm run bench` in the package, one after the other),
// their output collected under one heading. A package bench that fails fails this script.
// Usage: node src/package-benches.mjs
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
export const PACKAGE_BENCHES = ['tools', 'plan-executor'];

console.log('## 3. The packages’ own benchmarks\n');
console.log(
  'Run as they are, from the built packages, one after the other (`pnpm run bench` in each package); their output follows',
);
console.log('unchanged, headings demoted one level.\n');
let failed = false;
for (const directory of PACKAGE_BENCHES) {
  const cwd = join(root, 'packages', directory);
  const manifest = JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8'));
  const command = manifest.scripts?.bench;
  console.log(`### ${manifest.name} (\`${command}\`)\n`);
  if (command === undefined) {
    console.log('No bench script.\n');
    continue;
  }
  const started = performance.now();
  const result = spawnSync('pnpm', ['-s', 'run', 'bench'], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const output = `${result.stdout ?? ''}`.replace(/^(#+) /gm, '$1## ').trim();
  console.log(output);
  console.log(`\n(${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
  if (result.status !== 0) {
    failed = true;
    console.log(`**The benchmark failed (exit ${result.status}):**\n\n\`\`\`\n${result.stderr}\n\`\`\`\n`);
    console.error(`${manifest.name} bench failed:\n${result.stderr}`);
  }
}
if (failed) process.exitCode = 1;
