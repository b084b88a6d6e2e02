import type { MessageCreateParamsBase, TextBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { type Adjustment, InvalidRequestError, type ModelCapabilities, type ModelRequest } from '@org/core';
import { convertMessages } from './convert-messages.js';
import { prepareTools } from './prepare-tools.js';
import { createPropertyNames, type PropertyNames } from './property-names.js';
import type { ToolCallPolicy } from './tool-call-policy.js';

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
 * Body fields the adapter owns: a provider option setting one would be overridden or would break the request (a
 * `stream: true` under `generate()`, tools without the pairing check).
 */
const RESERVED: ReadonlySet<string> = new Set([
  'model',
  'messages',
  'system',
  'tools',
  'tool_choice',
  'max_tokens',
  'stop_sequences',
  'stream',
]);

/**
 * Builds the Messages API body for a core request: converted history and system prompt, tools and tool choice,
 * `max_tokens`, stop sequences, and `providerOptions.anthropic` passed through. A provider option that sets a field
 * the adapter builds from the request is refused (`InvalidRequestError`, `providerCode: 'reserved_provider_option'`)
 * rather than silently overridden, as in `@org/provider-openai`.
 * `temperature` is not sent: API version 2026-10-21, which `@anthropic-ai/sdk` 1.x speaks, rejects sampling
 * parameters with a 400; leaving it out is reported as `setting-ignored`.
 */
export function buildRequest(options: {
  request: ModelRequest;
  modelId: string;
  capabilities: ModelCapabilities;
  defaultMaxOutputTokens: number | undefined;
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

  const adjustments: Adjustment[] = [...converted.adjustments, ...tools.adjustments];
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

  const passthrough = request.providerOptions?.anthropic ?? {};
  const clashing = Object.keys(passthrough).filter((key) => RESERVED.has(key));
  if (clashing.length > 0) {
    throw new InvalidRequestError({
      provider: 'anthropic',
      message: `providerOptions.anthropic may not set ${clashing.map((key) => `'${key}'`).join(', ')}: the adapter builds ${clashing.length === 1 ? 'it' : 'them'} from the request (messages, system messages, tools, toolChoice, maxOutputTokens, stopSequences, stream()). Use those request fields instead.`,
      providerCode: 'reserved_provider_option',
    });
  }
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
  };

  return {
    body,
    adjustments,
    policy: { rejectAll: tools.rejectToolCalls, onlyToolName: tools.onlyToolName },
    maxOutputTokens,
    propertyNames,
  };
}
