/**
 * `fn` over `items`, at most `limit` at once, results in item order. An item starts when one before it settles, in
 * item order: which one that is depends only on the order of settlement, which a durable run takes from its journal
 * (see `CompletionSequencer`), so a replay starts the same items at the same points.
 */
export function mapInOrder<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  const width = Math.max(
    1,
    Math.min(Number.isFinite(limit) ? Math.floor(limit) : items.length, items.length),
  );
  let next = 0;
  return new Promise<R[]>((resolve, reject) => {
    if (items.length === 0) {
      resolve(results);
      return;
    }
    let settled = 0;
    let failed = false;
    const start = (): void => {
      const index = next++;
      fn(items[index] as T, index).then(
        (value) => {
          results[index] = value;
          settled++;
          if (settled === items.length) resolve(results);
          else if (next < items.length && !failed) start();
        },
        (error: unknown) => {
          failed = true;
          reject(error);
        },
      );
    };
    for (let slot = 0; slot < width; slot++) start();
  });
}
