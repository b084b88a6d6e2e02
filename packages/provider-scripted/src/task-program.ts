/**
 * The program a model that knows a task writes in code mode (`run_code` of `@org/code-mode`): every call started the
 * moment its inputs are ready (a call without dependencies at once, so that its literal call can start while the
 * answer streams; a dependent one in a `.then` of what it reads), each fan-out a `Promise.all` over the list, each
 * aggregate computed in the program once what it reads is awaited, and the values the answer needs returned as one
 * object.
 */
import type { TaskAggregate, TaskCall } from './task-scripts.js';

const ITEM = '$item';
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const REFERENCE = /\$ref:([A-Za-z0-9_-]+)((?:\.[A-Za-z0-9_-]+)*)/g;
const ITEM_REFERENCE = /\$item((?:\.[A-Za-z0-9_-]+)*)/g;
// Names a program variable may not take: reserved words and the globals the program uses.
const TAKEN = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for ' +
    'function if import in instanceof new null return super switch this throw true try typeof var void while with ' +
    'yield let static await async eval arguments undefined Promise JSON Math Object Array item sum best'
  ).split(' '),
);

/** What the program is written from. */
export interface TaskProgramInput {
  readonly calls: readonly TaskCall[];
  readonly aggregates: readonly TaskAggregate[];
  /** The ids whose values the program returns. */
  readonly returned: readonly string[];
  /** The declared function of each tool name (read from the code tool's declarations). */
  readonly functionOf: (toolName: string) => string;
  /** The ids each call or aggregate reads (its `$ref`s and its fan-out list). */
  readonly dependencies: ReadonlyMap<string, readonly string[]>;
}

/** A `$ref:<id>.<path>` or `$item.<path>` as a JavaScript expression on the variable it names. */
function access(variable: string, path: string): string {
  let expression = variable;
  for (const segment of path.split('.').slice(1)) {
    if (/^(0|[1-9]\d*)$/.test(segment)) expression += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) expression += `.${segment}`;
    else expression += `['${segment}']`;
  }
  return expression;
}

/** A string literal, single-quoted where it can be: inside a provider's JSON each double quote costs an escape. */
function stringLiteral(text: string): string {
  return /^[^'\\\n\r\u2028\u2029]*$/.test(text) ? `'${text}'` : JSON.stringify(text);
}

/**
 * Writes the task's program.
 *
 * @example
 * taskProgram({ calls, aggregates: [], returned: ['winner'], functionOf: (name) => name, dependencies });
 * // const a1 = search({ query: 'a1' }); ... return { winner: await winner };
 */
export function taskProgram(input: TaskProgramInput): string {
  const variables = new Map<string, string>();
  const used = new Set<string>(TAKEN);
  for (const call of input.calls) used.add(input.functionOf(call.toolName));
  for (const id of [...input.calls.map((call) => call.id), ...input.aggregates.map((entry) => entry.id)]) {
    let variable = id.replace(/[^A-Za-z0-9_$]/g, '_');
    if (/^\d/.test(variable)) variable = `_${variable}`;
    while (used.has(variable)) variable = `${variable}_`;
    used.add(variable);
    variables.set(id, variable);
  }
  const variable = (id: string): string => variables.get(id) ?? id;

  const expression = (value: unknown): string => {
    if (typeof value === 'string') return stringExpression(value, variable);
    if (Array.isArray(value)) return `[${value.map(expression).join(', ')}]`;
    if (typeof value === 'object' && value !== null) {
      const fields = Object.entries(value).map(
        ([key, item]) => `${IDENTIFIER.test(key) ? key : stringLiteral(key)}: ${expression(item)}`,
      );
      return fields.length === 0 ? '{}' : `{ ${fields.join(', ')} }`;
    }
    return JSON.stringify(value) ?? 'null';
  };

  /** `body` run once `ids` are ready: at once without dependencies, else in a `.then` of them. */
  const when = (ids: readonly string[], body: string): string => {
    const names = ids.map(variable);
    if (names.length === 0) return body;
    if (names.length === 1) return `${names[0]}.then((${names[0]}) => ${body})`;
    return `Promise.all([${names.join(', ')}]).then(([${names.join(', ')}]) => ${body})`;
  };

  const lines: string[] = [];
  for (const call of input.calls) {
    const invocation = `${input.functionOf(call.toolName)}(${expression(call.arguments)})`;
    const body =
      call.forEach === undefined
        ? invocation
        : `Promise.all(${stringExpression(call.forEach, variable)}.map((item) => ${invocation}))`;
    lines.push(`const ${variable(call.id)} = ${when(input.dependencies.get(call.id) ?? [], body)};`);
  }
  // Aggregates make no call: computed at the end from the awaited calls (waiting then costs no time), as values.
  const values = new Set(input.aggregates.map((entry) => entry.id));
  const readValue = (id: string): string => (values.has(id) ? variable(id) : `(await ${variable(id)})`);
  for (const aggregate of input.aggregates) {
    const source = /^\$ref:([A-Za-z0-9_-]+)/.exec(aggregate.of)?.[1] ?? '';
    const awaited = (id: string): string => (id === source ? readValue(id) : variable(id));
    lines.push(`const ${variable(aggregate.id)} = ${aggregateExpression(aggregate, awaited)};`);
  }
  const returned = input.returned.map((id) => {
    const key = IDENTIFIER.test(id) ? id : stringLiteral(id);
    const value = values.has(id) ? variable(id) : `await ${variable(id)}`;
    return key === value ? key : `${key}: ${value}`;
  });
  lines.push(`return { ${returned.join(', ')} };`);
  return lines.join('\n');
}

/** A task string as an expression: a literal, one reference (its value), or text with references (a template). */
function stringExpression(text: string, variable: (id: string) => string): string {
  const whole = /^\$ref:([A-Za-z0-9_-]+)((?:\.[A-Za-z0-9_-]+)*)$/.exec(text);
  if (whole !== null) return access(variable(whole[1] as string), whole[2] ?? '');
  const item = /^\$item((?:\.[A-Za-z0-9_-]+)*)$/.exec(text);
  if (item !== null) return access('item', item[1] ?? '');
  if (!text.includes('$ref:') && !text.includes(ITEM)) return stringLiteral(text);
  const template = text
    .replace(/[`\\]|\$\{/g, (match) => `\\${match}`)
    .replace(REFERENCE, (_match, id: string, path: string) => `\${${access(variable(id), path)}}`)
    .replace(ITEM_REFERENCE, (_match, path: string) => `\${${access('item', path)}}`);
  return `\`${template}\``;
}

/** An aggregate as an expression over its list: the kept items, then their count, sum, extreme or themselves. */
function aggregateExpression(aggregate: TaskAggregate, variable: (id: string) => string): string {
  let list = stringExpression(aggregate.of, variable);
  const where = Object.entries(aggregate.where ?? {});
  if (where.length > 0) {
    const test = where
      .map(([field, value]) => `${access('item', `.${field}`)} === ${JSON.stringify(value)}`)
      .join(' && ');
    list += `.filter((item) => ${test})`;
  }
  const reduce = aggregate.reduce;
  if (reduce === 'count') return `${list}.length`;
  if (reduce === 'items') return list;
  if ('sum' in reduce) return `${list}.reduce((sum, item) => sum + ${access('item', `.${reduce.sum}`)}, 0)`;
  const field = 'max' in reduce ? reduce.max : reduce.min;
  const compare = 'max' in reduce ? '>' : '<';
  return `${list}.reduce((best, item) => (best === null || ${access('item', `.${field}`)} ${compare} ${access('best', `.${field}`)} ? item : best), null)`;
}
