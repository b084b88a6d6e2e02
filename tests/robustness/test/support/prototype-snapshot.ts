/** The own properties (names and symbols) of some objects, with their full descriptors, by a display name. */
export type PrototypeSnapshot = Map<string, Map<PropertyKey, PropertyDescriptor>>;

/** The built-in prototypes this suite guards. */
export const GUARDED_PROTOTYPES: ReadonlyArray<readonly [string, object]> = [
  ['Object.prototype', Object.prototype],
  ['Array.prototype', Array.prototype],
  ['Function.prototype', Function.prototype],
  ['String.prototype', String.prototype],
  ['Number.prototype', Number.prototype],
  ['Promise.prototype', Promise.prototype],
];

/** Snapshots the own property descriptors of each object. */
export function takeSnapshot(
  targets: ReadonlyArray<readonly [string, object]> = GUARDED_PROTOTYPES,
): PrototypeSnapshot {
  const snapshot: PrototypeSnapshot = new Map();
  for (const [name, target] of targets) {
    const descriptors = new Map<PropertyKey, PropertyDescriptor>();
    for (const key of Reflect.ownKeys(target)) {
      const descriptor = Reflect.getOwnPropertyDescriptor(target, key);
      if (descriptor !== undefined) descriptors.set(key, descriptor);
    }
    snapshot.set(name, descriptors);
  }
  return snapshot;
}

const sameDescriptor = (left: PropertyDescriptor, right: PropertyDescriptor): boolean =>
  Object.is(left.value, right.value) &&
  left.get === right.get &&
  left.set === right.set &&
  left.writable === right.writable &&
  left.enumerable === right.enumerable &&
  left.configurable === right.configurable;

/** Every difference between two snapshots, as readable lines (empty when nothing changed). */
export function snapshotChanges(before: PrototypeSnapshot, after: PrototypeSnapshot): string[] {
  const changes: string[] = [];
  for (const [name, expected] of before) {
    const actual = after.get(name) ?? new Map<PropertyKey, PropertyDescriptor>();
    for (const [key, descriptor] of expected) {
      const now = actual.get(key);
      if (now === undefined) changes.push(`${name}: '${String(key)}' was removed`);
      else if (!sameDescriptor(descriptor, now)) changes.push(`${name}: '${String(key)}' was redefined`);
    }
    for (const key of actual.keys()) {
      if (!expected.has(key)) changes.push(`${name}: '${String(key)}' was added`);
    }
  }
  return changes;
}
