import { type MalformedReference, type Reference, type StringTemplate, scanReferences } from './reference.js';

/** One string value inside a step's arguments that holds references. */
export interface TemplateSite {
  /** Keys and indexes from the arguments object to the string. */
  readonly path: readonly (string | number)[];
  readonly template: Exclude<StringTemplate, { kind: 'literal' }>;
}

/** Where references sit in a step's arguments, found once at validation so a run only fills them in. */
export interface ArgumentTemplate {
  readonly sites: readonly TemplateSite[];
  /** Whether any site is below the top level (then containers along its path are copied before writing). */
  readonly nested: boolean;
  /**
   * The JSON size of the arguments as written (counted as `measureJsonValue` counts), so a run charges a step's
   * written arguments to its byte limit without walking them again.
   */
  readonly writtenBytes: number;
}

/** Every reference site in a step's arguments and every malformed `$ref:`, with where it was found. */
export interface CompiledArguments {
  readonly template: ArgumentTemplate | undefined;
  readonly malformed: readonly { readonly malformed: MalformedReference; readonly pathText: string }[];
}

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
  let nested = false;
  let writtenBytes = 0;
  const path: (string | number)[] = [];
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
      if (path.length > 1) nested = true;
      sites ??= [];
      sites.push({ path: path.slice(), template });
    } else if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) {
        writtenBytes += 1;
        path.push(index);
        visit(value[index]);
        path.pop();
      }
    } else if (value !== null && typeof value === 'object') {
      for (const key of Object.keys(value)) {
        writtenBytes += key.length + 4;
        path.push(key);
        visit((value as Record<string, unknown>)[key]);
        path.pop();
      }
    }
  };
  visit(args);
  if (sites === undefined && malformed === undefined) return NOTHING;
  return {
    template: sites === undefined ? undefined : { sites, nested, writtenBytes },
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

/**
 * Fills a step's arguments: a copy of `args` where each site holds `resolveSite(site)`. Only the containers on a
 * site's path are copied; the plan's own arguments are never modified.
 */
export function fillArguments(
  args: Readonly<Record<string, unknown>>,
  template: ArgumentTemplate,
  resolveSite: (site: TemplateSite) => unknown,
): Record<string, unknown> {
  const root = shallowCopy(args);
  const sites = template.sites;
  if (!template.nested) {
    for (let index = 0; index < sites.length; index++) {
      const site = sites[index]!;
      setOwn(root, site.path[0]!, resolveSite(site));
    }
    return root as Record<string, unknown>;
  }
  // Containers copied so far; a plan step has a handful, so a list beats a Set.
  const copies: object[] = [root];
  for (const site of sites) {
    let container = root;
    const path = site.path;
    for (let depth = 0; depth < path.length - 1; depth++) {
      const key = path[depth]!;
      let child = container[key] as Record<string | number, unknown>;
      if (!copies.includes(child)) {
        child = shallowCopy(child);
        copies.push(child);
        setOwn(container, key, child);
      }
      container = child;
    }
    setOwn(container, path[path.length - 1]!, resolveSite(site));
  }
  return root as Record<string, unknown>;
}
