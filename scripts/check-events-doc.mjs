// Checks docs/events.md against the RunEvent union of packages/core/src/events.ts, read with the TypeScript compiler
// API: every event type has a `### \`type\`` section and no section names a type the union lacks; each section's
// field table lists exactly the fields its interface declares (the base fields every event inherits, `timestamp` and
// `runId`, are documented once at the top, with `type`). Run by `pnpm check:docs`; exits 1 on drift, naming each one.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';

const root = join(dirname(new URL(import.meta.url).pathname), '..');
const sourcePath = join(root, 'packages', 'core', 'src', 'events.ts');
const docPath = join(root, 'docs', 'events.md');

/** Event type → its field names (own and inherited, `type` left out), from the union's members. */
function eventsFromSource() {
  const program = ts.createProgram([sourcePath], { strict: true, noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(sourcePath);
  if (source === undefined) throw new Error(`cannot read ${sourcePath}`);
  const union = source.statements.find(
    (node) => ts.isTypeAliasDeclaration(node) && node.name.text === 'RunEvent',
  );
  if (union === undefined) throw new Error('packages/core/src/events.ts declares no `type RunEvent`');
  const events = new Map();
  for (const member of checker.getTypeAtLocation(union.name).types ?? []) {
    const typeSymbol = member.getProperty('type');
    const literal = typeSymbol && checker.getTypeOfSymbolAtLocation(typeSymbol, union);
    if (literal === undefined || !literal.isStringLiteral()) {
      throw new Error(`a RunEvent member (${checker.typeToString(member)}) has no string literal 'type'`);
    }
    // An event's own fields: those its interface declares (a run event redeclares `runId` as required, so it is its
    // own there); the inherited base fields are documented once, at the top.
    const fields = member
      .getProperties()
      .filter((property) => property.getName() !== 'type')
      .filter((property) => (property.declarations ?? []).some((declaration) => !isBaseField(declaration)))
      .map((property) => property.getName());
    events.set(literal.value, new Set(fields));
  }
  const base = source.statements.find(
    (node) => ts.isInterfaceDeclaration(node) && node.name.text === 'EventBase',
  );
  const baseFields = new Set(
    base === undefined ? [] : base.members.map((member) => member.name.getText(source)),
  );
  return { events, baseFields };
}

function isBaseField(declaration) {
  const parent = declaration.parent;
  return ts.isInterfaceDeclaration(parent) && parent.name.text === 'EventBase';
}

/** Heading → field names of the first table under it (its first column, in backticks). */
function sectionsFromDoc() {
  const sections = new Map();
  let current;
  let inTable = false;
  let tableDone = false;
  const lines = readFileSync(docPath, 'utf8').split('\n');
  lines.forEach((line, index) => {
    const heading = /^#{2,3}\s+(.*)$/.exec(line);
    if (heading !== null) {
      const name = /^`([^`]+)`$/.exec(heading[1].trim());
      current = { heading: heading[1].trim(), type: name?.[1], line: index + 1, fields: [] };
      if (current.type !== undefined) {
        if (sections.has(current.type))
          throw new Error(`docs/events.md:${index + 1}: '${current.type}' twice`);
        sections.set(current.type, current);
      } else {
        sections.set(`## ${current.heading}`, current);
      }
      inTable = false;
      tableDone = false;
      return;
    }
    if (current === undefined || tableDone) return;
    const row = /^\|\s*`([A-Za-z_$][\w$]*)`\s*\|/.exec(line);
    if (row !== null) {
      inTable = true;
      current.fields.push(row[1]);
    } else if (inTable && !line.startsWith('|')) {
      tableDone = true;
    }
  });
  return sections;
}

const { events, baseFields } = eventsFromSource();
const sections = sectionsFromDoc();
const problems = [];
const sorted = (values) => [...values].sort().join(', ');

const common = sections.get('## Fields every event carries');
if (common === undefined) problems.push("docs/events.md has no '## Fields every event carries' section");
else {
  const documented = new Set(common.fields);
  for (const field of ['type', ...baseFields]) {
    if (!documented.has(field)) problems.push(`the fields every event carries: '${field}' is not documented`);
  }
}

for (const [type, fields] of events) {
  const section = sections.get(type);
  if (section === undefined) {
    problems.push(`'${type}' is in the RunEvent union but has no '### \`${type}\`' section`);
    continue;
  }
  const documented = new Set(section.fields);
  const missing = [...fields].filter((field) => !documented.has(field));
  const extra = [...documented].filter((field) => !fields.has(field));
  if (missing.length > 0)
    problems.push(`docs/events.md:${section.line} '${type}': undocumented ${sorted(missing)}`);
  if (extra.length > 0)
    problems.push(`docs/events.md:${section.line} '${type}': no such field ${sorted(extra)}`);
}
for (const [key, section] of sections) {
  if (section.type !== undefined && !events.has(key)) {
    problems.push(
      `docs/events.md:${section.line} documents '${key}', which the RunEvent union does not have`,
    );
  }
}

if (problems.length > 0) {
  console.error(
    `check-events-doc: docs/events.md and the RunEvent union disagree:\n  ${problems.join('\n  ')}`,
  );
  process.exit(1);
}
console.log(
  `check-events-doc: the ${events.size} RunEvent types and their fields are documented in docs/events.md`,
);
