import { runConformanceSuite } from '@org/provider-conformance';
import { createOpenAIHarness } from './test-provider.js';

runConformanceSuite(createOpenAIHarness('responses'));
runConformanceSuite(createOpenAIHarness('chat'));
// An OpenAI-compatible server without tool_choice "required" / named choice / strict: the emulations must pass too.
runConformanceSuite(
  createOpenAIHarness('chat', {
    name: 'openai-compatible (chat, required and named choice emulated)',
    capabilities: { toolChoice: { required: 'emulated', tool: 'emulated' }, strictSchemas: false },
  }),
);
