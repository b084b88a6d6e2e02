import type { Adjustment } from './adjustment.js';
import type { JsonSchema } from './json.js';
import { JsonKeyRewriter, type JsonKeyScope } from './json-key-rewriter.js';
import type { ToolSpec } from './tool-call.js';

/** Which property names a provider accepts in a tool schema: a set of characters and a length. */
export interface PropertyNameRules {
  /** Tested on one character at a time, e.g. `/[a-zA-Z0-9_.-]/`; it must accept `_`. */
  readonly allowedCharacter: RegExp;
  /** The longest name accepted. */
  readonly maxLength: number;
  /** The rule as the provider states it, for messages: `^[a-zA-Z0-9_.-]{1,64}$`. */
  readonly description: string;
}

/** The property names renamed for the tools of one request, and the way back. Built by `mapToolPropertyNames`. */
export interface ToolPropertyNames {
  /** The schema to send for a tool (its own, unchanged, when no name was refused). */
  schemaOf(spec: ToolSpec): JsonSchema;
  /** A rewriter for a call's arguments, from the names sent back to the tool's own; `undefined` when none changed. */
  fromWire(toolName: string): JsonKeyRewriter | undefined;
  /** A whole arguments text with the tool's own names restored (the text itself when none changed). */
  argumentsFromWire(toolName: string, argumentsText: string): string;
  /** A whole arguments text with the names sent, for calls in the history (the text itself when none changed). */
  argumentsToWire(toolName: string, argumentsText: string): string;
  /** The `schema-adapted` adjustment (`details.reason: 'property-names-mapped'`), when any name was renamed. */
  readonly adjustment: Adjustment | undefined;
}

/**
 * Applies `mapPropertyNames` to every tool of a request, for a provider that refuses some property names. Tools whose
 * names are all accepted are sent untouched; for the others, one `schema-adapted` adjustment lists every rename.
 *
 * @example
 * const names = mapToolPropertyNames(request.tools ?? [], rules, { provider: 'Anthropic' });
 * const input_schema = names.schemaOf(spec);
 * const text = names.argumentsFromWire(call.toolName, call.arguments);
 */
export function mapToolPropertyNames(
  tools: readonly ToolSpec[],
  rules: PropertyNameRules,
  options: { readonly provider: string },
): ToolPropertyNames {
  const mappings = new Map<string, PropertyNameMapping>();
  for (const spec of tools) {
    const mapping = mapPropertyNames(spec.inputSchema, rules);
    if (mapping.renamed.size > 0) mappings.set(spec.name, mapping);
  }
  const whole = (rewriter: JsonKeyRewriter | undefined, text: string): string =>
    rewriter === undefined ? text : rewriter.push(text) + rewriter.end();
  const described = [...mappings].map(
    ([toolName, mapping]) =>
      `${toolName}: ${[...mapping.renamed].map(([from, to]) => `'${from}' as '${to}'`).join(', ')}`,
  );
  return {
    schemaOf: (spec) => mappings.get(spec.name)?.schema ?? spec.inputSchema,
    fromWire: (toolName) => mappings.get(toolName)?.argumentsFromWire(),
    argumentsFromWire: (toolName, text) => whole(mappings.get(toolName)?.argumentsFromWire(), text),
    argumentsToWire: (toolName, text) => whole(mappings.get(toolName)?.argumentsToWire(), text),
    adjustment:
      mappings.size === 0
        ? undefined
        : {
            kind: 'schema-adapted',
            message:
              `${options.provider} accepts tool property names matching ${rules.description}; sent ` +
              `${described.join('; ')}. The model's arguments (and earlier calls in the history) are mapped back ` +
              `key by key, their values untouched.`,
            details: {
              reason: 'property-names-mapped',
              renamed: Object.fromEntries(
                [...mappings].map(([toolName, mapping]) => [toolName, Object.fromEntries(mapping.renamed)]),
              ),
            },
          },
  };
}

/**
 * A tool schema whose property names were made acceptable to a provider, and the way back. Built by
 * `mapPropertyNames`; providers use it to send the schema and to read the model's arguments.
 */
export interface PropertyNameMapping {
  /** The schema to send: every refused name renamed, in `properties` at any depth and in `required` lists. */
  readonly schema: JsonSchema;
  /** Each renamed property: the tool's own name → the name sent. Empty when the schema needed no change. */
  readonly renamed: ReadonlyMap<string, string>;
  /**
   * A rewriter for the model's arguments: the names sent back to the tool's own, only where the schema declares
   * them (keys of free-form objects are never touched). Values are kept byte for byte.
   */
  argumentsFromWire(): JsonKeyRewriter;
  /** The other way, for arguments of earlier calls in the history: the tool's own names to the names sent. */
  argumentsToWire(): JsonKeyRewriter;
}

// Keywords whose value is one subschema, a list of subschemas, or a map of them (JSON Schema 2020-12 and draft 7).
const SINGLE_SUBSCHEMA = [
  'items',
  'additionalItems',
  'additionalProperties',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
] as const;
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'] as const;
const SUBSCHEMA_MAPS = ['$defs', 'definitions', 'patternProperties', 'dependentSchemas'] as const;

/**
 * Renames the property names of a tool schema that a provider refuses (Anthropic and Claude on Bedrock accept
 * `^[a-zA-Z0-9_.-]{1,64}$`; a real BFCL function has `año_vehiculo`), reversibly. Accepted names are kept. A refused
 * name is sent in an accepted form: accents dropped (`año_vehiculo` → `ano_vehiculo`), other characters replaced by
 * `_`, names too long cut with a short hash; a form already used anywhere in the schema gets a numbered suffix, so
 * the mapping is one-to-one over the whole schema. The caller's schema is not modified.
 *
 * @example
 * const mapping = mapPropertyNames(schema, { allowedCharacter: /[a-zA-Z0-9_.-]/, maxLength: 64 });
 * mapping.renamed; // Map { 'año_vehiculo' => 'ano_vehiculo' }
 */
export function mapPropertyNames(schema: JsonSchema, rules: PropertyNameRules): PropertyNameMapping {
  const allowed = new RegExp(
    rules.allowedCharacter.source,
    rules.allowedCharacter.flags.replace(/[gy]/g, ''),
  );
  const isAccepted = (name: string): boolean => {
    if (name.length === 0 || name.length > rules.maxLength) return false;
    for (const character of name) if (!allowed.test(character)) return false;
    return true;
  };

  const names = new Set<string>();
  walkSchema(schema, {
    onProperties: (properties) => {
      for (const name of Object.keys(properties)) names.add(name);
    },
  });
  const taken = new Set([...names].filter(isAccepted));
  const renamed = new Map<string, string>();
  for (const name of names) {
    if (taken.has(name)) continue;
    const base = acceptedForm(name, allowed, rules.maxLength);
    let candidate = base;
    for (let counter = 2; taken.has(candidate); counter++) {
      const suffix = `_${counter}`;
      candidate = `${base.slice(0, rules.maxLength - suffix.length)}${suffix}`;
    }
    taken.add(candidate);
    renamed.set(name, candidate);
  }

  const wireSchema = renamed.size === 0 ? schema : (renameInSchema(schema, renamed) as JsonSchema);
  const toWire = (name: string): string => renamed.get(name) ?? name;
  return {
    schema: wireSchema,
    renamed,
    argumentsFromWire: () =>
      new JsonKeyRewriter(renamed.size === 0 ? undefined : scopeOf([schema], schema, toWire, 'from-wire')),
    argumentsToWire: () =>
      new JsonKeyRewriter(renamed.size === 0 ? undefined : scopeOf([schema], schema, toWire, 'to-wire')),
  };
}

function acceptedForm(name: string, allowed: RegExp, maxLength: number): string {
  let form = '';
  for (const character of name.normalize('NFKD')) {
    if (/\p{M}/u.test(character)) continue;
    form += allowed.test(character) ? character : '_';
  }
  if (form === '') form = '_';
  return form.length <= maxLength ? form : `${form.slice(0, maxLength - 8)}_${shortHash(name)}`;
}

/** A short, stable hash (FNV-1a, 32 bits) in base 36, 7 characters. */
function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(36).padStart(7, '0');
}

type SchemaObject = Readonly<Record<string, unknown>>;

function isSchemaObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Visits every subschema (keyword-aware, so a property named `properties` is not mistaken for the keyword). */
function walkSchema(
  node: unknown,
  visitor: { onProperties: (properties: SchemaObject) => void },
  active: Set<unknown> = new Set(),
): void {
  if (!isSchemaObject(node) || active.has(node)) return;
  active.add(node);
  const properties = node.properties;
  if (isSchemaObject(properties)) {
    visitor.onProperties(properties);
    for (const child of Object.values(properties)) walkSchema(child, visitor, active);
  }
  for (const keyword of SINGLE_SUBSCHEMA) walkSchema(node[keyword], visitor, active);
  for (const keyword of SUBSCHEMA_LISTS) {
    const list = node[keyword];
    if (Array.isArray(list)) for (const child of list) walkSchema(child, visitor, active);
  }
  for (const keyword of SUBSCHEMA_MAPS) {
    const map = node[keyword];
    if (isSchemaObject(map)) for (const child of Object.values(map)) walkSchema(child, visitor, active);
  }
  active.delete(node);
}

/** A copy of the schema with `properties` keys and `required` entries renamed (plain data, own properties only). */
function renameInSchema(
  node: unknown,
  renamed: ReadonlyMap<string, string>,
  active = new Set<unknown>(),
): unknown {
  if (Array.isArray(node)) return node.map((child) => renameInSchema(child, renamed, active));
  if (!isSchemaObject(node) || active.has(node)) return node;
  active.add(node);
  const entries = Object.entries(node).map(([keyword, value]): [string, unknown] => {
    if (keyword === 'properties' && isSchemaObject(value)) {
      return [
        keyword,
        Object.fromEntries(
          Object.entries(value).map(([name, child]) => [
            renamed.get(name) ?? name,
            renameInSchema(child, renamed, active),
          ]),
        ),
      ];
    }
    if (keyword === 'required' && Array.isArray(value)) {
      return [keyword, value.map((name) => (typeof name === 'string' ? (renamed.get(name) ?? name) : name))];
    }
    if ((SINGLE_SUBSCHEMA as readonly string[]).includes(keyword)) {
      return [keyword, renameInSchema(value, renamed, active)];
    }
    if ((SUBSCHEMA_LISTS as readonly string[]).includes(keyword) && Array.isArray(value)) {
      return [keyword, value.map((child) => renameInSchema(child, renamed, active))];
    }
    if ((SUBSCHEMA_MAPS as readonly string[]).includes(keyword) && isSchemaObject(value)) {
      return [
        keyword,
        Object.fromEntries(
          Object.entries(value).map(([name, child]) => [name, renameInSchema(child, renamed, active)]),
        ),
      ];
    }
    // enum, const, default, examples and unknown keywords are values: kept as they are.
    return [keyword, value];
  });
  active.delete(node);
  // Object.fromEntries defines own properties, so a property named `__proto__` stays an ordinary key.
  return Object.fromEntries(entries);
}

interface ScopeEntry {
  readonly name: string;
  readonly nodes: SchemaObject[];
  scope?: JsonKeyScope | undefined;
}

/**
 * The key scope of a position in the arguments where every schema of `nodes` applies. Built lazily as the
 * arguments are read, so a recursive schema costs no more than the depth of the arguments.
 */
function scopeOf(
  nodes: readonly unknown[],
  root: JsonSchema,
  toWire: (name: string) => string,
  direction: 'from-wire' | 'to-wire',
): JsonKeyScope | undefined {
  const applicable = expand(nodes, root);
  if (applicable.length === 0) return undefined;
  let keys: Map<string, ScopeEntry> | undefined;
  let otherKeys: JsonKeyScope | undefined | null = null;
  let items: JsonKeyScope | undefined | null = null;

  const buildKeys = (): Map<string, ScopeEntry> => {
    const built = new Map<string, ScopeEntry>();
    const add = (incoming: string, name: string, child: unknown): void => {
      const entry = built.get(incoming) ?? { name, nodes: [] };
      if (isSchemaObject(child)) entry.nodes.push(child);
      built.set(incoming, entry);
    };
    for (const node of applicable) {
      if (!isSchemaObject(node.properties)) continue;
      for (const [original, child] of Object.entries(node.properties)) {
        const wire = toWire(original);
        if (direction === 'from-wire') {
          add(wire, original, child);
          // A model that wrote the tool's own name anyway: kept, and its value still read with the schema.
          if (wire !== original) add(original, original, child);
        } else {
          add(original, wire, child);
          if (wire !== original) add(wire, wire, child);
        }
      }
    }
    return built;
  };

  return {
    key(key) {
      keys ??= buildKeys();
      const entry = keys.get(key);
      if (entry !== undefined) {
        if (!('scope' in entry)) entry.scope = scopeOf(entry.nodes, root, toWire, direction);
        return { name: entry.name, scope: entry.scope };
      }
      if (otherKeys === null) {
        const children: unknown[] = [];
        for (const node of applicable) {
          children.push(node.additionalProperties, node.unevaluatedProperties);
          if (isSchemaObject(node.patternProperties)) children.push(...Object.values(node.patternProperties));
        }
        otherKeys = scopeOf(children, root, toWire, direction);
      }
      return { name: key, scope: otherKeys };
    },
    items() {
      if (items === null) {
        const children: unknown[] = [];
        for (const node of applicable) {
          for (const keyword of ['items', 'prefixItems', 'additionalItems', 'contains', 'unevaluatedItems']) {
            const value = node[keyword];
            if (Array.isArray(value)) children.push(...value);
            else children.push(value);
          }
        }
        items = scopeOf(children, root, toWire, direction);
      }
      return items;
    },
  };
}

/** The schemas that apply at a position: the nodes themselves, what they reference, and their combinations. */
function expand(nodes: readonly unknown[], root: JsonSchema): SchemaObject[] {
  const result: SchemaObject[] = [];
  const seen = new Set<unknown>();
  const visit = (node: unknown): void => {
    if (!isSchemaObject(node) || seen.has(node)) return;
    seen.add(node);
    result.push(node);
    if (typeof node.$ref === 'string') visit(resolveReference(root, node.$ref));
    for (const keyword of ['allOf', 'anyOf', 'oneOf'] as const) {
      const list = node[keyword];
      if (Array.isArray(list)) for (const child of list) visit(child);
    }
    for (const keyword of ['if', 'then', 'else'] as const) visit(node[keyword]);
  };
  for (const node of nodes) visit(node);
  return result;
}

/** A local `$ref` (`#`, `#/$defs/Name`); anything else resolves to nothing, and its keys are left alone. */
function resolveReference(root: JsonSchema, reference: string): unknown {
  if (reference === '#') return root;
  if (!reference.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of reference.slice(2).split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
    if (Array.isArray(node)) node = node[Number(segment)];
    else if (isSchemaObject(node) && Object.hasOwn(node, segment)) node = node[segment];
    else return undefined;
  }
  return node;
}
