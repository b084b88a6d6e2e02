import type { ModelCapabilities } from '@org/core';

/**
 * What OpenAI's own models accept on both APIs. Compatible servers override it per model (`settings.capabilities`).
 *
 * @example
 * mergeCapabilities(OPENAI_DEFAULT_CAPABILITIES, { toolChoice: { required: 'emulated' }, structuredOutput: false });
 */
export const OPENAI_DEFAULT_CAPABILITIES: ModelCapabilities = Object.freeze({
  toolCalls: true,
  toolChoice: Object.freeze({ auto: 'native', required: 'native', none: 'native', tool: 'native' } as const),
  parallelToolCalls: true,
  strictSchemas: true,
  streaming: true,
  structuredOutput: true,
});
