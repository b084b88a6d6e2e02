// Compares every ratio of two runs of a benchmark (their markdown output, or two BENCHMARKS.md files): each table
// cell that reads as a ratio (`1.03x`, `1.03x (0.98 – 1.07)`), keyed by its section heading, row and column, side by
// side with the difference of the second from the first. Prints a markdown table and the largest difference.
// Usage: node src/compare-runs.mjs first.md second.md
import { readFileSync } from 'node:fs';
import { fixed, table } from './report.mjs';

function ratiosOf(text) {
  const ratios = new Map();
  let heading = '';
  let header;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) {
      heading = line.replace(/^#+\s*/, '');
      header = undefined;
      continue;
    }
    if (!line.startsWith('|')) {
      header = undefined;
      continue;
    }
    const cells = line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim());
    if (header === undefined) {
      header = cells;
      continue;
    }
    if (cells.every((cell) => /^-+:?$|^:?-+$/.test(cell))) continue;
    cells.forEach((cell, column) => {
      const match = /^\*{0,2}([\d.]+)x\b/.exec(cell);
      if (match === null || column === 0) return;
      // Two columns may share a name (`ratio` after each contender): the column number tells them apart.
      const name =
        header.filter((other) => other === header[column]).length > 1
          ? `${header[column]} (column ${column + 1})`
          : header[column];
      const section = heading.length > 60 ? `${heading.slice(0, 57)}...` : heading;
      ratios.set(`${section} › ${cells[0]} › ${name}`, Number(match[1]));
    });
  }
  return ratios;
}

const [firstPath, secondPath] = process.argv.slice(2);
if (firstPath === undefined || secondPath === undefined) {
  console.error('usage: node src/compare-runs.mjs first.md second.md');
  process.exit(2);
}
const first = ratiosOf(readFileSync(firstPath, 'utf8'));
const second = ratiosOf(readFileSync(secondPath, 'utf8'));
const rows = [];
let largest = { key: '', difference: 0 };
for (const [key, value] of first) {
  if (!second.has(key)) continue;
  const other = second.get(key);
  const difference = value === 0 ? 0 : other / value - 1;
  if (Math.abs(difference) > Math.abs(largest.difference)) largest = { key, difference };
  rows.push([
    key,
    `${fixed(value)}x`,
    `${fixed(other)}x`,
    `${difference >= 0 ? '+' : ''}${fixed(difference * 100, 1)}%`,
  ]);
}
table(['ratio (section › row › column)', 'first run', 'second run', 'difference'], rows);
console.log(
  largest.key === ''
    ? `\n${rows.length} ratios compared; every one identical.`
    : `\n${rows.length} ratios compared; largest difference ${fixed(largest.difference * 100, 1)}% (${largest.key}).`,
);
