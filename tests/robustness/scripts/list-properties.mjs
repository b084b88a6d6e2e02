// Lists every fast-check property of the repository (each `fc.assert`), with its file, test name and number of
// runs, as Markdown table rows for tests/robustness/README.md. Run: `node scripts/list-properties.mjs`.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('../../..', import.meta.url).pathname;
const roots = ['packages', 'apps', 'tests'].map((dir) => join(root, dir));

function* testFiles(dir) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* testFiles(path);
    else if (name.endsWith('.test.ts')) yield path;
  }
}

/** What `test:stress` of the file's package does for it: 100,000 runs, or nothing. */
function stressRuns(file) {
  const relativePath = relative(root, file);
  const [group, name] = relativePath.split('/');
  const packageDir = join(root, group, name);
  let script;
  try {
    script = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')).scripts?.['test:stress'];
  } catch {
    script = undefined;
  }
  if (script === undefined || !script.includes('FC_NUM_RUNS=100000'))
    return 'not raised: no FC_NUM_RUNS in its test:stress';
  const inPackage = relative(packageDir, file);
  const targets = script
    .split(/\s+/)
    .filter((word) => !word.startsWith('-') && !word.includes('=') && !['vitest', 'run'].includes(word));
  const covered =
    targets.length === 0 ||
    targets.some((target) => inPackage === target || inPackage.startsWith(`${target}/`));
  return covered ? '100,000 in test:stress' : 'not raised: outside its test:stress files';
}

const rows = [];
for (const dir of roots) {
  let files;
  try {
    files = [...testFiles(dir)];
  } catch {
    continue;
  }
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    if (!text.includes('fc.assert(')) continue;
    // This suite's files take NUM_RUNS (FC_NUM_RUNS) and PLANS (RANDOM_PLANS) from test/support/run-helpers.ts.
    const envDriven = /FC_NUM_RUNS|NUM_RUNS/.test(text);
    let index = text.indexOf('fc.assert(');
    while (index >= 0) {
      const before = text.slice(0, index);
      const titles = [
        ...before.matchAll(
          /\b(?:it|test)(?:\.each(?:<[^>]*>)?\([^)]*\))?\(\s*(?:\n\s*)?(['`"])((?:\\.|(?!\1).)*)\1/g,
        ),
      ];
      const title = titles.at(-1)?.[2] ?? '(unnamed)';
      const next = text.indexOf('fc.assert(', index + 1);
      const body = text.slice(index, next < 0 ? undefined : next);
      const runs = /numRuns:\s*([^,}\n]+)|\{\s*numRuns\s*\}/.exec(body);
      const expression = runs === null ? 'default (100)' : (runs[1] ?? 'numRuns').trim();
      const fromEnv = envDriven && !/^\d[\d_]*$/.test(expression) && expression !== 'default (100)';
      const runsText =
        expression === 'PLANS'
          ? 'RANDOM_PLANS (200; 10,000 in test:stress)'
          : fromEnv
            ? `FC_NUM_RUNS: 1,000; ${stressRuns(file)}`
            : expression;
      rows.push({ file: relative(root, file), title, runs: runsText });
      index = next;
    }
  }
}
const envCount = rows.filter((row) => row.runs.startsWith('FC_NUM_RUNS')).length;
const stressCount = rows.filter((row) => row.runs.includes('100,000')).length;
const ours = rows.filter((row) => row.file.startsWith('tests/robustness/')).length;
console.log('| # | file | property (test name) | runs |');
console.log('| - | ---- | -------------------- | ---- |');
rows.forEach((row, position) => {
  console.log(`| ${position + 1} | \`${row.file}\` | ${row.title.replaceAll('|', '\\|')} | ${row.runs} |`);
});
console.log(
  `\n${rows.length} properties (${ours} in tests/robustness); ${envCount} take their runs from FC_NUM_RUNS ` +
    `(1,000 by default); ${stressCount} of them run 100,000 times in test:stress.`,
);
