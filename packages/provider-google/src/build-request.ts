import type { GenerateContentConfig, GenerateContentParameters, Part } from '@google/genai';
import {
  type Adjustment,
  assertContentWithinLimits,
  assertToolCallPairing,
  type ContentLimits,
  InvalidProviderOptionsError,
  InvalidRequestError,
  type ModelCapabilities,
  type ModelRequest,
  type ToolCallPolicy,
} from '@org/core';
import type { GoogleFamilyTraits } from './capabilities.js';
import { convertMessages } from './convert-messages.js';
import { prepareTools, schemaForDialect } from './prepare-tools.js';
import type { PropertyNames } from './property-names.js';
import { PROVIDER } from './provider-name.js';
import { readProviderOptions } from './provider-options.js';

/** One request ready to send: the SDK's parameters, how its answer is read, and the changes made to honour it. */
export interface BuiltRequest {
  readonly params: GenerateContentParameters;
  readonly policy: ToolCallPolicy;
  readonly propertyNames: PropertyNames;
  readonly adjustments: readonly Adjustment[];
}

/** What the model contributes to a request. */
export interface BuildContext {
  readonly modelId: string;
  readonly capabilities: ModelCapabilities;
  readonly traits: GoogleFamilyTraits;
  readonly contentLimits: ContentLimits;
  /** Whether the client speaks to Vertex AI (asked only when an option needs it). */
  readonly isVertexAI: () => boolean;
}

/**
 * Turns a `ModelRequest` into `generateContent` parameters. Everything is checked here, before anything is sent:
 * tool-call pairing, media sizes (`ContentTooLargeError`) and types, the tool choice, schemas the family's dialect
 * cannot express, a response format the model cannot honour (`InvalidRequestError`), `providerOptions`.
 *
 * @example
 * const { params, policy, propertyNames, adjustments } = buildRequest(request, context);
 */
export function buildRequest(request: ModelRequest, context: BuildContext): BuiltRequest {
  const { modelId, capabilities, traits } = context;
  assertToolCallPairing(request.messages);
  assertContentWithinLimits(request.messages, context.contentLimits, PROVIDER);
  const format = request.responseFormat;
  if (format !== undefined && capabilities.structuredOutput !== true) {
    throw new InvalidRequestError({
      provider: PROVIDER,
      providerCode: 'structured_output_unsupported',
      message: `Model '${modelId}' is declared without structured output (capabilities.structuredOutput), so responseFormat cannot be sent; ask for the answer with a final tool call instead.`,
    });
  }
  const options = readProviderOptions(request.providerOptions);
  if (options.streamFunctionCallArguments && !context.isVertexAI()) {
    throw new InvalidProviderOptionsError({
      provider: PROVIDER,
      option: `providerOptions.${PROVIDER}.streamFunctionCallArguments`,
      message:
        'streamFunctionCallArguments is a Vertex AI option: the Gemini API does not stream argument fragments.',
    });
  }
  const tools = prepareTools(request, {
    capabilities,
    traits,
    modelId,
    validated: options.validated,
    streamFunctionCallArguments: options.streamFunctionCallArguments,
  });
  const converted = convertMessages(request.messages, {
    propertyNames: tools.propertyNames,
    mediaInFunctionResponses: traits.mediaInFunctionResponses,
    requiresThoughtSignatures: traits.requiresThoughtSignatures,
  });
  const systemParts: Part[] = [
    ...(converted.systemInstruction?.parts ?? []),
    ...(tools.instruction === undefined ? [] : [{ text: tools.instruction }]),
  ];
  const config: GenerateContentConfig = {
    ...(systemParts.length === 0 ? {} : { systemInstruction: { role: 'user', parts: systemParts } }),
    ...(tools.tools === undefined ? {} : { tools: tools.tools }),
    ...(tools.toolConfig === undefined ? {} : { toolConfig: tools.toolConfig }),
    ...(request.maxOutputTokens === undefined ? {} : { maxOutputTokens: request.maxOutputTokens }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.stopSequences === undefined ? {} : { stopSequences: [...request.stopSequences] }),
    ...(options.thinkingConfig === undefined ? {} : { thinkingConfig: options.thinkingConfig }),
    ...(options.cachedContent === undefined ? {} : { cachedContent: options.cachedContent }),
    ...(format === undefined
      ? {}
      : traits.schemaDialect === 'json-schema'
        ? { responseMimeType: 'application/json', responseJsonSchema: format.schema }
        : {
            responseMimeType: 'application/json',
            responseSchema: schemaForDialect(
              format.schema,
              'openapi',
              `responseFormat '${format.name}'`,
            ) as never,
          }),
  };
  return {
    params: { model: modelId, contents: converted.contents, config },
    policy: tools.policy,
    propertyNames: tools.propertyNames,
    adjustments: [...tools.adjustments, ...converted.adjustments],
  };
}
