import type { FunctionCallingConfigMode, FunctionDeclaration, Tool, ToolConfig } from '@google/genai';
import {
  type Adjustment,
  assertToolChoiceOffered,
  InvalidRequestError,
  type JsonSchema,
  type ModelCapabilities,
  type ModelRequest,
  ToolCallPolicy,
  type ToolChoice,
  toGeminiOpenApiSchema,
  toToolChoice,
  UnsupportedToolChoiceError,
} from '@org/core';
import type { GoogleFamilyTraits } from './capabilities.js';
import { createPropertyNames, type PropertyNames } from './property-names.js';
import { PROVIDER } from './provider-name.js';

/** Tools, tool config and emulation, ready for the request. */
export interface PreparedTools {
  readonly tools: Tool[] | undefined;
  readonly toolConfig: ToolConfig | undefined;
  /** Added to the system instruction for an emulated choice. */
  readonly instruction: string | undefined;
  /** How the answer is checked (an emulated choice's rules; native choices accept all). */
  readonly policy: ToolCallPolicy;
  /** Property names renamed for Gemini, and the way back for the model's arguments. */
  readonly propertyNames: PropertyNames;
  readonly adjustments: Adjustment[];
}

/**
 * The function names Gemini takes (`FunctionDeclaration.name`): a letter or an underscore first, then letters, digits,
 * underscores, dots, colons and dashes, at most 64 in all. Any other name is refused by the API with a 400
 * (`Invalid function name`), so it is refused here, before sending, naming the tool.
 *
 * @example
 * GOOGLE_FUNCTION_NAME_PATTERN.test('weather.get_forecast'); // true
 * GOOGLE_FUNCTION_NAME_PATTERN.test('1st_tool'); // false
 */
export const GOOGLE_FUNCTION_NAME_PATTERN: RegExp = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/;

const MODES: Readonly<Record<ToolChoice['type'], FunctionCallingConfigMode>> = {
  auto: 'AUTO' as FunctionCallingConfigMode,
  required: 'ANY' as FunctionCallingConfigMode,
  none: 'NONE' as FunctionCallingConfigMode,
  tool: 'ANY' as FunctionCallingConfigMode,
};

function instructionFor(choice: ToolChoice): string | undefined {
  switch (choice.type) {
    case 'required':
      return 'You must answer by calling at least one of the available tools.';
    case 'none':
      return 'Tools are available in this conversation, but you must not call any tool in this turn. Answer with text only.';
    case 'tool':
      return `You must answer by calling the tool '${choice.toolName}'. Do not call any other tool.`;
    default:
      return undefined;
  }
}

/**
 * A schema in the dialect the model family takes: JSON Schema as is, or converted to the OpenAPI subset with
 * `toGeminiOpenApiSchema` of `@org/core`, refused before sending (naming `what` and the node) where it cannot be.
 */
export function schemaForDialect(
  schema: JsonSchema,
  dialect: GoogleFamilyTraits['schemaDialect'],
  what: string,
): JsonSchema {
  if (dialect === 'json-schema') return schema;
  const converted = toGeminiOpenApiSchema(schema);
  if (converted.ok) return converted.schema;
  const { path, message } = converted.refusal;
  throw new InvalidRequestError({
    provider: PROVIDER,
    providerCode: 'schema_not_expressible',
    message:
      `${what}: the schema${path === '' ? '' : ` at '${path}'`} cannot be sent in Gemini's OpenAPI subset (this model ` +
      `is declared with schemaDialect 'openapi'): ${message}.`,
  });
}

/**
 * Maps tools and the tool choice onto `tools` and `toolConfig.functionCallingConfig`:
 *
 * | ToolChoice | `functionCallingConfig` |
 * | --- | --- |
 * | auto | `{ mode: 'AUTO' }` (`'VALIDATED'` with `providerOptions.google.functionCallingMode`) |
 * | required | `{ mode: 'ANY' }` |
 * | none | `{ mode: 'NONE' }`, tools kept |
 * | tool(name) | `{ mode: 'ANY', allowedFunctionNames: [name] }` |
 *
 * A function name Gemini refuses (`GOOGLE_FUNCTION_NAME_PATTERN`) is an `InvalidRequestError` naming the tool.
 * Schemas go in `parametersJsonSchema`, or in `parameters` converted to the OpenAPI subset for a family that needs
 * it; property names Gemini refuses are renamed reversibly. A mode declared `unsupported` throws
 * `UnsupportedToolChoiceError` before sending; one declared `emulated` is sent as `AUTO` with an instruction,
 * reported as `tool-choice-emulated`, and the answer checked with the shared `ToolCallPolicy`.
 */
export function prepareTools(
  request: ModelRequest,
  context: {
    readonly capabilities: ModelCapabilities;
    readonly traits: GoogleFamilyTraits;
    readonly modelId: string;
    readonly validated: boolean;
    readonly streamFunctionCallArguments: boolean;
  },
): PreparedTools {
  const { capabilities, modelId } = context;
  const specs = request.tools ?? [];
  const choice = toToolChoice(request.toolChoice);
  assertToolChoiceOffered(
    choice,
    specs.map((spec) => spec.name),
  );
  const propertyNames = createPropertyNames(specs);
  const adjustments: Adjustment[] = [];
  if (specs.length === 0) {
    return {
      tools: undefined,
      toolConfig: undefined,
      instruction: undefined,
      policy: ToolCallPolicy.acceptAll(),
      propertyNames,
      adjustments,
    };
  }
  if (!capabilities.toolCalls) {
    throw new UnsupportedToolChoiceError({
      provider: PROVIDER,
      modelId,
      mode: choice.type,
      message: `Model '${modelId}' is declared without tool calls (capabilities.toolCalls: false), but the request offers ${specs.length} tool(s).`,
    });
  }
  specs.forEach((spec, index) => {
    if (GOOGLE_FUNCTION_NAME_PATTERN.test(spec.name)) return;
    throw new InvalidRequestError({
      provider: PROVIDER,
      providerCode: 'invalid_function_name',
      message:
        `Tool ${index} is named ${JSON.stringify(spec.name)}, which Gemini refuses: a function name must match ` +
        `${GOOGLE_FUNCTION_NAME_PATTERN.source}. Rename it: a letter or an underscore first, then letters, digits, ` +
        "'_', '.', ':' or '-', at most 64 characters.",
    });
  });
  const support = capabilities.toolChoice[choice.type];
  if (support === 'unsupported')
    throw new UnsupportedToolChoiceError({ provider: PROVIDER, modelId, mode: choice.type });

  if (request.parallelToolCalls === false && !capabilities.parallelToolCalls) {
    adjustments.push({
      kind: 'setting-ignored',
      message: `parallelToolCalls: false was not sent: Gemini has no switch for parallel function calls ('${modelId}').`,
      details: { setting: 'parallelToolCalls', value: false },
    });
  }
  if (propertyNames.adjustment !== undefined) adjustments.push(propertyNames.adjustment);
  const dialect = context.traits.schemaDialect;
  const functionDeclarations = specs.map((spec): FunctionDeclaration => {
    const schema = schemaForDialect(propertyNames.schemaOf(spec), dialect, `Tool '${spec.name}'`);
    return {
      name: spec.name,
      description: spec.description,
      ...(dialect === 'json-schema' ? { parametersJsonSchema: schema } : { parameters: schema as never }),
    };
  });
  const tools: Tool[] = [{ functionDeclarations }];
  if (support === 'native') {
    const mode =
      choice.type === 'auto' && context.validated
        ? ('VALIDATED' as FunctionCallingConfigMode)
        : MODES[choice.type];
    return {
      tools,
      toolConfig: {
        functionCallingConfig: {
          mode,
          ...(choice.type === 'tool' ? { allowedFunctionNames: [choice.toolName] } : {}),
          ...(context.streamFunctionCallArguments ? { streamFunctionCallArguments: true } : {}),
        },
      },
      instruction: undefined,
      policy: ToolCallPolicy.acceptAll(),
      propertyNames,
      adjustments,
    };
  }
  const instruction = instructionFor(choice);
  adjustments.push({
    kind: 'tool-choice-emulated',
    message:
      `Tool choice '${choice.type}' is declared emulated for '${modelId}': sent functionCallingConfig mode AUTO` +
      (instruction === undefined ? '.' : ' with an instruction, and the answer is checked.'),
    details: { mode: choice.type, ...(choice.type === 'tool' ? { toolName: choice.toolName } : {}) },
  });
  return {
    tools,
    toolConfig: {
      functionCallingConfig: {
        mode: MODES.auto,
        ...(context.streamFunctionCallArguments ? { streamFunctionCallArguments: true } : {}),
      },
    },
    instruction,
    policy: ToolCallPolicy.forEmulatedChoice(choice),
    propertyNames,
    adjustments,
  };
}
