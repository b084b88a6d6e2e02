import {
  type Adjustment,
  assertToolChoiceOffered,
  type ModelCapabilities,
  type ModelRequest,
  ToolCallPolicy,
  ToolChoice,
  type ToolSpec,
  UnsupportedToolChoiceError,
} from '@org/core';

/** The tool choice as both OpenAI APIs spell it, before each API's own shape for a named function. */
export type WireChoice = 'auto' | 'required' | 'none' | { readonly name: string } | undefined;

/** How one request's tools, tool choice and parallel flag go on the wire, and what was changed to get there. */
export interface ToolPlan {
  readonly tools: readonly ToolSpec[];
  /** Whether each sent tool carries `strict: true`. */
  readonly strict: (tool: ToolSpec) => boolean;
  /** Whether the model is declared with strict schemas (a tool it gets non-strict is then sent `strict: false`). */
  readonly strictSchemas: boolean;
  readonly choice: WireChoice;
  readonly parallelToolCalls: boolean | undefined;
  /** A system instruction the emulation adds in front of the history. */
  readonly instruction: string | undefined;
  readonly adjustments: readonly Adjustment[];
  /** Which returned calls reach the caller, and what is checked on the answer (`@org/core`'s tool-call policy). */
  readonly policy: ToolCallPolicy;
}

const REQUIRED_INSTRUCTION =
  'You must answer by calling at least one of the provided tools; do not answer with text alone.';
const namedInstruction = (name: string): string =>
  `You must answer by calling the tool '${name}'; do not answer with text alone.`;

/**
 * Decides how a request's tools and tool choice go on the wire for a model with the given capabilities: natively,
 * emulated (reported as Adjustments), or refused with `UnsupportedToolChoiceError` before anything is sent.
 */
export function planTools(
  request: ModelRequest,
  capabilities: ModelCapabilities,
  identity: { readonly provider: string; readonly modelId: string },
): ToolPlan {
  const offered = request.tools ?? [];
  const choice = request.toolChoice ?? ToolChoice.auto();
  assertToolChoiceOffered(
    choice,
    offered.map((tool) => tool.name),
  );
  const adjustments: Adjustment[] = [];
  const strictDropped = offered.filter((tool) => tool.strict === true && !capabilities.strictSchemas);
  if (strictDropped.length > 0) {
    adjustments.push({
      kind: 'setting-ignored',
      message: `Strict schemas were requested for ${strictDropped.map((tool) => `'${tool.name}'`).join(', ')}, but this model is declared without strict schema support; the tools were sent without 'strict'.`,
      details: { setting: 'strict', toolNames: strictDropped.map((tool) => tool.name) },
    });
  }
  const strict = (tool: ToolSpec): boolean => tool.strict === true && capabilities.strictSchemas;

  if (offered.length === 0) {
    return {
      tools: [],
      strict,
      strictSchemas: capabilities.strictSchemas,
      choice: undefined,
      parallelToolCalls: undefined,
      instruction: undefined,
      adjustments,
      policy: ToolCallPolicy.acceptAll(),
    };
  }
  if (!capabilities.toolCalls) {
    throw new UnsupportedToolChoiceError({
      ...identity,
      mode: choice.type,
      message: `Model '${identity.modelId}' on ${identity.provider} is declared without tool calls, but the request offers tools. Leave the tools out, or declare capabilities { toolCalls: true }.`,
    });
  }
  const support = capabilities.toolChoice[choice.type];
  if (support === 'unsupported') throw new UnsupportedToolChoiceError({ ...identity, mode: choice.type });

  let parallelToolCalls: boolean | undefined;
  if (request.parallelToolCalls !== undefined) {
    if (capabilities.parallelToolCalls) parallelToolCalls = request.parallelToolCalls;
    else if (request.parallelToolCalls === false) {
      adjustments.push({
        kind: 'setting-ignored',
        message:
          'Parallel tool calls were turned off, but this model is declared without parallel-call control; parallel_tool_calls was not sent.',
        details: { setting: 'parallelToolCalls' },
      });
    }
  }

  const base = { strict, strictSchemas: capabilities.strictSchemas, parallelToolCalls, adjustments };
  if (support === 'native') {
    return {
      ...base,
      tools: offered,
      choice: choice.type === 'tool' ? { name: choice.toolName } : choice.type,
      instruction: undefined,
      policy: ToolCallPolicy.acceptAll(),
    };
  }

  // Emulation: each mode is achieved with what the server does support, and reported.
  const nativeRequired = capabilities.toolChoice.required === 'native';
  const nativeNamed = capabilities.toolChoice.tool === 'native';
  switch (choice.type) {
    case 'auto':
      adjustments.push({
        kind: 'tool-choice-emulated',
        message:
          "Tool choice 'auto' is emulated: no tool_choice was sent, leaving the server's default (auto).",
        details: { mode: 'auto', via: 'omitted' },
      });
      return {
        ...base,
        tools: offered,
        choice: undefined,
        instruction: undefined,
        policy: ToolCallPolicy.acceptAll(),
      };
    case 'required': {
      const only = offered.length === 1 ? offered[0] : undefined;
      if (only !== undefined && nativeNamed) {
        adjustments.push({
          kind: 'tool-choice-emulated',
          message: `Tool choice 'required' is emulated by naming the only offered tool, '${only.name}'.`,
          details: { mode: 'required', via: 'named-tool' },
        });
        return {
          ...base,
          tools: offered,
          choice: { name: only.name },
          instruction: undefined,
          policy: ToolCallPolicy.expectAny(),
        };
      }
      adjustments.push({
        kind: 'tool-choice-emulated',
        message:
          "Tool choice 'required' is emulated: the server has no tool_choice 'required', so tool_choice 'auto' was sent with a system instruction to call a tool, and the answer is checked.",
        details: { mode: 'required', via: 'instruction' },
      });
      return {
        ...base,
        tools: offered,
        choice: capabilities.toolChoice.auto === 'native' ? 'auto' : undefined,
        instruction: REQUIRED_INSTRUCTION,
        policy: ToolCallPolicy.expectAny(),
      };
    }
    case 'none':
      adjustments.push(
        {
          kind: 'tool-choice-emulated',
          message:
            "Tool choice 'none' is emulated: the tools were left out of the request, and any tool call that comes back anyway is rejected.",
          details: { mode: 'none', via: 'tools-omitted' },
        },
        {
          kind: 'tools-dropped',
          message: `The tools ${offered.map((tool) => `'${tool.name}'`).join(', ')} were not sent, to honour tool choice 'none'.`,
          details: { toolNames: offered.map((tool) => tool.name) },
        },
      );
      return {
        ...base,
        tools: [],
        parallelToolCalls: undefined,
        choice: undefined,
        instruction: undefined,
        policy: ToolCallPolicy.rejectAll(),
      };
    case 'tool': {
      const named = offered.filter((tool) => tool.name === choice.toolName);
      const dropped = offered.filter((tool) => tool.name !== choice.toolName);
      adjustments.push({
        kind: 'tool-choice-emulated',
        message: `Tool choice '${choice.toolName}' is emulated: only that tool was sent, with ${nativeRequired ? "tool_choice 'required'" : 'a system instruction to call it'}, and calls to other tools are rejected.`,
        details: {
          mode: 'tool',
          toolName: choice.toolName,
          via: nativeRequired ? 'required' : 'instruction',
        },
      });
      if (dropped.length > 0) {
        adjustments.push({
          kind: 'tools-dropped',
          message: `The tools ${dropped.map((tool) => `'${tool.name}'`).join(', ')} were not sent, to honour tool choice '${choice.toolName}'.`,
          details: { toolNames: dropped.map((tool) => tool.name) },
        });
      }
      return {
        ...base,
        tools: named,
        choice: nativeRequired ? 'required' : undefined,
        instruction: nativeRequired ? undefined : namedInstruction(choice.toolName),
        policy: ToolCallPolicy.expectTool(choice.toolName),
      };
    }
  }
}
