import type { Tool, ToolChoice as WireToolChoice } from '@anthropic-ai/sdk/resources/messages';
import {
  type Adjustment,
  assertToolChoiceOffered,
  type ModelCapabilities,
  ToolCallPolicy,
  type ToolChoice,
  type ToolSpec,
  toToolChoice,
  UnsupportedToolChoiceError,
} from '@org/core';
import type { PropertyNames } from './property-names.js';

/** The tool part of a Messages request, and what was changed to produce it. */
export interface PreparedTools {
  readonly tools: Tool[] | undefined;
  readonly toolChoice: WireToolChoice | undefined;
  /** An instruction appended to the system prompt when a mode is emulated. */
  readonly systemInstruction: string | undefined;
  /** How the answer's tool calls are checked: all accepted when the choice is native, else the emulated choice's. */
  readonly policy: ToolCallPolicy;
  readonly adjustments: Adjustment[];
}

/**
 * Maps tools, the tool choice and `parallelToolCalls` onto the Messages API:
 *
 * | ToolChoice | wire |
 * | --- | --- |
 * | auto | `tool_choice: {type: 'auto'}` |
 * | required | `tool_choice: {type: 'any'}` |
 * | tool(name) | `tool_choice: {type: 'tool', name}` |
 * | none | `tool_choice: {type: 'none'}`, tools kept |
 *
 * `parallelToolCalls: false` adds `disable_parallel_tool_use: true` to the choice (`true` sends `false`); `none`
 * has no such field, and needs none. A mode declared `unsupported` throws `UnsupportedToolChoiceError`; one declared
 * `emulated` is sent as `auto` plus an instruction, and reported; the answer is then checked with the shared
 * `ToolCallPolicy` of `@org/core`. Property names the API refuses are sent renamed
 * (`propertyNames`).
 */
export function prepareTools(options: {
  tools: readonly ToolSpec[] | undefined;
  toolChoice: ToolChoice | undefined;
  parallelToolCalls: boolean | undefined;
  capabilities: ModelCapabilities;
  modelId: string;
  /** Property names the API refuses, renamed in the schemas sent. */
  propertyNames?: PropertyNames;
}): PreparedTools {
  const specs = options.tools ?? [];
  const choice = toToolChoice(options.toolChoice);
  assertToolChoiceOffered(
    choice,
    specs.map((spec) => spec.name),
  );

  const empty: PreparedTools = {
    tools: undefined,
    toolChoice: undefined,
    systemInstruction: undefined,
    policy: ToolCallPolicy.acceptAll(),
    adjustments: [],
  };
  // Without tools, `auto` and `none` are both met by sending no tools at all.
  if (specs.length === 0) return empty;
  if (!options.capabilities.toolCalls) {
    throw new UnsupportedToolChoiceError({
      provider: 'anthropic',
      modelId: options.modelId,
      mode: choice.type,
      message:
        `Model '${options.modelId}' is declared without tool calls (capabilities.toolCalls: false), ` +
        `but the request offers ${specs.length} tool(s). Use a ReAct planner or remove the tools.`,
    });
  }

  const tools: Tool[] = specs.map((spec) => ({
    name: spec.name,
    description: spec.description,
    input_schema: (options.propertyNames?.schemaOf(spec) ?? spec.inputSchema) as Tool['input_schema'],
    ...(spec.strict === true ? { strict: true } : {}),
  }));

  const support = options.capabilities.toolChoice[choice.type];
  if (support === 'unsupported') {
    throw new UnsupportedToolChoiceError({
      provider: 'anthropic',
      modelId: options.modelId,
      mode: choice.type,
    });
  }

  // A model declared without parallel calls cannot honour `true`: the flag is left out and that is reported.
  const parallelIgnored = options.parallelToolCalls === true && !options.capabilities.parallelToolCalls;
  const parallel =
    options.parallelToolCalls === undefined || parallelIgnored
      ? {}
      : { disable_parallel_tool_use: !options.parallelToolCalls };
  const parallelAdjustments: Adjustment[] = parallelIgnored
    ? [
        {
          kind: 'setting-ignored',
          message:
            `parallelToolCalls: true was not sent: '${options.modelId}' is declared without parallel tool calls ` +
            `(capabilities.parallelToolCalls: false).`,
          details: { setting: 'parallelToolCalls', value: true },
        },
      ]
    : [];

  if (support === 'native') {
    return { ...empty, tools, toolChoice: nativeChoice(choice, parallel), adjustments: parallelAdjustments };
  }

  const instruction = emulationInstruction(choice);
  return {
    tools,
    toolChoice: { type: 'auto', ...parallel },
    systemInstruction: instruction,
    policy: ToolCallPolicy.forEmulatedChoice(choice),
    adjustments: [
      ...parallelAdjustments,
      {
        kind: 'tool-choice-emulated',
        message:
          `Tool choice '${choice.type}' is declared emulated for '${options.modelId}': sent tool_choice 'auto' with ` +
          `an instruction in the system prompt` +
          (choice.type === 'none' || choice.type === 'tool'
            ? `; tool calls that break the rule come back as 'tool-calls-rejected' and are not returned.`
            : `; an answer without a tool call is reported.`),
        details: { mode: choice.type, instruction },
      },
    ],
  };
}

function nativeChoice(choice: ToolChoice, parallel: { disable_parallel_tool_use?: boolean }): WireToolChoice {
  switch (choice.type) {
    case 'auto':
      return { type: 'auto', ...parallel };
    case 'required':
      return { type: 'any', ...parallel };
    case 'tool':
      return { type: 'tool', name: choice.toolName, ...parallel };
    case 'none':
      return { type: 'none' };
  }
}

function emulationInstruction(choice: ToolChoice): string | undefined {
  switch (choice.type) {
    case 'auto':
      return undefined;
    case 'required':
      return 'You must answer by calling at least one of the available tools.';
    case 'tool':
      return `You must answer by calling the tool '${choice.toolName}', and no other tool.`;
    case 'none':
      return 'Do not call any tool in this answer; reply with text only.';
  }
}
