import { fileURLToPath } from 'node:url';
import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

// The shared configuration (open-handle guard, JSON report) plus this suite's own guard: the built-in
// prototypes must be exactly as they were before each test and each file.
export default mergeConfig(
  shared,
  defineConfig({
    test: {
      setupFiles: [fileURLToPath(new URL('./test/support/prototype-guard.ts', import.meta.url))],
    },
  }),
);
