const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** Appends a key to a path: `a.b`, `a["odd key"]`. */
export function childPath(path: string, key: string): string {
  if (IDENTIFIER.test(key)) return path === '' ? key : `${path}.${key}`;
  return `${path}[${JSON.stringify(key)}]`;
}

/** Appends an array index to a path: `items[2]`. */
export function indexPath(path: string, index: number): string {
  return `${path}[${index}]`;
}

/** The path of a list of keys and indices, as issues write it: `items[2].value`; `''` for none. */
export function pathOf(segments: readonly (string | number)[]): string {
  let path = '';
  for (const segment of segments)
    path = typeof segment === 'number' ? indexPath(path, segment) : childPath(path, segment);
  return path;
}
