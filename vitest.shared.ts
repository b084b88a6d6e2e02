import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The one test configuration every package extends (`vitest.config.ts` re-exports it).
 * The JSON report feeds the root summary line; unhandled errors fail the run (vitest's default, kept explicit);
 * `vitest.setup.ts` fails any test file that leaves a server, socket or child process open.
 */
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    reporters: ['default', ['json', { outputFile: 'test-results.json' }]],
    dangerouslyIgnoreUnhandledErrors: false,
    setupFiles: [fileURLToPath(new URL('./vitest.setup.ts', import.meta.url))],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    typecheck: { enabled: false },
  },
});
