import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

// The durable tests run against a real restate-server, started once for the package (see the global setup).
export default mergeConfig(
  shared,
  defineConfig({ test: { globalSetup: ['./src/__fixtures__/restate-server.global-setup.ts'] } }),
);
