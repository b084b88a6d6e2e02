import type { ModelRequest } from '@org/core';
import type { BuiltRequest } from '../built-request.js';
import { passthroughOptions, refuseOptionClash } from '../provider-options.js';
import type { WireResponseFormat } from '../response-format.js';
import type { ToolPlan } from '../tool-plan.js';
import { type ChatMessage, convertChatMessages } from './convert-messages.js';
import { prepareChatTools } from './prepare-tools.js';

/** Settings of the Chat Completions body that are not in the request. */
export interface ChatRequestSettings {
  readonly provider: string;
  readonly modelId: string;
  /** `max_completion_tokens` (OpenAI) or `max_tokens` (older OpenAI-compatible servers). */
  readonly maxTokensParameter: 'max_completion_tokens' | 'max_tokens';
  /** Send `stream_options: { include_usage: true }` on streamed requests. */
  readonly streamUsage: boolean;
}

/** The Chat Completions request body for one request. */
export function buildChatRequest(
  request: ModelRequest,
  plan: ToolPlan,
  responseFormat: WireResponseFormat | undefined,
  settings: ChatRequestSettings,
  stream: boolean,
): BuiltRequest {
  const options = passthroughOptions(request, settings.provider);
  if (responseFormat !== undefined) {
    refuseOptionClash(options, 'response_format', 'responseFormat', settings.provider);
  }
  const converted = convertChatMessages(request.messages, settings.provider);
  const messages: ChatMessage[] = converted.messages;
  if (plan.instruction !== undefined) messages.unshift({ role: 'system', content: plan.instruction });
  const body = {
    ...options,
    model: settings.modelId,
    messages,
    ...prepareChatTools(plan),
    ...(responseFormat === undefined ? {} : { response_format: chatResponseFormat(responseFormat) }),
    ...(request.maxOutputTokens === undefined
      ? {}
      : { [settings.maxTokensParameter]: request.maxOutputTokens }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.stopSequences === undefined || request.stopSequences.length === 0
      ? {}
      : { stop: [...request.stopSequences] }),
    ...(stream
      ? { stream: true, ...(settings.streamUsage ? { stream_options: { include_usage: true } } : {}) }
      : {}),
  };
  return { body, adjustments: converted.adjustments };
}

/**
 * `response_format: { type: 'json_schema', json_schema }`. `strict` as for tools: `true` when the schema is strict,
 * `false` when it is not on a model declared with strict schemas, absent on a server without strict mode.
 */
function chatResponseFormat(format: WireResponseFormat): Record<string, unknown> {
  return {
    type: 'json_schema',
    json_schema: {
      name: format.name,
      ...(format.description === undefined ? {} : { description: format.description }),
      schema: format.schema,
      ...(format.strict ? { strict: true } : format.strictSchemas ? { strict: false } : {}),
    },
  };
}
