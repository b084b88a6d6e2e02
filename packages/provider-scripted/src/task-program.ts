/**
 * The program a capable model writes for a task in code mode (`run_code` of `@org/code-mode`), tersely: every
 * output token is generation time (15 ms a token in the typical profile), and each double quote costs an escape
 * inside the provider's JSON, so strings are single-quoted.
 *
 * - A linear chain is awaited statement by statement; the independent calls of one level share a `Promise.all`; a
 *   fan-out is `Promise.all` over its list, and a list fetched only to fan out over it is fetched in place
 *   (`Promise.all((await list_orders({ customer: 'ACME' })).ids.map((id) => get_order({ id })))`).
 * - Independent chains (two or more parts of the task, unconnected, each more than one call deep) run side by
 *   side: one `Promise.all` of `.then` chains, so that a slow chain does not hold up a fast one.
 * - Every call of a tool with literal arguments (the first level) is written out with them, never built in a loop:
 *   code mode starts an eager tool's literal call as soon as its `)` arrives in the stream.
 * - Aggregates are computed once what they read is awaited; one read once is written where it is read.
 * - Only the values the answer reads are returned; a value nothing reads gets no name.
 */
import { referencedCallIds } from './task-references.js';
import type { TaskAggregate, TaskCall } from './task-scripts.js';

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const REFERENCE = /\$ref:([A-Za-z0-9_-]+)((?:\.[A-Za-z0-9_-]+)*)/g;
const ITEM_REFERENCE = /\$item((?:\.[A-Za-z0-9_-]+)*)/g;
// Names a program variable may not take: reserved words and the globals the program uses.
const TAKEN = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for ' +
    'function if import in instanceof new null return super switch this throw true try typeof var void while with ' +
    'yield let static await async eval arguments undefined Promise JSON Math Object Array'
  ).split(' '),
);

/** The task's shape: what the program's layout depends on (not the names of its functions). */
export interface TaskProgramShape {
  readonly calls: readonly TaskCall[];
  readonly aggregates: readonly TaskAggregate[];
  /** The ids whose values the program returns. */
  readonly returned: readonly string[];
  /** The ids each call or aggregate reads (its `$ref`s and its fan-out list). */
  readonly dependencies: ReadonlyMap<string, readonly string[]>;
}

/** What the program is written from. */
export interface TaskProgramInput extends TaskProgramShape {
  /** The declared function of each tool name (read from the code tool's declarations). */
  readonly functionOf: (toolName: string) => string;
}

/**
 * The calls grouped as the program runs them: one or more threads (independent chains, side by side), each a list
 * of levels (the calls of a level start together once the level before has ended).
 */
interface ProgramLayout {
  readonly threads: readonly (readonly (readonly TaskCall[])[])[];
  /** Whether the threads are written as `.then` chains side by side; otherwise one thread, awaited level by level. */
  readonly threaded: boolean;
}

function layoutOf(shape: TaskProgramShape): ProgramLayout {
  const callIds = new Set(shape.calls.map((call) => call.id));
  const readsOf = (id: string): string[] =>
    (shape.dependencies.get(id) ?? []).filter((read) => callIds.has(read));
  const level = new Map<string, number>();
  for (const call of shape.calls)
    level.set(call.id, 1 + Math.max(0, ...readsOf(call.id).map((read) => level.get(read) ?? 0)));
  // The connected parts of the task (calls linked by what they read), each in task order.
  const root = new Map<string, string>(shape.calls.map((call) => [call.id, call.id]));
  const find = (id: string): string => {
    let current = id;
    while (root.get(current) !== current) current = root.get(current) ?? current;
    return current;
  };
  for (const call of shape.calls) for (const read of readsOf(call.id)) root.set(find(call.id), find(read));
  const parts = new Map<string, TaskCall[]>();
  for (const call of shape.calls) {
    const part = find(call.id);
    parts.set(part, [...(parts.get(part) ?? []), call]);
  }
  const byLevel = (calls: readonly TaskCall[]): TaskCall[][] => {
    const levels: TaskCall[][] = [];
    for (const call of calls) {
      const index = (level.get(call.id) ?? 1) - 1;
      while (levels.length <= index) levels.push([]);
      levels[index]?.push(call);
    }
    return levels.filter((calls) => calls.length > 0);
  };
  const threads = [...parts.values()].map(byLevel);
  const threaded = threads.filter((levels) => levels.length > 1).length > 1;
  return threaded ? { threads, threaded } : { threads: [byLevel(shape.calls)], threaded };
}

/**
 * The task's calls with literal arguments (no `$ref`, no fan-out) in the order the program makes them: the order in
 * which a failed program's result numbers them (`#1 search`).
 */
export function literalCallOrder(shape: TaskProgramShape): string[] {
  return layoutOf(shape).threads.flatMap((levels) => (levels[0] ?? []).map((call) => call.id));
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

/** A JSON value as a literal, strings single-quoted. */
function literal(value: unknown): string {
  return typeof value === 'string' ? stringLiteral(value) : (JSON.stringify(value) ?? 'null');
}

/**
 * Writes the task's program.
 *
 * @example
 * taskProgram({ calls, aggregates: [], returned: ['h4'], functionOf: (name) => name, dependencies });
 * // const h1 = await hop({ key: 'start' });
 * // ...
 * // return { h4: await hop({ key: h3.next }) };
 */
export function taskProgram(input: TaskProgramInput): string {
  const layout = layoutOf(input);
  const functions = new Set(input.calls.map((call) => input.functionOf(call.toolName)));
  const used = new Set<string>([...TAKEN, ...functions]);
  const variables = new Map<string, string>();
  for (const id of [...input.calls.map((call) => call.id), ...input.aggregates.map((entry) => entry.id)]) {
    let variable = id.replace(/[^A-Za-z0-9_$]/g, '_');
    if (/^\d/.test(variable)) variable = `_${variable}`;
    while (used.has(variable)) variable = `${variable}_`;
    used.add(variable);
    variables.set(id, variable);
  }
  const variable = (id: string): string => variables.get(id) ?? id;
  /** A parameter name no variable or function has (it may shadow nothing the body reads). */
  const freshName = (preferred: string): string => {
    let name = preferred;
    while (used.has(name)) name = `${name}_`;
    return name;
  };

  // Who reads each value: later calls, aggregates, the returned object.
  const returned = new Set(input.returned);
  const readers = new Map<string, number>();
  for (const [, reads] of input.dependencies)
    for (const read of reads) readers.set(read, (readers.get(read) ?? 0) + 1);
  const isRead = (id: string): boolean => (readers.get(id) ?? 0) > 0 || returned.has(id);

  // A level of independent calls read only as runs of one list (`best({ scores: [q1.score, ..., q8.score] })`) is
  // bound as one array: `const s = await Promise.all([...]); best({ scores: s.map((x) => x.score) })`.
  const arrays = new Map<string, { readonly name: string; readonly index: number; readonly size: number }>();
  const runOf = (value: readonly unknown[]): { name: string; start: number; path: string } | undefined => {
    let found: { name: string; start: number; path: string } | undefined;
    for (const [at, entry] of value.entries()) {
      const reference =
        typeof entry === 'string' ? /^\$ref:([A-Za-z0-9_-]+)((?:\.[A-Za-z0-9_-]+)*)$/.exec(entry) : null;
      const bound = reference === null ? undefined : arrays.get(reference[1] as string);
      if (reference === null || bound === undefined) return undefined;
      found ??= { name: bound.name, start: bound.index, path: reference[2] ?? '' };
      if (bound.name !== found.name || bound.index !== found.start + at || reference[2] !== found.path)
        return undefined;
    }
    return found;
  };
  if (!layout.threaded) {
    const allArguments = input.calls.map((call) => [call.arguments, call.forEach ?? null]);
    for (const calls of layout.threads[0] ?? []) {
      if (calls.length < 2) continue;
      const ids = new Set(calls.map((call) => call.id));
      const readOnlyByCalls = calls.every(
        (call) =>
          !returned.has(call.id) &&
          input.aggregates.every(
            (aggregate) => !(input.dependencies.get(aggregate.id) ?? []).includes(call.id),
          ),
      );
      if (!readOnlyByCalls) continue;
      const name = freshName('s');
      for (const [index, call] of calls.entries()) arrays.set(call.id, { name, index, size: calls.length });
      // Every reference to the level must sit in such a run; otherwise the level keeps its names.
      let covered = 0;
      const visit = (value: unknown): void => {
        if (Array.isArray(value)) {
          if (value.length > 0 && runOf(value)?.name === name) covered += value.length;
          else value.forEach(visit);
        } else if (typeof value === 'object' && value !== null) Object.values(value).forEach(visit);
      };
      allArguments.forEach(visit);
      const total = referencedCallIds(allArguments).filter((id) => ids.has(id)).length;
      if (covered === total && total > 0) used.add(name);
      else for (const call of calls) arrays.delete(call.id);
    }
  }

  const lines: string[] = [];
  const expression = (value: unknown, item: string | undefined): string => {
    if (typeof value === 'string') return stringExpression(value, variable, item);
    const run = Array.isArray(value) && value.length > 0 ? runOf(value) : undefined;
    if (run !== undefined && Array.isArray(value)) {
      const size = arrays.get(/^\$ref:([A-Za-z0-9_-]+)/.exec(String(value[0]))?.[1] ?? '')?.size ?? 0;
      const end = run.start + value.length;
      const slice =
        run.start === 0 && end === size
          ? ''
          : end === size
            ? `.slice(${run.start})`
            : `.slice(${run.start}, ${end})`;
      return `${run.name}${slice}${run.path === '' ? '' : `.map((x) => ${access('x', run.path)})`}`;
    }
    if (Array.isArray(value)) return `[${value.map((entry) => expression(entry, item)).join(', ')}]`;
    if (typeof value === 'object' && value !== null) {
      const fields = Object.entries(value).map(([key, entry]) => {
        const written = expression(entry, item);
        if (IDENTIFIER.test(key)) return written === key ? key : `${key}: ${written}`;
        return `${stringLiteral(key)}: ${written}`;
      });
      return fields.length === 0 ? '{}' : `{ ${fields.join(', ')} }`;
    }
    return literal(value);
  };

  /** A fan-out's `Promise.all` over `list`. */
  const fanOut = (call: TaskCall, list: string): string => {
    const name = input.functionOf(call.toolName);
    // The item named after the argument it is passed as (`(id) => get_order({ id })`) where that name is free.
    const whole = Object.entries(call.arguments).find(
      ([key, value]) => value === '$item' && IDENTIFIER.test(key) && !used.has(key),
    );
    const item = whole?.[0] ?? freshName('x');
    return `Promise.all(${list}.map((${item}) => ${name}(${expression(call.arguments, item)})))`;
  };
  // Fan-outs that differ only in the call whose list they read (open the top pages of each topic) share a function
  // written once: `const open_pages = (r) => Promise.all(r.top.map((id) => open_page({ id })));`.
  const fanOutShapes = new Map<string, TaskCall[]>();
  for (const call of input.calls) {
    const source =
      call.forEach === undefined ? null : /^\$ref:[A-Za-z0-9_-]+((?:\.[A-Za-z0-9_-]+)*)$/.exec(call.forEach);
    if (source === null || JSON.stringify(call.arguments).includes('$ref:')) continue;
    const shape = JSON.stringify([call.toolName, source[1], call.arguments]);
    fanOutShapes.set(shape, [...(fanOutShapes.get(shape) ?? []), call]);
  }
  const fanOutHelpers = new Map<string, string>();
  for (const group of fanOutShapes.values()) {
    const first = group[0];
    if (group.length < 2 || first === undefined) continue;
    const name = freshName(`${input.functionOf(first.toolName)}s`);
    used.add(name);
    const parameter = freshName('r');
    const path = /^\$ref:[A-Za-z0-9_-]+((?:\.[A-Za-z0-9_-]+)*)$/.exec(first.forEach ?? '')?.[1] ?? '';
    lines.push(`const ${name} = (${parameter}) => ${fanOut(first, access(parameter, path))};`);
    for (const call of group) fanOutHelpers.set(call.id, name);
  }

  /** Lists fetched only to fan out over them, written inside the fan-out: `(await list_orders({...})).ids.map(...)`. */
  const fetchedInPlace = new Map<string, string>();
  /** One call as an expression: its invocation, or a fan-out's `Promise.all` over its list. */
  const callExpression = (call: TaskCall): string => {
    if (call.forEach === undefined)
      return `${input.functionOf(call.toolName)}(${expression(call.arguments, undefined)})`;
    const helper = fanOutHelpers.get(call.id);
    const source = /^\$ref:([A-Za-z0-9_-]+)((?:\.[A-Za-z0-9_-]+)*)$/.exec(call.forEach);
    const inPlace = fetchedInPlace.get(source?.[1] ?? '');
    if (inPlace !== undefined) return fanOut(call, access(`(await ${inPlace})`, source?.[2] ?? ''));
    return helper === undefined
      ? fanOut(call, stringExpression(call.forEach, variable))
      : `${helper}(${variable(source?.[1] ?? '')})`;
  };

  /** The names a level binds: a hole for a value nothing reads, no trailing holes. */
  const pattern = (calls: readonly TaskCall[]): string => {
    const array = arrays.get(calls[0]?.id ?? '');
    if (array !== undefined) return array.name;
    const names = calls.map((call) => (isRead(call.id) ? variable(call.id) : ''));
    while (names.length > 0 && names.at(-1) === '') names.pop();
    if (calls.length === 1) return names[0] ?? '';
    return names.length === 0 ? '' : `[${names.join(', ')}]`;
  };
  const levelExpression = (calls: readonly TaskCall[]): string =>
    calls.length === 1
      ? callExpression(calls[0] as TaskCall)
      : `Promise.all([${calls.map(callExpression).join(', ')}])`;

  /** Returned calls written into the return statement itself (`return { h4: await hop(...) }`). */
  const inReturn = new Map<string, string>();
  if (!layout.threaded) {
    const levels = layout.threads[0] ?? [];
    levels.forEach((calls, index) => {
      const only = calls[0] as TaskCall;
      const last = index === levels.length - 1;
      if (last && calls.length === 1 && returned.has(only.id) && (readers.get(only.id) ?? 0) === 0) {
        inReturn.set(only.id, `await ${callExpression(only)}`);
        return;
      }
      // A list only the next level's one fan-out reads, and only as its list, is fetched where it is used.
      const reader = levels[index + 1]?.length === 1 ? levels[index + 1]?.[0] : undefined;
      if (
        calls.length === 1 &&
        reader !== undefined &&
        !returned.has(only.id) &&
        (readers.get(only.id) ?? 0) === 1 &&
        !fanOutHelpers.has(reader.id) &&
        reader.forEach !== undefined &&
        (reader.forEach === `$ref:${only.id}` || reader.forEach.startsWith(`$ref:${only.id}.`)) &&
        !referencedCallIds(reader.arguments).includes(only.id)
      ) {
        fetchedInPlace.set(only.id, callExpression(only));
        return;
      }
      const names = pattern(calls);
      lines.push(`${names === '' ? '' : `const ${names} = `}await ${levelExpression(calls)};`);
    });
  } else {
    // Each thread a `.then` chain ending in the values read after it (by aggregates or the returned object).
    const readByAggregate = new Set(
      input.aggregates.flatMap((entry) => input.dependencies.get(entry.id) ?? []),
    );
    const exported = (levels: readonly (readonly TaskCall[])[]): string[] =>
      levels
        .flat()
        .flatMap((call) => (returned.has(call.id) || readByAggregate.has(call.id) ? [call.id] : []));
    const bound = (ids: readonly string[]): string =>
      ids.length === 1 ? variable(ids[0] as string) : `[${ids.map(variable).join(', ')}]`;
    const thread = (levels: readonly (readonly TaskCall[])[], exports: readonly string[]): string => {
      const chain = (index: number): string => {
        const calls = levels[index] ?? [];
        const written = levelExpression(calls);
        const ids = calls.map((call) => call.id);
        if (index === levels.length - 1) {
          const same = exports.length === ids.length && exports.every((id, at) => id === ids[at]);
          if (same || exports.length === 0) return written;
          return `${written}.then((${pattern(calls)}) => ${bound(exports)})`;
        }
        // A value only the next level reads is a short parameter (`.then((r) => search({ after: r.score }))`).
        const only = calls.length === 1 ? calls[0] : undefined;
        const laterReads = levels
          .slice(index + 2)
          .flat()
          .flatMap((call) => input.dependencies.get(call.id) ?? []);
        if (only !== undefined && !exports.includes(only.id) && !laterReads.includes(only.id))
          variables.set(only.id, freshName('r'));
        const names = pattern(calls);
        const next = chain(index + 1);
        // `.then(open_pages)` rather than `.then((s1) => open_pages(s1))`.
        const passed = next.endsWith(`(${names})`) ? next.slice(0, -names.length - 2) : '';
        if (IDENTIFIER.test(names) && IDENTIFIER.test(passed)) return `${written}.then(${passed})`;
        return `${written}.then((${names}) => ${next})`;
      };
      return chain(0);
    };
    const exports = layout.threads.map(exported);
    const names = exports.map((ids) => (ids.length === 0 ? '' : bound(ids)));
    while (names.length > 0 && names.at(-1) === '') names.pop();
    const all = `Promise.all([${layout.threads.map((levels, index) => thread(levels, exports[index] ?? [])).join(', ')}])`;
    lines.push(`${names.length === 0 ? '' : `const [${names.join(', ')}] = `}await ${all};`);
  }

  // Aggregates: a value read once is written where it is read, one read more often gets a name. Aggregates that
  // differ only in the value they read (the newest page of each topic) share a function written once.
  const aggregates = new Map(input.aggregates.map((entry) => [entry.id, entry]));
  const inline = (id: string): boolean =>
    aggregates.has(id) && (readers.get(id) ?? 0) + (returned.has(id) ? 1 : 0) === 1;
  const shapes = new Map<string, TaskAggregate[]>();
  for (const aggregate of input.aggregates) {
    if (!/^\$ref:[A-Za-z0-9_-]+$/.test(aggregate.of)) continue;
    const shape = JSON.stringify([aggregate.where ?? {}, aggregate.pick ?? [], aggregate.reduce]);
    shapes.set(shape, [...(shapes.get(shape) ?? []), aggregate]);
  }
  const shared = new Map<string, string>();
  for (const group of shapes.values()) {
    const first = group[0];
    if (group.length < 2 || first === undefined) continue;
    const name = freshName(helperName(first));
    used.add(name);
    const list = freshName('l');
    lines.push(
      `const ${name} = (${list}) => ${aggregateExpression({ ...first, of: '$ref:l' }, () => list)};`,
    );
    for (const aggregate of group) shared.set(aggregate.id, name);
  }
  const valueText = (id: string): string => {
    const aggregate = aggregates.get(id);
    if (aggregate === undefined || !inline(id)) return variable(id);
    const helper = shared.get(id);
    const source = /^\$ref:([A-Za-z0-9_-]+)/.exec(aggregate.of)?.[1] ?? '';
    return helper === undefined
      ? aggregateExpression(aggregate, valueText)
      : `${helper}(${valueText(source)})`;
  };
  for (const aggregate of input.aggregates) {
    if (inline(aggregate.id) || !isRead(aggregate.id)) continue;
    const helper = shared.get(aggregate.id);
    const source = /^\$ref:([A-Za-z0-9_-]+)/.exec(aggregate.of)?.[1] ?? '';
    const value =
      helper === undefined ? aggregateExpression(aggregate, valueText) : `${helper}(${valueText(source)})`;
    lines.push(`const ${variable(aggregate.id)} = ${value};`);
  }
  const fields = input.returned.map((id) => {
    const key = IDENTIFIER.test(id) ? id : stringLiteral(id);
    const value = inReturn.get(id) ?? valueText(id);
    return key === value ? key : `${key}: ${value}`;
  });
  lines.push(fields.length === 0 ? 'return {};' : `return { ${fields.join(', ')} };`);
  return lines.join('\n');
}

/** A task string as an expression: a literal, one reference (its value), or text with references (a template). */
function stringExpression(text: string, variable: (id: string) => string, item?: string): string {
  const whole = /^\$ref:([A-Za-z0-9_-]+)((?:\.[A-Za-z0-9_-]+)*)$/.exec(text);
  if (whole !== null) return access(variable(whole[1] as string), whole[2] ?? '');
  // `$item` stands for the item inside a fan-out only; elsewhere it is text, as the other modes send it.
  const itemWhole = item === undefined ? null : /^\$item((?:\.[A-Za-z0-9_-]+)*)$/.exec(text);
  if (itemWhole !== null && item !== undefined) return access(item, itemWhole[1] ?? '');
  const items = item !== undefined && text.includes('$item');
  if (!text.includes('$ref:') && !items) return stringLiteral(text);
  const template = text
    .replace(/[`\\]|\$\{/g, (match) => `\\${match}`)
    .replace(REFERENCE, (_match, id: string, path: string) => `\${${access(variable(id), path)}}`)
    .replace(ITEM_REFERENCE, (match, path: string) =>
      item === undefined ? match : `\${${access(item, path)}}`,
    );
  return `\`${template}\``;
}

/**
 * An aggregate as an expression over its list: the kept items (`filter`), their picked fields (`map`), then their
 * count, sum, extreme or themselves. `valueText` writes what the list reads: a variable, or an aggregate read once.
 */
function aggregateExpression(aggregate: TaskAggregate, valueText: (id: string) => string): string {
  const source = /^\$ref:([A-Za-z0-9_-]+)((?:\.[A-Za-z0-9_-]+)*)$/.exec(aggregate.of);
  let list = access(valueText(source?.[1] ?? ''), source?.[2] ?? '');
  const where = Object.entries(aggregate.where ?? {});
  if (where.length > 0) {
    const test = where
      .map(([field, value]) => `${access('x', `.${field}`)} === ${literal(value)}`)
      .join(' && ');
    list += `.filter((x) => ${test})`;
  }
  if (aggregate.pick !== undefined) {
    // Only the fields the answer reads: `({ id, published }) => ({ id, published })` where they are plain names.
    const fields = pickedFields(aggregate);
    const plain = fields.every((field) => IDENTIFIER.test(field) && !TAKEN.has(field));
    const body = fields.map((field) =>
      plain ? field : `${IDENTIFIER.test(field) ? field : stringLiteral(field)}: ${access('x', `.${field}`)}`,
    );
    list += `.map((${plain ? `{ ${fields.join(', ')} }` : 'x'}) => ({ ${body.join(', ')} }))`;
  }
  const reduce = aggregate.reduce;
  if (reduce === 'count') return `${list}.length`;
  if (reduce === 'items') return list;
  if ('sum' in reduce) return `${list}.reduce((s, x) => s + ${access('x', `.${reduce.sum}`)}, 0)`;
  const field = 'max' in reduce ? reduce.max : reduce.min;
  const compare = 'max' in reduce ? '>' : '<';
  return `${list}.reduce((b, x) => (b === null || ${access('x', `.${field}`)} ${compare} ${access('b', `.${field}`)} ? x : b), null)`;
}

/** A name for a function shared by aggregates of one shape: `maxPublished`, `sumAmount`, `count`, `items`. */
function helperName(aggregate: TaskAggregate): string {
  const reduce = aggregate.reduce;
  if (typeof reduce === 'string') return reduce;
  const [kind, field] = Object.entries(reduce)[0] ?? ['value', ''];
  const word = String(field).replace(/[^A-Za-z0-9]/g, '');
  return `${kind}${word.charAt(0).toUpperCase()}${word.slice(1)}`;
}

/** The fields an aggregate with `pick` keeps: the picked ones, and the field it reduces over if not among them. */
export function pickedFields(aggregate: TaskAggregate): string[] {
  const fields = [...(aggregate.pick ?? [])];
  const reduce = aggregate.reduce;
  if (typeof reduce === 'object') {
    const field = 'sum' in reduce ? reduce.sum : 'max' in reduce ? reduce.max : reduce.min;
    if (!fields.includes(field)) fields.push(field);
  }
  return fields;
}
