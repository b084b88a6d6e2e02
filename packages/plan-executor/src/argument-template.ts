import { type MalformedReference, type Reference, type StringTemplate, scanReferences } from './reference.js';

/** One string value inside a step's arguments that holds references. */
export interface TemplateSite {
  /** Keys and indexes from the arguments object to the string. */
  readonly path: readonly (string | number)[];
  /** The same path as text, for messages: `query.terms[0]`. */
  readonly pathText: string;
  readonly template: Exclude<StringTemplate, { kind: 'literal' }>;
}

/** Where references sit in a step's arguments, found once at validation so a run only fills them in. */
export interface ArgumentTemplate {
  readonly sites: readonly TemplateSite[];
  /** Whether any site is below the top level (then containers along its path are copied before writing). */
  readonly nested: boolean;
}

/** Every reference in a step's arguments and every malformed `$ref:`, with where it was found. */
export interface CompiledArguments {
  readonly template: ArgumentTemplate | undefined;
  readonly references: readonly { readonly reference: Reference; readonly pathText: string }[];
  readonly malformed: readonly { readonly malformed: MalformedReference; readonly pathText: string }[];
}

const appendPath = (base: string, key: string | number): string =>
  typeof key === 'number' ? `${base}[${key}]` : base === '' ? key : `${base}.${key}`;

/**
 * Finds every string holding `$ref:` in a step's arguments. Iterative: depth was bounded by the limit checks
 * already, but an explicit stack keeps the walk safe whatever the input.
 */
export function compileArguments(args: Readonly<Record<string, unknown>>): CompiledArguments {
  const sites: TemplateSite[] = [];
  const references: { reference: Reference; pathText: string }[] = [];
  const malformed: { malformed: MalformedReference; pathText: string }[] = [];
  const stack: { value: unknown; path: (string | number)[]; pathText: string }[] = [
    { value: args, path: [], pathText: '' },
  ];
  while (stack.length > 0) {
    const { value, path, pathText } = stack.pop()!;
    if (typeof value === 'string') {
      const scanned = scanReferences(value);
      for (const item of scanned.malformed) malformed.push({ malformed: item, pathText });
      const template = scanned.template;
      if (template.kind === 'literal') continue;
      sites.push({ path, pathText, template });
      if (template.kind === 'whole') references.push({ reference: template.reference, pathText });
      else {
        for (const part of template.parts)
          if (typeof part !== 'string') references.push({ reference: part, pathText });
      }
    } else if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--) {
        stack.push({ value: value[index], path: [...path, index], pathText: appendPath(pathText, index) });
      }
    } else if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value);
      for (let index = keys.length - 1; index >= 0; index--) {
        const key = keys[index]!;
        stack.push({
          value: (value as Record<string, unknown>)[key],
          path: [...path, key],
          pathText: appendPath(pathText, key),
        });
      }
    }
  }
  return {
    template: sites.length === 0 ? undefined : { sites, nested: sites.some((site) => site.path.length > 1) },
    references,
    malformed,
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
  const copies = new Set<object>([root]);
  for (const site of sites) {
    let container = root;
    const path = site.path;
    for (let depth = 0; depth < path.length - 1; depth++) {
      const key = path[depth]!;
      let child = container[key] as Record<string | number, unknown>;
      if (!copies.has(child)) {
        child = shallowCopy(child);
        copies.add(child);
        setOwn(container, key, child);
      }
      container = child;
    }
    setOwn(container, path[path.length - 1]!, resolveSite(site));
  }
  return root as Record<string, unknown>;
}
