import { type MalformedReference, type Reference, type StringTemplate, scanReferences } from './reference.js';

/**
 * One string value inside a step's arguments that holds references: its path (for messages), and where the fill
 * writes it, as {@link fillProgramOf} lays them out for a run.
 */
export interface TemplateSite {
  /** Keys and indexes from the arguments object to the string. */
  readonly path: readonly (string | number)[];
  readonly template: Exclude<StringTemplate, { kind: 'literal' }>;
  /** The last key of `path`: where the filled value is written. */
  readonly key: string | number;
  /** The copy it is written into: 0 the arguments object, `n` the `n`th entry of `ArgumentTemplate.containers`. */
  readonly container: number;
  /** The template's reference when the whole value is one (`template.kind === 'whole'`). */
  readonly reference: Reference | undefined;
}

/** Where references sit in a step's arguments, found once at validation so a run only fills them in. */
export interface ArgumentTemplate {
  readonly sites: readonly TemplateSite[];
  /**
   * The containers below the top level that hold a site, each copied once per fill, parents first: pairs of the
   * copy it sits in (a `TemplateSite.container` number) and its key there. Empty when every site is at the top.
   */
  readonly containers: readonly (string | number)[];
  /**
   * The JSON size of the arguments as written (counted as `measureJsonValue` counts), so a run charges a step's
   * written arguments to its byte limit without walking them again.
   */
  readonly writtenBytes: number;
  /** See {@link fillProgramOf}; made at the first fill, once every reference's `stepIndex` is set. */
  program?: readonly unknown[];
}

/** Every reference site in a step's arguments and every malformed `$ref:`, with where it was found. */
export interface CompiledArguments {
  readonly template: ArgumentTemplate | undefined;
  readonly malformed: readonly { readonly malformed: MalformedReference; readonly pathText: string }[];
}

const NO_CONTAINERS: readonly (string | number)[] = Object.freeze([]);
const NOTHING: CompiledArguments = Object.freeze({ template: undefined, malformed: Object.freeze([]) });

/** A site's path as text, for messages: `query.terms[0]`. Computed only when a message needs it. */
export function pathToText(path: readonly (string | number)[]): string {
  let text = '';
  for (const key of path)
    text = typeof key === 'number' ? `${text}[${key}]` : text === '' ? key : `${text}.${key}`;
  return text;
}

/** Calls `visit` for each reference of a site, in order. */
export function forEachReference(site: TemplateSite, visit: (reference: Reference) => void): void {
  const template = site.template;
  if (template.kind === 'whole') visit(template.reference);
  else for (const part of template.parts) if (typeof part !== 'string') visit(part);
}

/**
 * Finds every string holding `$ref:` in a step's arguments. Recursive, but only after the limit checks have
 * bounded the depth; strings without references cost one `indexOf` and nothing is allocated for them.
 */
export function compileArguments(args: Readonly<Record<string, unknown>>): CompiledArguments {
  let sites: TemplateSite[] | undefined;
  let malformed: { malformed: MalformedReference; pathText: string }[] | undefined;
  let containers: (string | number)[] | undefined;
  let writtenBytes = 0;
  const path: (string | number)[] = [];
  // The copy number of each container along `path` (index: its depth; the arguments object is copy 0), -1 until a
  // site below it needs it copied.
  const copyAt: number[] = [0];
  const visit = (value: unknown): void => {
    // The same count as measureJsonValue's: the fill starts its byte budget from it.
    if (typeof value === 'string') writtenBytes += value.length + 2;
    else if (value !== null && typeof value === 'object') writtenBytes += 2;
    else writtenBytes += 8;
    if (typeof value === 'string') {
      const scanned = scanReferences(value);
      if (scanned.malformed.length > 0) {
        const pathText = pathToText(path);
        malformed ??= [];
        for (const item of scanned.malformed) malformed.push({ malformed: item, pathText });
      }
      const template = scanned.template;
      if (template.kind === 'literal') return;
      // The containers above the string get copy numbers, parents first, the first time a site needs them.
      for (let depth = 1; depth < path.length; depth++) {
        if (copyAt[depth] !== -1) continue;
        containers ??= [];
        containers.push(copyAt[depth - 1]!, path[depth - 1]!);
        copyAt[depth] = containers.length / 2;
      }
      sites ??= [];
      sites.push({
        path: path.slice(),
        template,
        key: path[path.length - 1]!,
        container: copyAt[path.length - 1]!,
        reference: template.kind === 'whole' ? template.reference : undefined,
      });
    } else if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) {
        writtenBytes += 1;
        path.push(index);
        copyAt.push(-1);
        visit(value[index]);
        copyAt.pop();
        path.pop();
      }
    } else if (value !== null && typeof value === 'object') {
      for (const key of Object.keys(value)) {
        writtenBytes += key.length + 4;
        path.push(key);
        copyAt.push(-1);
        visit((value as Record<string, unknown>)[key]);
        copyAt.pop();
        path.pop();
      }
    }
  };
  visit(args);
  if (sites === undefined && malformed === undefined) return NOTHING;
  return {
    template:
      sites === undefined ? undefined : { sites, containers: containers ?? NO_CONTAINERS, writtenBytes },
    malformed: malformed ?? NOTHING.malformed,
  };
}

function setOwn(container: Record<string | number, unknown>, key: string | number, value: unknown): void {
  // Plain assignment to '__proto__' would replace the prototype; a data property is what JSON meant.
  if (key === '__proto__') {
    Object.defineProperty(container, key, { value, enumerable: true, writable: true, configurable: true });
  } else container[key] = value;
}

function shallowCopy(value: unknown): Record<string | number, unknown> {
  return (Array.isArray(value) ? value.slice() : { ...(value as object) }) as Record<
    string | number,
    unknown
  >;
}

/** What a fill asks of the run: the value of a site, or of a whole reference to a step's output. */
export interface SiteValues {
  /** The value a site is filled with. */
  siteValue(site: TemplateSite): unknown;
  /** The value of a whole reference, with no path, to the output of the step at `stepIndex`. */
  outputValue(stepIndex: number, site: TemplateSite): unknown;
}

/**
 * Everything filling a template reads, in one flat array read front to back: how many containers to copy, each as
 * (the copy it sits in, its key); then each site as (its copy, its key, the step index of a whole reference with no
 * path or -1, the site). A long plan's templates live in the old generation, scattered: reading a template's sites,
 * containers, sites' paths and references object by object cost a cache miss each (at 10,000 steps, a third of the
 * executor's time per step); one array costs one or two. Made at the first fill, when the references are resolved
 * (validation and streaming set `stepIndex` before a run sees the template), and kept on the template.
 */
export function fillProgramOf(template: ArgumentTemplate): readonly unknown[] {
  if (template.program !== undefined) return template.program;
  const containers = template.containers;
  const program: unknown[] = [containers.length / 2, ...containers];
  for (const site of template.sites) {
    const reference = site.reference;
    const output = reference !== undefined && reference.path.length === 0 ? reference.stepIndex : -1;
    program.push(site.container, site.key, output, site);
  }
  template.program = program;
  return program;
}

/**
 * Fills a step's arguments: a copy of `args` where each site holds its value. Only the containers on a site's path
 * are copied (each once, listed by `compileArguments`); the plan's own arguments are never modified.
 */
export function fillArguments(
  args: Readonly<Record<string, unknown>>,
  template: ArgumentTemplate,
  values: SiteValues,
): Record<string, unknown> {
  const program = fillProgramOf(template);
  const root = shallowCopy(args);
  const containerCount = program[0] as number;
  // Sized up front: a literal grown by push reallocates its store to 17 slots, once per step.
  const copies: Record<string | number, unknown>[] = new Array(containerCount + 1);
  copies[0] = root;
  let at = 1;
  for (let container = 1; container <= containerCount; container++, at += 2) {
    const parent = copies[program[at] as number]!;
    const key = program[at + 1] as string | number;
    const copy = shallowCopy(parent[key]);
    setOwn(parent, key, copy);
    copies[container] = copy;
  }
  for (; at < program.length; at += 4) {
    const output = program[at + 2] as number;
    const site = program[at + 3] as TemplateSite;
    const value = output === -1 ? values.siteValue(site) : values.outputValue(output, site);
    setOwn(copies[program[at] as number]!, program[at + 1] as string | number, value);
  }
  return root as Record<string, unknown>;
}
