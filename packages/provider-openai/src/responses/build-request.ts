import { type Adjustment, InvalidRequestError, type ModelRequest } from '@org/core';
import type { BuiltRequest } from '../built-request.js';
import { optionsName, ownOption, passthroughOptions } from '../provider-options.js';
import type { WireResponseFormat } from '../response-format.js';
import type { ToolPlan } from '../tool-plan.js';
import { convertResponsesMessages, type ResponsesInputItem } from './convert-messages.js';
import { prepareResponsesTools } from './prepare-tools.js';

/** Settings of the Responses API body that are not in the request. */
export interface ResponsesRequestSettings {
  readonly provider: string;
  readonly modelId: string;
}

const ENCRYPTED_REASONING = 'reasoning.encrypted_content';

/**
 * The Responses API request body for one request. Stop sequences have no Responses field: left out, and reported.
 * With `providerOptions.openai.store: false`, `include` gains `reasoning.encrypted_content`, so the reasoning of
 * this answer can be sent back on the next turn although OpenAI keeps nothing.
 */
export function buildResponsesRequest(
  request: ModelRequest,
  plan: ToolPlan,
  responseFormat: WireResponseFormat | undefined,
  settings: ResponsesRequestSettings,
  stream: boolean,
): BuiltRequest {
  const { provider } = settings;
  const options = passthroughOptions(request, provider);
  const storeDisabled = ownOption(options, 'store') === false;
  const converted = convertResponsesMessages(request.messages, { provider, storeDisabled });
  const input: ResponsesInputItem[] = converted.input;
  if (plan.instruction !== undefined) input.unshift({ role: 'system', content: plan.instruction });
  const include = storeDisabled
    ? includeWithEncryptedReasoning(ownOption(options, 'include'), provider)
    : undefined;
  const text =
    responseFormat === undefined
      ? undefined
      : textWithFormat(ownOption(options, 'text'), responseFormat, provider);
  const body = {
    ...options,
    ...(include === undefined ? {} : { include }),
    ...(text === undefined ? {} : { text }),
    model: settings.modelId,
    input,
    ...prepareResponsesTools(plan),
    ...(request.maxOutputTokens === undefined ? {} : { max_output_tokens: request.maxOutputTokens }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(stream ? { stream: true } : {}),
  };
  const adjustments: Adjustment[] = [...converted.adjustments];
  if (request.stopSequences !== undefined && request.stopSequences.length > 0) {
    adjustments.push({
      kind: 'setting-ignored',
      message:
        'The Responses API has no stop sequences; stopSequences were not sent. Use the Chat Completions API (api: "chat") where they matter.',
      details: { setting: 'stopSequences', stopSequences: [...request.stopSequences] },
    });
  }
  return { body, adjustments };
}

/** The caller's `include` list with `reasoning.encrypted_content` added once. */
function includeWithEncryptedReasoning(include: unknown, provider: string): string[] {
  if (include === undefined) return [ENCRYPTED_REASONING];
  if (!Array.isArray(include) || !include.every((value) => typeof value === 'string')) {
    throw new InvalidRequestError({
      provider,
      providerCode: 'invalid_provider_option',
      message: `${optionsName(provider)}.include must be a list of strings, got ${JSON.stringify(include)}.`,
    });
  }
  return include.includes(ENCRYPTED_REASONING) ? [...include] : [...include, ENCRYPTED_REASONING];
}

/** `text.format` for the response format, beside the caller's other `text` settings (`verbosity`). */
function textWithFormat(
  text: unknown,
  format: WireResponseFormat,
  provider: string,
): Record<string, unknown> {
  const base = text === undefined ? {} : text;
  if (typeof base !== 'object' || base === null || Array.isArray(base)) {
    throw new InvalidRequestError({
      provider,
      providerCode: 'invalid_provider_option',
      message: `${optionsName(provider)}.text must be an object, got ${JSON.stringify(text)}.`,
    });
  }
  if (Object.hasOwn(base, 'format')) {
    throw new InvalidRequestError({
      provider,
      providerCode: 'reserved_provider_option',
      message: `${optionsName(provider)} sets 'text.format' and the request sets responseFormat: give it once, as responseFormat.`,
    });
  }
  return {
    ...base,
    format: {
      type: 'json_schema',
      name: format.name,
      ...(format.description === undefined ? {} : { description: format.description }),
      schema: format.schema,
      // Always explicit, as for this API's tools.
      strict: format.strict,
    },
  };
}
