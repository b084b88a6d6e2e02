import { field, invalidResponse } from './wire-values.js';

// Vertex AI streams a call's arguments in fragments when `streamFunctionCallArguments` is on: each `partialArgs` entry
// sets one value at a JSON Path (RFC 9535: `$.city`, `$.stops[0].name`, `$['a b']`), a string split over several
// entries marked `willContinue`. The arguments are rebuilt here, key by key as own data, and written as JSON once
// the call is complete.

type Segment = string | number;

/** The segments of a JSON Path of the forms Vertex sends, or an `invalid_response` error. */
export function parseJsonPath(path: string): Segment[] {
  if (!path.startsWith('$'))
    throw invalidResponse(`the argument path ${JSON.stringify(path)} does not start at $.`);
  const segments: Segment[] = [];
  let rest = path.slice(1);
  while (rest !== '') {
    const match =
      /^\.([A-Za-z_][A-Za-z0-9_-]*)/.exec(rest) ??
      /^\[(\d{1,9})\]/.exec(rest) ??
      /^\['((?:[^'\\]|\\.)*)'\]/.exec(rest) ??
      /^\["((?:[^"\\]|\\.)*)"\]/.exec(rest);
    if (match === null)
      throw invalidResponse(`the argument path ${JSON.stringify(path)} is not one this adapter reads.`);
    const [whole, captured = ''] = match;
    segments.push(
      whole.startsWith('[') && /^\d/.test(captured) ? Number(captured) : captured.replace(/\\(.)/g, '$1'),
    );
    rest = rest.slice(whole.length);
  }
  if (segments.length === 0) throw invalidResponse('an argument path names the arguments object itself.');
  return segments;
}

function define(target: Record<string, unknown> | unknown[], key: Segment, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The arguments of one call as they arrive. */
export class PartialArguments {
  readonly #root: Record<string, unknown> = {};
  /** The path of the last string fragment that said more of it follows. */
  #continuing: string | undefined;

  /** Applies one `partialArgs` entry (its value, at its path). */
  apply(entry: Readonly<Record<string, unknown>>, what: string): void {
    const path = field(entry, 'jsonPath');
    if (typeof path !== 'string') throw invalidResponse(`${what}.jsonPath is not a string.`);
    const segments = parseJsonPath(path);
    const value = fragmentValue(entry, what);
    const append = this.#continuing === path && typeof value === 'string';
    this.#continuing = field(entry, 'willContinue') === true && typeof value === 'string' ? path : undefined;
    let node: Record<string, unknown> | unknown[] = this.#root;
    for (const [index, segment] of segments.entries()) {
      const last = index === segments.length - 1;
      const existing = Object.hasOwn(node, segment) ? (node as Record<Segment, unknown>)[segment] : undefined;
      if (Array.isArray(node) !== (typeof segment === 'number')) {
        throw invalidResponse(
          `${what}: the path ${path} indexes ${Array.isArray(node) ? 'an array by name' : 'an object by number'}.`,
        );
      }
      if (Array.isArray(node) && typeof segment === 'number' && segment > node.length) {
        throw invalidResponse(`${what}: the path ${path} leaves a hole in an array.`);
      }
      if (last) {
        define(node, segment, append && typeof existing === 'string' ? existing + (value as string) : value);
        return;
      }
      if (typeof existing === 'object' && existing !== null) {
        node = existing as Record<string, unknown> | unknown[];
        continue;
      }
      const child: Record<string, unknown> | unknown[] = typeof segments[index + 1] === 'number' ? [] : {};
      define(node, segment, child);
      node = child;
    }
  }

  /** The arguments so far, as JSON text. */
  text(): string {
    return JSON.stringify(this.#root);
  }
}

function fragmentValue(entry: Readonly<Record<string, unknown>>, what: string): unknown {
  const text = field(entry, 'stringValue');
  if (typeof text === 'string') return text;
  const numeric = field(entry, 'numberValue');
  if (typeof numeric === 'number' && Number.isFinite(numeric)) return numeric;
  const flag = field(entry, 'boolValue');
  if (typeof flag === 'boolean') return flag;
  if (field(entry, 'nullValue') === 'NULL_VALUE') return null;
  throw invalidResponse(`${what} carries no value of a known kind.`);
}
