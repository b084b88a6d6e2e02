import type { ChatCompletionRequest } from '@mistralai/mistralai/models/components';
import {
  type Adjustment,
  assertContentWithinLimits,
  assertToolCallPairing,
  type ContentLimits,
  InvalidRequestError,
  type ModelCapabilities,
  type ModelRequest,
  type ToolCallPolicy,
} from '@org/core';
import { convertMessages } from './convert-messages.js';
import { prepareTools } from './prepare-tools.js';
import { PROVIDER } from './provider-name.js';
import { readProviderOptions } from './provider-options.js';
import { mapToolCallIds } from './tool-call-ids.js';

/** One request ready to send: the SDK's request, how its answer is checked, and the changes made to honour it. */
export interface BuiltRequest {
  /** Without `stream`: `chat.complete` and `chat.stream` set it themselves. */
  readonly body: ChatCompletionRequest;
  readonly policy: ToolCallPolicy;
  readonly adjustments: readonly Adjustment[];
}

/**
 * Turns a `ModelRequest` into the SDK's chat completion request. Everything is checked here, before anything is
 * sent: tool-call pairing, media sizes (`ContentTooLargeError`) and types, function names, the tool choice, a
 * response format the model cannot honour (`InvalidRequestError`), `providerOptions`.
 *
 * @example
 * const { body, policy, adjustments } = buildRequest(request, { modelId, capabilities, contentLimits });
 */
export function buildRequest(
  request: ModelRequest,
  options: {
    readonly modelId: string;
    readonly capabilities: ModelCapabilities;
    readonly contentLimits: ContentLimits;
  },
): BuiltRequest {
  const { modelId, capabilities } = options;
  assertToolCallPairing(request.messages);
  assertContentWithinLimits(request.messages, options.contentLimits, PROVIDER);
  const format = request.responseFormat;
  if (format !== undefined && capabilities.structuredOutput !== true) {
    throw new InvalidRequestError({
      provider: PROVIDER,
      providerCode: 'structured_output_unsupported',
      message: `Model '${modelId}' is declared without structured output (capabilities.structuredOutput), so responseFormat cannot be sent; ask for the answer with a final tool call instead.`,
    });
  }
  const tools = prepareTools(request, capabilities, modelId);
  const ids = mapToolCallIds(request.messages);
  const converted = convertMessages(request.messages, ids);
  const providerOptions = readProviderOptions(request.providerOptions);
  const messages =
    tools.instruction === undefined
      ? converted.messages
      : [...converted.messages, { role: 'system' as const, content: tools.instruction }];
  const body: ChatCompletionRequest = {
    model: modelId,
    messages,
    ...(tools.tools === undefined ? {} : { tools: tools.tools }),
    ...(tools.toolChoice === undefined ? {} : { toolChoice: tools.toolChoice }),
    ...(tools.parallelToolCalls === undefined ? {} : { parallelToolCalls: tools.parallelToolCalls }),
    ...(request.maxOutputTokens === undefined ? {} : { maxTokens: request.maxOutputTokens }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.stopSequences === undefined ? {} : { stop: [...request.stopSequences] }),
    ...(format === undefined
      ? {}
      : {
          responseFormat: {
            type: 'json_schema',
            jsonSchema: {
              name: format.name,
              ...(format.description === undefined ? {} : { description: format.description }),
              schemaDefinition: format.schema,
              strict: true,
            },
          },
        }),
    ...providerOptions,
  };
  return {
    body,
    policy: tools.policy,
    adjustments: [
      ...tools.adjustments,
      ...(ids.adjustment === undefined ? [] : [ids.adjustment]),
      ...converted.adjustments,
    ],
  };
}
