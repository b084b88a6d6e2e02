import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** The module files the entry point reaches through relative imports, `index.ts` first. */
function reachableModules(): Map<string, string> {
  const modules = new Map<string, string>();
  const visit = (file: string): void => {
    if (modules.has(file)) return;
    const source = readFileSync(new URL(file, import.meta.url), 'utf8');
    modules.set(file, source);
    for (const match of source.matchAll(/^(?:import|export)\s[^;]*?from '(\.\/[^']+)\.js';/gms)) {
      visit(`${match[1]}.ts`);
    }
  };
  visit('./index.ts');
  return modules;
}

describe('the entry point in a browser bundle', () => {
  it('imports no Node built-in at load time (serveAgUi loads node:http when called)', () => {
    const modules = reachableModules();
    expect(modules.size).toBeGreaterThan(5);
    const staticNodeImports = [...modules].flatMap(([file, source]) =>
      [...source.matchAll(/^import (?!type )[^;]*from '(node:[^']+)'/gm)].map(
        (match) => `${file}: ${match[1]}`,
      ),
    );
    expect(staticNodeImports).toEqual([]);
  });
});
