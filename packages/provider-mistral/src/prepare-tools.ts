import type {
  ChatCompletionRequest,
  ChatCompletionRequestTool,
  ToolChoice as WireToolChoice,
} from '@mistralai/mistralai/models/components';
import {
  type Adjustment,
  assertToolChoiceOffered,
  InvalidRequestError,
  type ModelCapabilities,
  type ModelRequest,
  ToolCallPolicy,
  type ToolChoice,
  toToolChoice,
  UnsupportedToolChoiceError,
} from '@org/core';
import { PROVIDER } from './provider-name.js';

/**
 * The function names Mistral takes; any other is refused with a 400 (`Function name was ... but must be a-z, A-Z,
 * 0-9, or contain underscores and dashes, with a maximum length of 64.`).
 */
export const MISTRAL_FUNCTION_NAME_PATTERN: RegExp = /^[a-zA-Z0-9_-]{1,64}$/;

/** The tool part of a request, how its answer is checked, and what was changed to produce it. */
export interface PreparedTools {
  readonly tools: ChatCompletionRequestTool[] | undefined;
  readonly toolChoice: ChatCompletionRequest['toolChoice'];
  readonly parallelToolCalls: boolean | undefined;
  /** A system message appended when a mode is emulated. */
  readonly instruction: string | undefined;
  /** How the answer's tool calls are checked (`@org/core`'s shared tool-call policy). */
  readonly policy: ToolCallPolicy;
  readonly adjustments: Adjustment[];
}

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

function nativeChoice(choice: ToolChoice): ChatCompletionRequest['toolChoice'] {
  switch (choice.type) {
    case 'auto':
      return 'auto';
    case 'required':
      return 'any';
    case 'none':
      return 'none';
    case 'tool':
      return { type: 'function', function: { name: choice.toolName } } satisfies WireToolChoice;
  }
}

/**
 * Maps tools, the tool choice and `parallelToolCalls` onto Mistral's chat completions:
 *
 * | ToolChoice | `tool_choice` |
 * | --- | --- |
 * | auto | `"auto"` |
 * | required | `"any"` (Mistral's "call at least one tool"; `"required"` is its synonym) |
 * | none | `"none"`, tools kept |
 * | tool(name) | `{ "type": "function", "function": { "name": name } }` |
 *
 * `parallelToolCalls` is sent as `parallel_tool_calls`. A function name Mistral refuses is an `InvalidRequestError`
 * naming the tool (a `ToolRegistry` of `@org/tools` maps namespaced names such as `math.factorial` for you). A mode
 * declared `unsupported` throws `UnsupportedToolChoiceError` before sending; one declared `emulated` is sent as `auto`
 * with an instruction, reported as `tool-choice-emulated`, and the answer is checked with the shared `ToolCallPolicy`.
 */
export function prepareTools(
  request: ModelRequest,
  capabilities: ModelCapabilities,
  modelId: string,
): PreparedTools {
  const specs = request.tools ?? [];
  const choice = toToolChoice(request.toolChoice);
  assertToolChoiceOffered(
    choice,
    specs.map((spec) => spec.name),
  );
  const adjustments: Adjustment[] = [];
  if (specs.length === 0) {
    return {
      tools: undefined,
      toolChoice: undefined,
      parallelToolCalls: undefined,
      instruction: undefined,
      policy: ToolCallPolicy.acceptAll(),
      adjustments,
    };
  }
  if (!capabilities.toolCalls) {
    throw new UnsupportedToolChoiceError({
      provider: PROVIDER,
      modelId,
      mode: choice.type,
      message: `Model '${modelId}' is declared without tool calls (capabilities.toolCalls: false), but the request offers ${specs.length} tool(s). Use a ReAct planner or remove the tools.`,
    });
  }
  specs.forEach((spec, index) => {
    if (MISTRAL_FUNCTION_NAME_PATTERN.test(spec.name)) return;
    throw new InvalidRequestError({
      provider: PROVIDER,
      providerCode: 'invalid_function_name',
      message:
        `Tool ${index} is named '${spec.name}', which ${PROVIDER} refuses: a function name must match ` +
        `${MISTRAL_FUNCTION_NAME_PATTERN.source}. Rename it, or register it in a ToolRegistry of @org/tools, whose ` +
        'specs carry a provider-valid name and map calls back.',
    });
  });
  const support = capabilities.toolChoice[choice.type];
  if (support === 'unsupported')
    throw new UnsupportedToolChoiceError({ provider: PROVIDER, modelId, mode: choice.type });

  let parallelToolCalls: boolean | undefined;
  if (request.parallelToolCalls !== undefined) {
    if (capabilities.parallelToolCalls) parallelToolCalls = request.parallelToolCalls;
    else {
      adjustments.push({
        kind: 'setting-ignored',
        message:
          `parallelToolCalls: ${request.parallelToolCalls} was not sent: '${modelId}' is declared without parallel ` +
          'tool calls (capabilities.parallelToolCalls: false).',
        details: { setting: 'parallelToolCalls', value: request.parallelToolCalls },
      });
    }
  }
  const tools = specs.map(
    (spec): ChatCompletionRequestTool => ({
      type: 'function' as const,
      function: {
        name: spec.name,
        description: spec.description,
        parameters: spec.inputSchema,
        ...(spec.strict === true && capabilities.strictSchemas ? { strict: true } : {}),
      },
    }),
  );
  if (support === 'native') {
    return {
      tools,
      toolChoice: nativeChoice(choice),
      parallelToolCalls,
      instruction: undefined,
      policy: ToolCallPolicy.acceptAll(),
      adjustments,
    };
  }
  const instruction = instructionFor(choice);
  adjustments.push({
    kind: 'tool-choice-emulated',
    message:
      `Tool choice '${choice.type}' is declared emulated for '${modelId}': sent tool_choice 'auto'` +
      (instruction === undefined
        ? '.'
        : ' with an instruction, and the answer is checked: calls that break the rule come back as ' +
          "'tool-calls-rejected' and are not returned."),
    details: {
      mode: choice.type,
      ...(choice.type === 'tool' ? { toolName: choice.toolName } : {}),
      ...(instruction === undefined ? {} : { instruction }),
    },
  });
  return {
    tools,
    toolChoice: 'auto',
    parallelToolCalls,
    instruction,
    policy: ToolCallPolicy.forEmulatedChoice(choice),
    adjustments,
  };
}
