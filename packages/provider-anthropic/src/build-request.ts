import type { MessageCreateParamsBase, TextBlockParam } from '@anthropic-ai/sdk/resources/messages';
import {
  type Adjustment,
  assertContentWithinLimits,
  type ContentLimits,
  InvalidRequestError,
  type ModelCapabilities,
  type ModelRequest,
  type ToolCallPolicy,
} from '@org/core';
import { convertMessages } from './convert-messages.js';
import { prepareResponseFormat } from './prepare-response-format.js';
import { prepareTools } from './prepare-tools.js';
import { createPropertyNames, type PropertyNames } from './property-names.js';
import { readProviderOptions } from './provider-options.js';

/**
 * The `max_tokens` sent when neither the request (`maxOutputTokens`) nor the model settings name one. The Messages
 * API requires the field; 4096 fits every current model's limit and stays far below the size at which the SDK
 * refuses a non-streaming request (about 21 333 tokens).
 *
 * @example
 * const model = anthropic('claude-sonnet-5-5', { maxOutputTokens: DEFAULT_MAX_OUTPUT_TOKENS * 2 });
 */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;

/** The body of a Messages request (without `stream`), and everything the adapter did to produce it. */
export interface BuiltRequest {
  readonly body: MessageCreateParamsBase;
  readonly adjustments: readonly Adjustment[];
  readonly policy: ToolCallPolicy;
  readonly maxOutputTokens: number;
  /** Property names renamed to fit the API, mapped back in the answer. */
  readonly propertyNames: PropertyNames;
}

/**
 * Builds the Messages API body for a core request: converted history (reasoning, content parts) and system prompt,
 * tools and tool choice, `max_tokens`, stop sequences, `responseFormat` as `output_config.format`, and
 * `providerOptions.anthropic` passed through (`readProviderOptions`). Inline images and files are checked against
 * the content limits first (`ContentTooLargeError`), before anything is converted or sent.
 * `temperature` is not sent: API version 2026-10-21, which `@anthropic-ai/sdk` 1.x speaks, rejects sampling
 * parameters with a 400; leaving it out is reported as `setting-ignored`.
 */
export function buildRequest(options: {
  request: ModelRequest;
  modelId: string;
  capabilities: ModelCapabilities;
  defaultMaxOutputTokens: number | undefined;
  contentLimits: ContentLimits;
}): BuiltRequest {
  const { request, modelId } = options;
  const maxOutputTokens =
    request.maxOutputTokens ?? options.defaultMaxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
  if (!Number.isSafeInteger(maxOutputTokens) || maxOutputTokens < 1) {
    throw new InvalidRequestError({
      provider: 'anthropic',
      message: `maxOutputTokens must be a positive integer (Anthropic's max_tokens), got ${String(maxOutputTokens)}.`,
    });
  }

  const passthrough = readProviderOptions(request.providerOptions, {
    responseFormat: request.responseFormat !== undefined,
  });
  assertContentWithinLimits(request.messages, options.contentLimits, 'anthropic');
  const propertyNames = createPropertyNames(request.tools ?? []);
  const converted = convertMessages(request.messages, { propertyNames });
  const tools = prepareTools({
    propertyNames,
    tools: request.tools,
    toolChoice: request.toolChoice,
    parallelToolCalls: request.parallelToolCalls,
    capabilities: options.capabilities,
    modelId,
  });

  const responseFormat = prepareResponseFormat({
    responseFormat: request.responseFormat,
    capabilities: options.capabilities,
    modelId,
  });

  const adjustments: Adjustment[] = [
    ...converted.adjustments,
    ...tools.adjustments,
    ...responseFormat.adjustments,
  ];
  if (propertyNames.adjustment !== undefined && tools.tools !== undefined) {
    adjustments.push(propertyNames.adjustment);
  }
  if (request.temperature !== undefined) {
    adjustments.push({
      kind: 'setting-ignored',
      message:
        `temperature ${request.temperature} was not sent: the Anthropic Messages API (version 2026-10-21, used by ` +
        `@anthropic-ai/sdk 1.x) rejects temperature, top_p and top_k.`,
      details: { setting: 'temperature', value: request.temperature },
    });
  }

  const system: TextBlockParam[] = [...(converted.system ?? [])];
  if (tools.systemInstruction !== undefined) system.push({ type: 'text', text: tools.systemInstruction });

  const body: MessageCreateParamsBase = {
    ...(passthrough as Partial<MessageCreateParamsBase>),
    model: modelId,
    max_tokens: maxOutputTokens,
    messages: converted.messages,
    ...(system.length > 0 ? { system } : {}),
    ...(tools.tools === undefined ? {} : { tools: tools.tools }),
    ...(tools.toolChoice === undefined ? {} : { tool_choice: tools.toolChoice }),
    ...(request.stopSequences === undefined || request.stopSequences.length === 0
      ? {}
      : { stop_sequences: [...request.stopSequences] }),
    ...(responseFormat.format === undefined
      ? {}
      : { output_config: { ...outputConfigOf(passthrough), format: responseFormat.format } }),
  };

  return {
    body,
    adjustments,
    policy: tools.policy,
    maxOutputTokens,
    propertyNames,
  };
}

/** The `output_config` passed through (`effort`, ...), to which the response format is added. */
function outputConfigOf(passthrough: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const value = passthrough.output_config;
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? { ...(value as Record<string, unknown>) }
    : {};
}
