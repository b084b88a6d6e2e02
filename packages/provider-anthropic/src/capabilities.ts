import type { ModelCapabilities } from '@org/core';

/**
 * What the Anthropic Messages API offers every model, as this adapter declares it: every tool-choice mode is
 * native (`auto`, `any`, `tool`, and `none` with the tools kept), parallel tool use can be turned off
 * (`disable_parallel_tool_use`), tools accept `strict`, `stream()` streams natively, and `responseFormat` is sent as
 * native structured output (`output_config.format`). Override per model with `anthropic(modelId, { capabilities })`,
 * e.g. for an Anthropic-compatible server without `tool_choice: none`, or a model without structured outputs.
 *
 * @example
 * const model = anthropic('claude-sonnet-5-5', { capabilities: { toolChoice: { none: 'emulated' } } });
 * const gateway = anthropic('my-compatible-model', { capabilities: { structuredOutput: false } });
 */
export const ANTHROPIC_CAPABILITIES: ModelCapabilities = Object.freeze({
  toolCalls: true,
  toolChoice: Object.freeze({ auto: 'native', required: 'native', none: 'native', tool: 'native' }),
  parallelToolCalls: true,
  strictSchemas: true,
  streaming: true,
  structuredOutput: true,
});
