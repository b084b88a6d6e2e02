// Formatting helpers shared by the benchmark scripts: markdown tables, fixed decimals, ratios, PASS / FAIL.

/** `value` with `digits` decimals. */
export const fixed = (value, digits = 2) => Number(value).toFixed(digits);

/** `numerator / denominator` as `1.23x`. */
export const ratio = (numerator, denominator, digits = 2) => `${fixed(numerator / denominator, digits)}x`;

/** PASS or FAIL, bold. */
export const verdict = (passed) => (passed ? '**PASS**' : '**FAIL**');

/** Prints a markdown table. */
export function table(header, rows) {
  const numeric = header.map((_, column) =>
    rows.every((row) => /^[-\d.,x% ]+(ms|µs|ns|kB|MB|B)?$/.test(String(row[column])) || row[column] === ''),
  );
  console.log(`| ${header.join(' | ')} |`);
  console.log(`| ${numeric.map((right) => (right ? '---:' : '---')).join(' | ')} |`);
  for (const row of rows)
    console.log(`| ${row.map((cell) => String(cell).replaceAll('|', '\\|')).join(' | ')} |`);
}

/** The median of numbers. */
export function median(values) {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
