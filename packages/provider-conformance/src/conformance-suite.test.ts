import { createReferenceFixture } from './__fixtures__/reference-model.js';
import { runConformanceSuite } from './index.js';

// The suite run against an offline model that honours the contract: every case must pass, network cases included
// (the reference model renders scripted errors, disconnects and stalls itself).
runConformanceSuite({
  name: 'reference offline model',
  capabilities: { errorReplies: true, disconnects: true, stalls: true },
  createFixture: async () => createReferenceFixture(),
});

// The same model as a scripted model would declare it: no network, so only the always-on cases run.
runConformanceSuite({
  name: 'reference offline model without network cases',
  createFixture: async () => createReferenceFixture(),
});
