import type { ToolChoiceMode } from './tool-choice.js';

/**
 * How a model honours one tool-choice mode:
 * - `native`: sent as is on the wire;
 * - `emulated`: the adapter achieves it another way (an instruction, a post-check) and reports an `Adjustment`;
 * - `unsupported`: a request with this mode fails with `UnsupportedToolChoiceError`.
 */
export type ToolChoiceSupport = 'native' | 'emulated' | 'unsupported';

/**
 * What a model can do, declared by its adapter and overridable by the user per model. Never guessed from model
 * names: such lists rot as soon as a provider ships a model.
 */
export interface ModelCapabilities {
  /** Whether the model accepts tool definitions at all; ReAct planners serve models that do not. */
  readonly toolCalls: boolean;
  /** Support for each tool-choice mode. */
  readonly toolChoice: Readonly<Record<ToolChoiceMode, ToolChoiceSupport>>;
  /** Whether the model can return several tool calls in one turn (and honour turning that off). */
  readonly parallelToolCalls: boolean;
  /** Whether the provider enforces tool schemas exactly (`strict`). */
  readonly strictSchemas: boolean;
  /** Whether `stream()` streams natively (rather than yielding one generated response). */
  readonly streaming: boolean;
  /** Whether the provider constrains a final answer to a JSON Schema natively (`ModelRequest.responseFormat`). */
  readonly structuredOutput?: boolean;
}

/** A partial override of capabilities, as users pass it in model settings. */
export interface ModelCapabilitiesOverride {
  readonly toolCalls?: boolean;
  readonly toolChoice?: Partial<Record<ToolChoiceMode, ToolChoiceSupport>>;
  readonly parallelToolCalls?: boolean;
  readonly strictSchemas?: boolean;
  readonly streaming?: boolean;
  readonly structuredOutput?: boolean;
}

/**
 * Merges a user's override onto an adapter's declared capabilities.
 *
 * @example
 * mergeCapabilities(adapterDefaults, { toolChoice: { required: 'emulated' } }); // a server without tool_choice=required
 */
export function mergeCapabilities(
  base: ModelCapabilities,
  override: ModelCapabilitiesOverride | undefined,
): ModelCapabilities {
  if (override === undefined) return base;
  return {
    toolCalls: override.toolCalls ?? base.toolCalls,
    toolChoice: { ...base.toolChoice, ...definedEntries(override.toolChoice ?? {}) },
    parallelToolCalls: override.parallelToolCalls ?? base.parallelToolCalls,
    strictSchemas: override.strictSchemas ?? base.strictSchemas,
    streaming: override.streaming ?? base.streaming,
    ...((override.structuredOutput ?? base.structuredOutput) === undefined
      ? {}
      : { structuredOutput: override.structuredOutput ?? base.structuredOutput }),
  };
}

function definedEntries<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as Partial<T>;
}
