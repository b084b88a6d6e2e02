// Type-checks every ```ts / ```typescript code block in the READMEs, docs/ and CONTRIBUTING.md against the
// built packages, so that no example rots. Each block is a complete ES module of its own (top-level await allowed).
// A block fenced ```ts run is then also run with node (offline: the provider keys are removed from its environment,
// so a guide falls back to the scripted model) and must exit 0; such a block asserts its own outcome by throwing.
// The blocks are written under the repository root, whose devDependencies hold every @org/* package and the SDKs
// and zod: imports resolve exactly as in a user's project that installed them.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

const root = join(dirname(new URL(import.meta.url).pathname), '..');
const outDir = join(root, '.tmp', 'doc-snippets');

function markdownFiles() {
  const files = ['README.md', 'CONTRIBUTING.md'].map((file) => join(root, file)).filter(existsSync);
  for (const group of ['packages', 'apps']) {
    const groupDir = join(root, group);
    if (!existsSync(groupDir)) continue;
    for (const name of readdirSync(groupDir)) {
      const readme = join(groupDir, name, 'README.md');
      if (existsSync(readme)) files.push(readme);
    }
  }
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (entry.endsWith('.md')) files.push(path);
    }
  };
  walk(join(root, 'docs'));
  return files;
}

function codeBlocks(markdown) {
  const blocks = [];
  const fence = /^```(?:ts|typescript)( run)?\s*$([\s\S]*?)^```\s*$/gm;
  for (const match of markdown.matchAll(fence)) {
    const line = markdown.slice(0, match.index).split('\n').length;
    blocks.push({ code: match[2], line, run: match[1] !== undefined });
  }
  return blocks;
}

rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
const sources = [];
for (const file of markdownFiles()) {
  const blocks = codeBlocks(readFileSync(file, 'utf8'));
  blocks.forEach((block, index) => {
    const name = `${relative(root, file).replaceAll(/[\\/]/g, '__').replace(/\.md$/, '')}__${index + 1}.mts`;
    writeFileSync(
      join(outDir, name),
      `// ${relative(root, file)}:${block.line}\n${block.code}\nexport {};\n`,
    );
    sources.push({ name, file: relative(root, file), line: block.line, run: block.run });
  });
}
writeFileSync(
  join(outDir, 'tsconfig.json'),
  JSON.stringify(
    {
      extends: relative(outDir, join(root, 'tsconfig.base.json')),
      compilerOptions: { noEmit: true, noUnusedLocals: false },
      include: ['*.mts'],
    },
    null,
    2,
  ),
);
if (sources.length === 0) {
  console.log('check-docs: no TypeScript code blocks found');
  process.exit(0);
}
try {
  execFileSync(join(root, 'node_modules', '.bin', 'tsc'), ['-p', join(outDir, 'tsconfig.json')], {
    stdio: 'pipe',
    encoding: 'utf8',
  });
  console.log(
    `check-docs: ${sources.length} TypeScript code blocks in ${new Set(sources.map((s) => s.file)).size} files type-check`,
  );
} catch (error) {
  reportTypeErrors(error);
}
runBlocks();

function reportTypeErrors(error) {
  // Map "<snippet>.mts(line,col)" back to the markdown file and line the reader edits.
  const byName = new Map(sources.map((source) => [source.name, source]));
  const report = String(error.stdout ?? error.message).replace(
    /^(?:\.tmp\/doc-snippets\/)?([^\s(]+\.mts)\((\d+),(\d+)\)/gm,
    (match, name, line, column) => {
      const source = byName.get(name.split('/').pop());
      return source ? `${source.file}:${source.line + Number(line) - 2}:${column}` : match;
    },
  );
  console.error('check-docs: TypeScript code blocks that do not type-check:\n');
  console.error(report);
  process.exit(1);
}

// Runs each ```ts run block: transpiled beside its type-checked copy (so imports resolve from the repository root,
// as in a user's project), without the provider keys, so it runs offline and the same on every machine.
function runBlocks() {
  const runnable = sources.filter((source) => source.run);
  const environment = { ...process.env };
  for (const key of [
    'OPENAI_API_KEY',
    'ANTHROPIC_API_KEY',
    'AWS_ACCESS_KEY_ID',
    'AWS_PROFILE',
    'GOOGLE_API_KEY',
    'MISTRAL_API_KEY',
  ]) {
    delete environment[key];
  }
  for (const source of runnable) {
    const typescript = readFileSync(join(outDir, source.name), 'utf8');
    const javascript = ts.transpileModule(typescript, {
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
        verbatimModuleSyntax: true,
      },
    }).outputText;
    const script = join(outDir, source.name.replace(/\.mts$/, '.mjs'));
    writeFileSync(script, javascript);
    const started = Date.now();
    const child = spawnSync(process.execPath, [script], {
      cwd: root,
      env: environment,
      encoding: 'utf8',
      timeout: 120_000,
    });
    if (child.status !== 0) {
      console.error(
        `check-docs: the block at ${source.file}:${source.line} failed when run (exit ${child.status ?? child.signal}):\n`,
      );
      console.error(child.stdout);
      console.error(child.stderr);
      process.exit(1);
    }
    console.log(`check-docs: ran ${source.file}:${source.line} (${Date.now() - started} ms)`);
  }
}
