/**
 * Orders steps so that each comes after every step it depends on (Kahn's algorithm), and when that is
 * impossible names the cycles: one per group of steps that cannot be ordered, each listed in dependency order
 * with its first step repeated at the end (`a → b → a`: a needs b, b needs a).
 */
export function orderSteps(
  count: number,
  dependencyStart: Int32Array,
  dependencyList: Int32Array,
  dependentStart: Int32Array,
  dependentList: Int32Array,
): { order: Int32Array; cycles: number[][] } {
  const remaining = new Int32Array(count);
  const order = new Int32Array(count);
  let tail = 0;
  for (let step = 0; step < count; step++) {
    remaining[step] = dependencyStart[step + 1]! - dependencyStart[step]!;
    if (remaining[step] === 0) order[tail++] = step;
  }
  for (let head = 0; head < tail; head++) {
    const step = order[head]!;
    for (let edge = dependentStart[step]!; edge < dependentStart[step + 1]!; edge++) {
      const dependent = dependentList[edge]!;
      if (--remaining[dependent]! === 0) order[tail++] = dependent;
    }
  }
  if (tail === count) return { order, cycles: [] };

  // Depth-first search over the steps left unordered, following dependencies; a dependency already on the
  // search path closes a cycle. One cycle per search root keeps the report short and the search linear.
  const cycles: number[][] = [];
  const state = new Uint8Array(count); // 0 unvisited, 1 on the path, 2 done
  for (let root = 0; root < count; root++) {
    if (remaining[root] === 0 || state[root] !== 0) continue;
    const path: number[] = [root];
    const nextEdge: number[] = [dependencyStart[root]!];
    state[root] = 1;
    let found = false;
    while (path.length > 0 && !found) {
      const depth = path.length - 1;
      const step = path[depth]!;
      const edge = nextEdge[depth]!;
      if (edge >= dependencyStart[step + 1]!) {
        state[step] = 2;
        path.pop();
        nextEdge.pop();
        continue;
      }
      nextEdge[depth] = edge + 1;
      const dependency = dependencyList[edge]!;
      if (remaining[dependency] === 0 || state[dependency] === 2) continue;
      if (state[dependency] === 1) {
        const cycle = path.slice(path.indexOf(dependency));
        cycle.push(dependency);
        cycles.push(cycle);
        found = true;
      } else {
        state[dependency] = 1;
        path.push(dependency);
        nextEdge.push(dependencyStart[dependency]!);
      }
    }
    for (const step of path) state[step] = 2;
  }
  return { order: order.subarray(0, tail), cycles };
}
