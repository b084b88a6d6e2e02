#!/usr/bin/env node
// `pnpm check:packages`: proves that every publishable package is shaped right and installs on its own.
//
// For each non-private packages/* package, in dependency order:
//   source   src/index.ts exists and exports something (a package under construction fails here, loudly)
//   pack     `pnpm pack` (workspace:^ becomes a real range, exactly what `changeset publish` uploads)
//   publint  publint on that tarball, warnings count as errors
//   attw     @arethetypeswrong/cli on that tarball, profile esm-only
//   install  the tarball ALONE in an empty temp project (outside the repo) with `npm install`: only the
//            package's declared peers from the npm registry, and its internal @org/* dependencies from their
//            own packed tarballs (they are not on the registry). Every external package is pinned to the
//            version the workspace lockfile resolved (lib/locked-tree.mjs says why)
//   types    the installed .d.ts files type-check with nothing but what was installed
//   smoke    `import('<name>')` in that project: every value export declared in the .d.ts exists at
//            runtime, the names in EXPECTED_EXPORTS below exist, and the package's smoke call (if any) passes
//
// Usage: node scripts/check-packages.mjs [@org/name ...]   (default: every publishable package)
// Run `pnpm build` first (`pnpm check:packages` does). Exits non-zero if any check fails.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import ts from 'typescript';
import { installedDir, lockedClosure, lockedOverrides } from './lib/locked-tree.mjs';
import { makeTempDir, run, runCleanups, seconds } from './lib/process.mjs';
import { internalClosure, publishablePackages, readJson, repoRoot } from './lib/workspace.mjs';

/**
 * Named runtime exports each package must provide: the public entry points from DESIGN.md and the package
 * issues, which other packages and users code against. A package missing from this table is held to the
 * exports its own .d.ts declares.
 */
const EXPECTED_EXPORTS = {
  '@org/core': [
    'toToolChoice',
    'ToolChoice',
    'assertToolChoiceOffered',
    'assertLanguageModel',
    'SPECIFICATION_VERSION',
    'OrgError',
    'InvalidToolChoiceError',
    'UnsupportedToolChoiceError',
    'RateLimitError',
    'TimeoutError',
    'AbortedError',
    'LimitExceededError',
    'redactSecrets',
    'closestMatch',
    'assertToolCallPairing',
    'collectStream',
  ],
  '@org/tools': [
    'defineTool',
    'toolFromDescription',
    'ToolRegistry',
    'toJsonSchema',
    'normalizeJsonSchema',
    'parseToolArguments',
    'validateToolArguments',
    'toolCallToAction',
    'executeAction',
    'executeActions',
    'formatObservationForModel',
  ],
  '@org/plan-executor': [
    'parsePlan',
    'validatePlan',
    'executePlan',
    'createToolPlanTool',
    'formatPlanResult',
  ],
  '@org/planner': ['createFunctionCallingPlanner', 'createReActPlanner', 'runAgent', 'streamAgent'],
  '@org/provider-openai': ['createOpenAI', 'openai'],
  '@org/provider-anthropic': ['createAnthropic', 'anthropic'],
  '@org/provider-bedrock': ['createBedrock', 'bedrock'],
  '@org/provider-google': ['createGoogle', 'google'],
  '@org/provider-mistral': ['createMistral', 'mistral'],
  '@org/provider-scripted': ['createScriptedModel'],
  '@org/provider-conformance': ['runConformanceSuite', 'projectModelRequest'],
  '@org/mcp': ['connectMcp', 'serveMcp', 'serveMcpHttp', 'createMcpServer', 'mcpToolInfo'],
  '@org/otel': ['otelListener', 'formatSpanTree'],
  '@org/code-mode': [
    'runCode',
    'createCodeModeTool',
    'formatCodeResult',
    'declareTools',
    'configureCodeSandboxes',
  ],
  '@org/devtools': ['devtoolsListener', 'startDevtoolsServer', 'DevtoolsOptionError', 'readRow'],
  '@org/restate': ['createRestateAgent', 'createRestateToolService', 'restateToolSource'],
  '@org/ag-ui': [
    'createAgUiHandler',
    'serveAgUi',
    'approvalResume',
    'AgUiEventMapper',
    'AgUiRequestError',
    'InvalidAgUiOptionError',
  ],
};

/**
 * A smoke call per package, run in the fresh install after the import: `mod` is the imported module and
 * `assert` is node:assert/strict. Only calls whose contract is fixed (DESIGN.md, the helper brief) belong here.
 */
const SMOKE_CALLS = {
  '@org/core': `
    assert.deepEqual(mod.toToolChoice('any'), { type: 'required' });
    assert.deepEqual(mod.ToolChoice.tool('get_weather'), { type: 'tool', toolName: 'get_weather' });
    assert.throws(() => mod.toToolChoice('sometimes'), (error) => mod.InvalidToolChoiceError.isInstance(error));
  `,
  '@org/tools': `
    const parsed = mod.parseToolArguments('{"city":"Paris"}');
    assert.equal(parsed.ok, true, 'parseToolArguments accepts valid JSON');
    assert.deepEqual(parsed.value, { city: 'Paris' });
    assert.deepEqual(new mod.ToolRegistry().names(), []);
  `,
  '@org/plan-executor': `
    const parsed = mod.parsePlan('{"steps":[{"id":"a","tool":"get_weather","arguments":{"city":"Paris"}}]}');
    assert.equal(parsed.ok, true, 'parsePlan accepts a one-step plan');
  `,
  // Providers: the default instance hands out a model that satisfies the installed core's LanguageModel
  // contract (spec version included); clients are created lazily, so no key or network is needed.
  '@org/provider-openai': `
    const core = await import('@org/core');
    assert.equal(core.assertLanguageModel(mod.openai('gpt-4o-mini')).modelId, 'gpt-4o-mini');
  `,
  '@org/provider-anthropic': `
    const core = await import('@org/core');
    assert.equal(core.assertLanguageModel(mod.anthropic('claude-sonnet-4-5')).modelId, 'claude-sonnet-4-5');
  `,
  '@org/provider-bedrock': `
    const core = await import('@org/core');
    const modelId = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
    assert.equal(core.assertLanguageModel(mod.bedrock(modelId)).modelId, modelId);
  `,
  // Gemini API and Vertex AI from one package: neither creates its SDK client (nor reads credentials) before a call.
  '@org/provider-google': `
    const core = await import('@org/core');
    assert.equal(core.assertLanguageModel(mod.google('gemini-3-flash')).modelId, 'gemini-3-flash');
    const vertex = mod.createGoogle({ vertexai: true, project: 'my-project', location: 'us-central1' });
    assert.equal(core.assertLanguageModel(vertex('gemini-2.5-pro', { family: 'gemini-2.5' })).family, 'gemini-2.5');
  `,
  '@org/provider-mistral': `
    const core = await import('@org/core');
    assert.equal(core.assertLanguageModel(mod.mistral('mistral-large-latest')).modelId, 'mistral-large-latest');
  `,
  // Also proves the tokenizer (js-tiktoken and its ranks) ships and loads from a plain install.
  '@org/provider-scripted': `
    const core = await import('@org/core');
    const model = core.assertLanguageModel(mod.createScriptedModel({ script: [{ text: 'It is 18 C in Paris.' }] }));
    const response = await model.generate({ messages: [{ role: 'user', content: 'Weather in Paris?' }] });
    assert.equal(response.text, 'It is 18 C in Paris.');
    assert.ok(response.usage.inputTokens > 0, 'the scripted model counts input tokens');
  `,
  '@org/provider-conformance': `
    assert.equal(typeof mod.runConformanceSuite, 'function');
  `,
  // Options are checked before anything is spawned or connected: a typed error, no process, no socket.
  '@org/mcp': `
    await assert.rejects(mod.connectMcp({}), (error) => mod.InvalidMcpOptionError.isInstance(error));
  `,
  // With the no-op global tracer of @opentelemetry/api, a whole run's events are accepted without a throw.
  '@org/otel': `
    const listener = mod.otelListener({ agentName: 'smoke' });
    listener({ type: 'run-started', timestamp: 0, runId: 'r1' });
    listener({ type: 'run-finished', timestamp: 1, runId: 'r1', reason: 'final-answer', steps: 0,
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } });
    listener.endOpenSpans();
  `,
  // Proves the QuickJS WebAssembly and the worker ship and load from a plain install: a program runs in the sandbox.
  '@org/code-mode': `
    const result = await mod.runCode('return [1, 2, 3].map((n) => n * 2);', { tools: [] });
    assert.deepEqual(result.value, [2, 4, 6]);
    await mod.closeCodeSandboxes();
  `,
  // Records one event, reads it back as the viewer does, and serves the page on a free port of 127.0.0.1.
  '@org/devtools': `
    const { mkdtempSync, readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'devtools-smoke-'));
    const listener = mod.devtoolsListener({ dir });
    listener({ type: 'run-started', timestamp: 0, runId: 'r1' });
    listener.close();
    const row = mod.readRow(readFileSync(listener.file, 'utf8').trim(), 'f', 1, 65536);
    assert.equal(row.kind, 'record');
    const server = await mod.startDevtoolsServer({ dir, port: 0 });
    try {
      const page = await fetch(server.url);
      assert.equal(page.status, 200);
      assert.ok((await page.text()).includes('src="app.js"'));
    } finally {
      await server.close();
    }
  `,
  // Options are checked where the workflow is made; a valid one is a Restate workflow definition. Nothing is served.
  '@org/restate': `
    assert.throws(() => mod.createRestateAgent({ name: 'a b', agent: {} }),
      (error) => mod.InvalidRestateAgentOptionError.isInstance(error));
    const agent = mod.createRestateAgent({ name: 'smoke', agent: () => ({ model: {} }) });
    assert.equal(agent.name, 'smoke');
    assert.deepEqual(mod.restateToolSource('weather-tools'), { service: 'weather-tools', prefix: '' });
  `,
  // The web-standard handler answers a request that is not a run (no model call, no network), with the protocol's
  // schemas and encoder loaded from the installed @ag-ui packages.
  '@org/ag-ui': `
    assert.throws(() => mod.createAgUiHandler({ model: {}, tools: [], maxBodyBytes: 0 }),
      (error) => mod.InvalidAgUiOptionError.isInstance(error));
    const handler = mod.createAgUiHandler({ model: { provider: 'smoke', modelId: 'smoke' }, tools: [] });
    assert.equal((await handler(new Request('http://localhost/', { method: 'GET' }))).status, 405);
    const refused = await handler(new Request('http://localhost/', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"threadId":"t"}' }));
    assert.equal(refused.status, 400);
  `,
};

const STEPS = ['source', 'pack', 'publint', 'attw', 'install', 'types', 'smoke'];
const npmEnv = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false' };

class StepFailure extends Error {}

async function main() {
  const started = Date.now();
  const all = publishablePackages();
  const requested = process.argv.slice(2);
  for (const name of requested) {
    if (!all.some((pkg) => pkg.name === name)) {
      throw new Error(
        `unknown package ${name}; publishable packages: ${all.map((pkg) => pkg.name).join(', ')}`,
      );
    }
  }
  const selected = requested.length > 0 ? all.filter((pkg) => requested.includes(pkg.name)) : all;
  const work = makeTempDir('check-packages');
  const tarballDir = path.join(work, 'tarballs');
  mkdirSync(tarballDir);

  /** name -> absolute tarball path, or an Error when packing failed */
  const tarballs = new Map();
  const packTarball = async (pkg) => {
    if (!tarballs.has(pkg.name)) tarballs.set(pkg.name, await pack(pkg, tarballDir).catch((error) => error));
    const result = tarballs.get(pkg.name);
    if (result instanceof Error) throw result;
    return result;
  };

  const rows = [];
  for (const pkg of selected) {
    console.log(`\n── ${pkg.name}`);
    const row = { name: pkg.name, results: {}, failures: [], started: Date.now() };
    rows.push(row);
    const step = async (stepName, action) => {
      try {
        const note = await action();
        row.results[stepName] = 'ok';
        console.log(`  ${stepName.padEnd(8)} ok${note ? `  ${note}` : ''}`);
        return true;
      } catch (error) {
        row.results[stepName] = 'FAIL';
        const message = error instanceof Error ? error.message : String(error);
        row.failures.push(`${stepName}: ${message}`);
        console.log(`  ${stepName.padEnd(8)} FAIL  ${indent(message, 11).trimStart()}`);
        return false;
      }
    };
    const skip = (stepNames, why) => {
      for (const stepName of stepNames) {
        row.results[stepName] = 'skip';
        console.log(`  ${stepName.padEnd(8)} skipped (${why})`);
      }
    };

    if (!(await step('source', () => checkSource(pkg)))) {
      skip(STEPS.slice(1), 'no source');
      continue;
    }
    let tarball;
    const packed = await step('pack', async () => {
      tarball = await packTarball(pkg);
      return path.basename(tarball);
    });
    if (!packed) {
      skip(STEPS.slice(2), 'pack failed');
      continue;
    }
    await step('publint', () => runPublint(tarball));
    await step('attw', () => runAttw(tarball));
    const project = path.join(work, `install-${pkg.name.replace('@', '').replace('/', '-')}`);
    if (!(await step('install', () => installAlone(pkg, tarball, project, all, packTarball)))) {
      skip(['types', 'smoke'], 'install failed');
      continue;
    }
    await step('types', () => checkInstalledTypes(pkg, project));
    await step('smoke', () => smoke(pkg, project));
  }

  printTable(rows);
  const failed = rows.filter((row) => row.failures.length > 0);
  runCleanups();
  if (failed.length > 0) {
    console.error(`\ncheck:packages FAILED for ${failed.length} of ${rows.length} package(s):`);
    for (const row of failed) {
      console.error(`\n${row.name}`);
      for (const failure of row.failures) console.error(indent(`- ${failure}`, 2));
    }
    process.exitCode = 1;
    return;
  }
  console.log(`\ncheck:packages: all ${rows.length} package(s) passed in ${seconds(Date.now() - started)}`);
}

/** src/index.ts must exist and export something; otherwise the package is still empty. */
function checkSource(pkg) {
  const indexPath = path.join(pkg.dir, 'src', 'index.ts');
  let text;
  try {
    text = readFileSync(indexPath, 'utf8');
  } catch {
    throw new StepFailure(
      `${path.relative(repoRoot, indexPath)} does not exist: the package has no source yet`,
    );
  }
  if (!/^\s*export\s/m.test(text)) {
    throw new StepFailure(
      `${path.relative(repoRoot, indexPath)} exports nothing: the package has no public API yet`,
    );
  }
  const entry = pkg.manifest.exports?.['.'];
  if (entry === undefined) throw new StepFailure('package.json has no exports["."] entry point');
  return '';
}

async function pack(pkg, destination) {
  const { stdout } = await run('pnpm', ['pack', '--json', '--pack-destination', destination], {
    cwd: pkg.dir,
    timeoutMs: 120_000,
  });
  const report = JSON.parse(stdout.slice(stdout.indexOf('{')));
  const tarball = path.resolve(destination, report.filename);
  const packedManifest = JSON.parse(
    (await run('tar', ['-xzOf', tarball, 'package/package.json'], { timeoutMs: 30_000 })).stdout,
  );
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [name, range] of Object.entries(packedManifest[field] ?? {})) {
      if (String(range).startsWith('workspace:')) {
        throw new StepFailure(`packed ${field}.${name} is still "${range}": pnpm did not rewrite it`);
      }
    }
  }
  const files = report.files.map((file) => file.path);
  const entry = packedManifest.exports?.['.']?.default;
  if (typeof entry === 'string' && !files.includes(entry.replace(/^\.\//, ''))) {
    throw new StepFailure(
      `the tarball lacks the entry point ${entry} (packed: ${files.join(', ')}); was the package built?`,
    );
  }
  await checkSourceMaps(tarball, files);
  return tarball;
}

/**
 * Every source a packed `.js.map` or `.d.ts.map` names must be in the tarball too (or embedded in the map), so
 * stack traces and "go to definition" in a user's editor land on real code instead of a missing `../src/*.ts`.
 */
async function checkSourceMaps(tarball, files) {
  const maps = files.filter((file) => file.endsWith('.map'));
  if (maps.length === 0) return;
  const unpacked = makeTempDir('check-maps');
  await run('tar', ['-xzf', tarball, '-C', unpacked], { timeoutMs: 30_000 });
  const packed = new Set(files);
  const missing = new Set();
  for (const mapFile of maps) {
    const map = JSON.parse(readFileSync(path.join(unpacked, 'package', mapFile), 'utf8'));
    (map.sources ?? []).forEach((source, index) => {
      if (typeof map.sourcesContent?.[index] === 'string') return;
      const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(mapFile), source));
      if (!packed.has(resolved)) missing.add(`${resolved} (named by ${mapFile})`);
    });
  }
  if (missing.size > 0) {
    throw new StepFailure(
      `source maps name files the tarball lacks; add them to "files": ${[...missing].slice(0, 5).join(', ')}` +
        (missing.size > 5 ? ` and ${missing.size - 5} more` : ''),
    );
  }
}

async function runPublint(tarball) {
  const bytes = readFileSync(tarball);
  const arrayBuffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const { messages, pkg } = await publint({
    pack: { tarball: arrayBuffer },
    strict: true,
    level: 'suggestion',
  });
  const lines = messages.map(
    (message) => `${message.type}: ${formatMessage(message, pkg, { color: false })}`,
  );
  const problems = messages.filter((message) => message.type !== 'suggestion');
  if (problems.length > 0) throw new StepFailure(lines.join('\n'));
  return lines.length > 0 ? `(${lines.join('; ')})` : '';
}

async function runAttw(tarball) {
  const attw = path.join(repoRoot, 'node_modules', '.bin', 'attw');
  try {
    await run(attw, [tarball, '--profile', 'esm-only', '--format', 'ascii', '--no-emoji', '--no-color'], {
      timeoutMs: 120_000,
    });
  } catch (error) {
    throw new StepFailure(error.stdout?.trim() || error.message);
  }
  return '';
}

/**
 * Installs the tarball into an empty project with npm: its internal dependencies from their own tarballs,
 * its declared (non-optional) peers from the registry, nothing else.
 */
async function installAlone(pkg, tarball, project, all, packTarball) {
  const internal = [];
  for (const dependency of internalClosure(pkg.name, all)) {
    try {
      internal.push(await packTarball(dependency));
    } catch (error) {
      throw new StepFailure(`internal dependency ${dependency.name} could not be packed: ${error.message}`);
    }
  }
  const optionalPeers = pkg.manifest.peerDependenciesMeta ?? {};
  const peers = Object.entries(pkg.manifest.peerDependencies ?? {})
    .filter(([name]) => !name.startsWith('@org/') && optionalPeers[name]?.optional !== true)
    .map(([name, range]) => `${name}@${lockedVersion(pkg, name) ?? range}`);
  const external = (manifest) =>
    ['dependencies', 'peerDependencies', 'optionalDependencies'].flatMap((field) =>
      Object.keys(manifest[field] ?? {}).filter((name) => !name.startsWith('@org/')),
    );
  const closure = new Map();
  for (const source of [pkg, ...internalClosure(pkg.name, all)]) {
    for (const [name, versions] of lockedClosure(external(source.manifest), source.dir)) {
      closure.set(name, new Set([...(closure.get(name) ?? []), ...versions]));
    }
  }
  const overrides = lockedOverrides(
    closure,
    new Set(peers.map((spec) => spec.slice(0, spec.lastIndexOf('@')))),
  );
  mkdirSync(project, { recursive: true });
  writeFileSync(
    path.join(project, 'package.json'),
    `${JSON.stringify({ name: 'check-install-alone', private: true, type: 'module', overrides }, null, 2)}\n`,
  );
  await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--loglevel=error', ...internal, tarball, ...peers],
    {
      cwd: project,
      env: npmEnv,
      timeoutMs: 300_000,
    },
  );
  const installed = readJson(path.join(project, 'node_modules', ...pkg.name.split('/'), 'package.json'));
  const from = internal.length > 0 ? `with ${internal.map((file) => path.basename(file)).join(', ')}` : '';
  return [`${pkg.name}@${installed.version}`, from, peers.length > 0 ? `+ peers ${peers.join(', ')}` : '']
    .filter(Boolean)
    .join(' ');
}

/**
 * The version of `name` the workspace installed for `pkg` (its devDependency, resolved by the lockfile), or
 * undefined when the package does not install it itself.
 */
function lockedVersion(pkg, name) {
  const dir = installedDir(name, pkg.dir);
  return dir === undefined ? undefined : readJson(path.join(dir, 'package.json')).version;
}

/** Type-checks the installed declaration files of @org/* packages with only the installed packages. */
function checkInstalledTypes(pkg, project) {
  const consumer = path.join(project, 'consumer.ts');
  writeFileSync(consumer, `import * as entry from '${pkg.name}';\nexport const loaded: object = entry;\n`);
  const program = ts.createProgram([consumer], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: [],
    strict: true,
    noEmit: true,
    skipLibCheck: false,
  });
  const ours = program
    .getSourceFiles()
    .filter((file) => file.fileName === consumer || file.fileName.includes('/node_modules/@org/'));
  const diagnostics = ours.flatMap((file) => [
    ...program.getSyntacticDiagnostics(file),
    ...program.getSemanticDiagnostics(file),
  ]);
  if (diagnostics.length > 0) {
    throw new StepFailure(
      ts.formatDiagnostics(diagnostics, {
        getCanonicalFileName: (name) => name,
        getCurrentDirectory: () => project,
        getNewLine: () => '\n',
      }),
    );
  }
  const valueExports = declaredValueExports(program, consumer);
  writeFileSync(path.join(project, 'declared-exports.json'), JSON.stringify(valueExports));
  return `${ours.length - 1} declaration file(s), ${valueExports.length} value export(s) declared`;
}

/** The names the package's entry .d.ts exports as values (classes, functions, consts), not type-only. */
function declaredValueExports(program, consumer) {
  const checker = program.getTypeChecker();
  const importDeclaration = program.getSourceFile(consumer).statements.find(ts.isImportDeclaration);
  const moduleSymbol = checker.getSymbolAtLocation(importDeclaration.moduleSpecifier);
  if (!moduleSymbol) throw new StepFailure('TypeScript could not resolve the entry point types');
  const names = [];
  for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
    const typeOnly = (symbol.declarations ?? []).some(
      (declaration) =>
        (ts.isExportSpecifier(declaration) &&
          (declaration.isTypeOnly || declaration.parent.parent.isTypeOnly)) ||
        ts.isTypeOnlyExportDeclaration?.(declaration),
    );
    if (typeOnly) continue;
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    if (target.flags & ts.SymbolFlags.Value) names.push(symbol.name);
  }
  return names.sort();
}

async function smoke(pkg, project) {
  const declared = JSON.parse(readFileSync(path.join(project, 'declared-exports.json'), 'utf8'));
  const expected = EXPECTED_EXPORTS[pkg.name] ?? [];
  const script = `import assert from 'node:assert/strict';
process.on('uncaughtException', (error) => {
  process.stderr.write((error instanceof Error ? error.message : String(error)) + '\\n');
  process.exit(1);
});
const mod = await import(${JSON.stringify(pkg.name)});
const runtime = Object.keys(mod);
if (runtime.length === 0) throw new Error('the entry point exports nothing at runtime');
const missing = (names) => names.filter((name) => !(name in mod));
const missingDeclared = missing(${JSON.stringify(declared)});
if (missingDeclared.length > 0) throw new Error('declared in the .d.ts but missing at runtime: ' + missingDeclared.join(', '));
const missingExpected = missing(${JSON.stringify(expected)});
if (missingExpected.length > 0) throw new Error('expected named exports missing: ' + missingExpected.join(', '));
${SMOKE_CALLS[pkg.name] ?? ''}
console.log(JSON.stringify({ exports: runtime.length }));
`;
  writeFileSync(path.join(project, 'smoke.mjs'), script);
  let stdout;
  try {
    ({ stdout } = await run(process.execPath, ['smoke.mjs'], { cwd: project, timeoutMs: 60_000 }));
  } catch (error) {
    throw new StepFailure(error.stderr?.trim() || error.message);
  }
  const { exports } = JSON.parse(stdout.trim().split('\n').at(-1));
  return `${exports} runtime export(s)${SMOKE_CALLS[pkg.name] ? ', smoke call passed' : ''}`;
}

function printTable(rows) {
  const header = ['package', ...STEPS, 'time'];
  const lines = rows.map((row) => [
    row.name,
    ...STEPS.map((stepName) => row.results[stepName] ?? '-'),
    seconds(Date.now() - row.started),
  ]);
  for (let index = 0; index < rows.length; index += 1) {
    const next = rows[index + 1];
    if (next) lines[index][lines[index].length - 1] = seconds(next.started - rows[index].started);
  }
  const widths = header.map((title, column) =>
    Math.max(title.length, ...lines.map((line) => line[column].length)),
  );
  const format = (cells) => `| ${cells.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
  console.log(`\n${format(header)}`);
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
  for (const line of lines) console.log(format(line));
}

function indent(text, spaces) {
  const pad = ' '.repeat(spaces);
  return text
    .split('\n')
    .map((line) => pad + line)
    .join('\n');
}

main().catch((error) => {
  console.error(`check:packages: ${error instanceof Error ? error.message : String(error)}`);
  runCleanups();
  process.exit(1);
});
