import type { ConverseCommandInput, OutputConfig } from '@aws-sdk/client-bedrock-runtime';
import {
  type Adjustment,
  assertContentWithinLimits,
  assertToolCallPairing,
  InvalidRequestError,
  type ModelCapabilities,
  type ModelRequest,
  type ResponseFormat,
  ToolChoice,
} from '@org/core';
import type { NoneToolChoicePolicy } from './bedrock-model-settings.js';
import { BEDROCK_CONTENT_LIMITS } from './content-limits.js';
import { convertMessages } from './convert-messages.js';
import { BEDROCK_PROVIDER } from './map-error.js';
import { type PreparedTools, prepareTools } from './prepare-tools.js';
import { readBedrockProviderOptions } from './provider-options.js';

/** A Converse request ready to send, with what is needed to read its answer. */
export interface BuiltRequest {
  readonly input: ConverseCommandInput;
  readonly tools: PreparedTools;
  /** Every change made to honour the request; returned on the response. */
  readonly adjustments: readonly Adjustment[];
}

/** What `buildRequest` needs besides the request. */
export interface BuildRequestOptions {
  readonly modelId: string;
  readonly capabilities: ModelCapabilities;
  readonly noneToolChoicePolicy: NoneToolChoicePolicy;
  /** Emulate the requested tool choice although it is declared native (Bedrock rejected it at run time). */
  readonly forceEmulation: boolean;
}

/**
 * Builds the Converse (and ConverseStream: the same input) request of a `ModelRequest`, checking everything that can
 * be checked before sending: tool call pairing, the media limits (`BEDROCK_CONTENT_LIMITS`), content Converse cannot
 * take, `providerOptions.bedrock`, the tool choice, and `responseFormat` against the declared capabilities. Messages
 * go through `convertMessages`, tools through `prepareTools`; `maxOutputTokens`, `temperature`, `stopSequences` and
 * `providerOptions.bedrock.topP` make `inferenceConfig`; `responseFormat` becomes `outputConfig.textFormat`.
 *
 * @example
 * const { input, tools, adjustments } = buildRequest(request, { modelId, capabilities,
 *   noneToolChoicePolicy: 'instruct-and-reject', forceEmulation: false });
 * await client.send(new ConverseCommand(input));
 */
export function buildRequest(request: ModelRequest, options: BuildRequestOptions): BuiltRequest {
  const { modelId, capabilities } = options;
  assertToolCallPairing(request.messages);
  assertContentWithinLimits(request.messages, BEDROCK_CONTENT_LIMITS, BEDROCK_PROVIDER);
  const bedrockOptions = readBedrockProviderOptions(request.providerOptions);
  const outputConfig =
    request.responseFormat === undefined
      ? undefined
      : buildOutputConfig(request.responseFormat, modelId, capabilities);
  const tools = prepareTools({
    modelId,
    tools: request.tools ?? [],
    toolChoice: request.toolChoice ?? ToolChoice.auto(),
    messages: request.messages,
    capabilities,
    noneToolChoicePolicy: options.noneToolChoicePolicy,
    forceEmulation: options.forceEmulation,
  });
  const converted = convertMessages(request.messages, {
    names: tools.names,
    toolHistory: tools.toolHistory,
    propertyNames: tools.propertyNames,
  });
  const system = [
    ...converted.system,
    ...(tools.instruction === undefined ? [] : [{ text: tools.instruction }]),
  ];
  const inferenceConfig = {
    ...(request.maxOutputTokens === undefined ? {} : { maxTokens: request.maxOutputTokens }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.stopSequences === undefined ? {} : { stopSequences: [...request.stopSequences] }),
    ...(bedrockOptions.topP === undefined ? {} : { topP: bedrockOptions.topP }),
  };
  const adjustments: Adjustment[] = [...tools.adjustments, ...converted.adjustments];
  if (tools.toolConfig !== undefined && tools.propertyNames.adjustment !== undefined) {
    adjustments.push(tools.propertyNames.adjustment);
  }
  if (request.parallelToolCalls === false) {
    adjustments.push({
      kind: 'setting-ignored',
      message:
        'Converse has no switch for parallel tool calls; parallelToolCalls: false was not sent, and the model may ' +
        'still return several calls in one turn.',
      details: { setting: 'parallelToolCalls', value: false },
    });
  }
  const input: ConverseCommandInput = {
    modelId,
    messages: converted.messages,
    ...(system.length === 0 ? {} : { system }),
    ...(tools.toolConfig === undefined ? {} : { toolConfig: tools.toolConfig }),
    ...(Object.keys(inferenceConfig).length === 0 ? {} : { inferenceConfig }),
    ...(outputConfig === undefined ? {} : { outputConfig }),
    ...bedrockOptions.passthrough,
  };
  return { input, tools, adjustments };
}

/**
 * `responseFormat` as Converse's native structured output: `outputConfig.textFormat` of type `json_schema`, the
 * schema sent as JSON text (as Converse takes it) with its name and description. The schema is sent as given:
 * Bedrock validates it (a subset of JSON Schema draft 2020-12; set `additionalProperties: false` on objects) and
 * answers a ValidationException, an `InvalidRequestError`, for one it does not take. A model declared without
 * `structuredOutput` fails here, before sending.
 */
function buildOutputConfig(
  responseFormat: ResponseFormat,
  modelId: string,
  capabilities: ModelCapabilities,
): OutputConfig {
  if (capabilities.structuredOutput !== true) {
    throw new InvalidRequestError({
      provider: BEDROCK_PROVIDER,
      providerCode: 'structured_output_unsupported',
      message:
        `Model '${modelId}' on bedrock is declared without native structured output ` +
        '(capabilities.structuredOutput: false), so a request with responseFormat cannot be sent. Use the agent ' +
        "loop's `output` option, which asks such a model for a final tool call instead, or declare " +
        'capabilities: { structuredOutput: true } if Bedrock offers outputConfig.textFormat for this model.',
    });
  }
  if (responseFormat.type !== 'json') {
    throw new InvalidRequestError({
      provider: BEDROCK_PROVIDER,
      providerCode: 'unsupported_response_format',
      message: `responseFormat.type must be 'json' (a JSON Schema answer); got ${JSON.stringify(responseFormat.type)}.`,
    });
  }
  const invalidSchema = (why: string, cause?: unknown): InvalidRequestError =>
    new InvalidRequestError({
      provider: BEDROCK_PROVIDER,
      providerCode: 'unsupported_response_format',
      message: `responseFormat.schema of '${responseFormat.name}' ${why}.`,
      ...(cause === undefined ? {} : { cause }),
    });
  const given: unknown = responseFormat.schema;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw invalidSchema('must be a JSON Schema object');
  }
  let schema: string;
  try {
    schema = JSON.stringify(given);
  } catch (error) {
    throw invalidSchema('cannot be written as JSON (a cycle, a BigInt)', error);
  }
  return {
    textFormat: {
      type: 'json_schema',
      structure: {
        jsonSchema: {
          schema,
          name: responseFormat.name,
          ...(responseFormat.description === undefined ? {} : { description: responseFormat.description }),
        },
      },
    },
  };
}
