import type { Tool as BedrockTool, ToolConfiguration } from '@aws-sdk/client-bedrock-runtime';
import {
  type Adjustment,
  assertToolChoiceOffered,
  type Message,
  type ModelCapabilities,
  type ToolCallPolicy,
  type ToolChoice,
  type ToolPropertyNames,
  type ToolSpec,
  UnsupportedToolChoiceError,
} from '@org/core';
import type { NoneToolChoicePolicy } from './bedrock-model-settings.js';
import type { ToolHistoryMode } from './convert-messages.js';
import { BEDROCK_PROVIDER } from './map-error.js';
import { createPropertyNames } from './property-names.js';
import { createToolNameMap, type ToolNameMap } from './tool-names.js';

/**
 * The instruction added as the last system block under the `instruct-and-reject` none policy.
 *
 * @example
 * expect(request.system.at(-1)).toEqual({ text: NONE_INSTRUCTION });
 */
export const NONE_INSTRUCTION =
  'Tools are available in this conversation, but you must not call any tool in this turn. Answer with text only.';

/**
 * The instruction added as the last system block when `required` is emulated.
 *
 * @example
 * expect(request.system.at(-1)).toEqual({ text: REQUIRED_INSTRUCTION });
 */
export const REQUIRED_INSTRUCTION = 'You must answer by calling at least one of the available tools.';

/** The instruction added when a named tool choice is emulated. */
export function namedToolInstruction(wireName: string): string {
  return `You must answer by calling the tool '${wireName}'. Do not call any other tool.`;
}

/** Everything about tools that goes on the wire for one request, and how the answer is checked. */
export interface PreparedTools {
  readonly toolConfig: ToolConfiguration | undefined;
  readonly toolHistory: ToolHistoryMode;
  /** Appended as the last system block, when a mode is emulated. */
  readonly instruction: string | undefined;
  readonly names: ToolNameMap;
  /** Property names Converse refuses, renamed in the schemas sent and mapped back in the answer. */
  readonly propertyNames: ToolPropertyNames;
  /**
   * What the answer is checked for (`@org/core`'s shared policy): calls the request forbids (tool choice `none`
   * under `instruct-and-reject`, another tool than an emulated named one) are rejected, never returned.
   */
  readonly callPolicy: ToolCallPolicy;
  readonly adjustments: Adjustment[];
}

/** Inputs of `prepareTools`. */
export interface PrepareToolsOptions {
  readonly modelId: string;
  readonly tools: readonly ToolSpec[];
  readonly toolChoice: ToolChoice;
  readonly messages: readonly Message[];
  readonly capabilities: ModelCapabilities;
  readonly noneToolChoicePolicy: NoneToolChoicePolicy;
  /** Emulate this mode although it is declared native (Bedrock rejected it at run time). */
  readonly forceEmulation: boolean;
}

/**
 * Maps tools and a tool choice onto a Converse `toolConfig`: auto → `{auto: {}}`, required → `{any: {}}`, a named
 * tool → `{tool: {name}}`, none → the configured `NoneToolChoicePolicy`. Modes declared `emulated` are sent as
 * auto plus an instruction and checked on the way back; modes declared `unsupported` throw
 * `UnsupportedToolChoiceError`. Every departure from the request is returned as an Adjustment.
 *
 * @example
 * const prepared = prepareTools({ modelId, tools, toolChoice: ToolChoice.required(), messages, capabilities,
 *   noneToolChoicePolicy: 'instruct-and-reject', forceEmulation: false });
 */
export function prepareTools(options: PrepareToolsOptions): PreparedTools {
  const { tools, toolChoice, capabilities, modelId } = options;
  assertToolChoiceOffered(
    toolChoice,
    tools.map((tool) => tool.name),
  );
  const historyNames = options.messages.flatMap((message) =>
    message.role === 'tool'
      ? [message.toolName]
      : message.role === 'assistant'
        ? (message.toolCalls ?? []).map((call) => call.toolName)
        : [],
  );
  const names = createToolNameMap([...tools.map((tool) => tool.name), ...historyNames]);
  const propertyNames = createPropertyNames(tools);
  const adjustments: Adjustment[] = names.adjustment === undefined ? [] : [names.adjustment];
  const hasToolHistory = historyNames.length > 0;

  if (tools.length > 0 && !capabilities.toolCalls) {
    throw new UnsupportedToolChoiceError({
      provider: BEDROCK_PROVIDER,
      modelId,
      mode: toolChoice.type,
      message:
        `Model '${modelId}' on bedrock is declared without tool calls (capabilities.toolCalls: false), but the ` +
        `request offers ${tools.length} tool(s). Use a ReAct planner for this model, or declare toolCalls: true.`,
    });
  }

  const wireTools: BedrockTool[] = tools.map((tool) => ({
    toolSpec: {
      name: names.toWire(tool.name),
      ...(tool.description === '' ? {} : { description: tool.description }),
      inputSchema: { json: propertyNames.schemaOf(tool) as Record<string, never> },
      ...(tool.strict === undefined ? {} : { strict: tool.strict }),
    },
  }));
  const offeredNames = tools.map((tool) => tool.name);
  const withoutTools = (history: ToolHistoryMode, policy: ToolCallPolicy): PreparedTools => ({
    toolConfig: undefined,
    toolHistory: history,
    instruction: undefined,
    names,
    propertyNames,
    callPolicy: policy,
    adjustments,
  });

  if (tools.length === 0) {
    if (hasToolHistory) {
      adjustments.push({
        kind: 'history-rewritten',
        message:
          'No tools are offered, and Converse rejects a conversation holding tool blocks without a toolConfig; ' +
          'the tool calls and results of the history were written as text.',
        details: { reason: 'no-tools-offered' },
      });
      return withoutTools('as-text', { kind: 'accept-all' });
    }
    return withoutTools('native', { kind: 'accept-all' });
  }

  /** The tools with a tool choice Converse takes as it is: every call the model makes is returned. */
  const native = (toolChoice: ToolConfiguration['toolChoice']): PreparedTools => ({
    toolConfig: { tools: wireTools, toolChoice },
    toolHistory: 'native',
    instruction: undefined,
    names,
    propertyNames,
    callPolicy: { kind: 'accept-all' },
    adjustments,
  });
  const unsupported = (mode: string): UnsupportedToolChoiceError =>
    new UnsupportedToolChoiceError({ provider: BEDROCK_PROVIDER, modelId, mode });
  const emulated = (
    mode: string,
    instruction: string,
    callPolicy: ToolCallPolicy,
    extra: Record<string, unknown>,
  ): PreparedTools => {
    adjustments.push({
      kind: 'tool-choice-emulated',
      message:
        `Tool choice '${mode}' ${options.forceEmulation ? `was rejected by '${modelId}'` : `is declared emulated for '${modelId}'`}; ` +
        'it was sent as auto with an instruction, and the answer is checked.',
      details: { mode, reason: options.forceEmulation ? 'rejected-by-model' : 'declared', ...extra },
    });
    return {
      toolConfig: { tools: wireTools, toolChoice: { auto: {} } },
      toolHistory: 'native',
      instruction,
      names,
      propertyNames,
      callPolicy,
      adjustments,
    };
  };

  switch (toolChoice.type) {
    case 'auto':
      return native({ auto: {} });
    case 'required': {
      const support = capabilities.toolChoice.required;
      if (support === 'unsupported') throw unsupported('required');
      if (support === 'emulated' || options.forceEmulation) {
        return emulated('required', REQUIRED_INSTRUCTION, { kind: 'expect-any' }, {});
      }
      return native({ any: {} });
    }
    case 'tool': {
      const support = capabilities.toolChoice.tool;
      if (support === 'unsupported') throw unsupported('tool');
      const wireName = names.toWire(toolChoice.toolName);
      if (support === 'emulated' || options.forceEmulation) {
        return emulated(
          'tool',
          namedToolInstruction(wireName),
          { kind: 'expect-tool', toolName: toolChoice.toolName },
          { toolName: toolChoice.toolName },
        );
      }
      return native({ tool: { name: wireName } });
    }
    case 'none': {
      if (capabilities.toolChoice.none === 'unsupported') throw unsupported('none');
      const policy = options.noneToolChoicePolicy;
      if (policy === 'instruct-and-reject') {
        adjustments.push({
          kind: 'tool-choice-emulated',
          message:
            "Converse has no tool choice 'none'; tools and history were kept, auto was sent with an instruction not " +
            'to call tools, and any call that comes back is rejected, never returned (policy instruct-and-reject).',
          details: { mode: 'none', policy },
        });
        return {
          toolConfig: { tools: wireTools, toolChoice: { auto: {} } },
          toolHistory: 'native',
          instruction: NONE_INSTRUCTION,
          names,
          propertyNames,
          callPolicy: { kind: 'reject-all' },
          adjustments,
        };
      }
      adjustments.push({
        kind: 'tools-dropped',
        message:
          `Converse has no tool choice 'none'; the tools were left out of the request (policy ${policy})` +
          (hasToolHistory
            ? policy === 'drop-tools'
              ? ', and the tool blocks of the history were removed.'
              : ', and the tool blocks of the history were written as text.'
            : '.'),
        details: { mode: 'none', policy, toolNames: offeredNames },
      });
      return withoutTools(policy === 'drop-tools' ? 'drop' : 'as-text', { kind: 'accept-all' });
    }
  }
}
