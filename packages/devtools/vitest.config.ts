import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

// The browser tests need Debian's chromium: the global setup installs it when it is missing.
export default mergeConfig(shared, defineConfig({ test: { globalSetup: ['./test/global-setup.ts'] } }));
