/**
 * Issue 18: measuring time and heap of one call, for "bounded work per input byte" assertions. Figures are ratios
 * measured in the same run (a large input against a small one), never absolute speeds.
 */

/** Time (ms) and heap growth (bytes, after the call, before any collection) of `run`, best of `repeat`. */
export function measure(run: () => unknown, repeat = 3): { readonly ms: number; readonly heapBytes: number } {
  let best = Number.POSITIVE_INFINITY;
  let heap = 0;
  for (let attempt = 0; attempt < repeat; attempt++) {
    const before = process.memoryUsage().heapUsed;
    const started = performance.now();
    run();
    const ms = performance.now() - started;
    const grown = Math.max(0, process.memoryUsage().heapUsed - before);
    if (ms < best) {
      best = ms;
      heap = grown;
    }
  }
  return { ms: best, heapBytes: heap };
}

/** As {@link measure}, for an async call. */
export async function measureAsync(
  run: () => Promise<unknown>,
  repeat = 3,
): Promise<{ readonly ms: number; readonly heapBytes: number }> {
  let best = Number.POSITIVE_INFINITY;
  let heap = 0;
  for (let attempt = 0; attempt < repeat; attempt++) {
    const before = process.memoryUsage().heapUsed;
    const started = performance.now();
    await run();
    const ms = performance.now() - started;
    const grown = Math.max(0, process.memoryUsage().heapUsed - before);
    if (ms < best) {
      best = ms;
      heap = grown;
    }
  }
  return { ms: best, heapBytes: heap };
}

/** Figures measured by this run, printed once at the end of a file for the README. */
export const figures: string[] = [];

/** Records a figure line (also returned, for an assertion message). */
export function figure(line: string): string {
  figures.push(line);
  return line;
}
