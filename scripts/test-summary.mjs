// Prints one closing line for the whole suite, summed over every package's vitest JSON report:
// "tests: N passed, N failed, N skipped". Exits non-zero if any report shows a failure or none was found.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
let passed = 0;
let failed = 0;
let skipped = 0;
let reports = 0;
for (const group of ['packages', 'apps', 'tests']) {
  const groupDir = join(root, group);
  if (!existsSync(groupDir)) continue;
  for (const name of readdirSync(groupDir)) {
    const file = join(groupDir, name, 'test-results.json');
    if (!existsSync(file)) continue;
    const report = JSON.parse(readFileSync(file, 'utf8'));
    reports += 1;
    passed += report.numPassedTests ?? 0;
    failed += report.numFailedTests ?? 0;
    skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  }
}
console.log(`\n${reports} packages tested`);
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
if (reports === 0 || failed > 0 || passed === 0) process.exit(1);
