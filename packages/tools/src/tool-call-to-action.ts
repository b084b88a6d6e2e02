import {
  type Action,
  closestMatch,
  type IncompleteToolCallError,
  type LimitExceededError,
  type ToolCall,
} from '@org/core';
import {
  type InvalidToolArgumentsError,
  type MalformedToolArgumentsError,
  UnknownToolError,
} from './errors.js';
import type { ArgumentLimits } from './limits.js';
import { parseToolArguments } from './parse-tool-arguments.js';
import type { Coercion } from './schema-walker.js';
import type { ToolRegistry } from './tool-registry.js';
import { validateToolArguments } from './validate-tool-arguments.js';

/** Options of `toolCallToAction`. */
export interface ToolCallToActionOptions {
  /** Why the model stopped; arguments cut off by `length` / `max_tokens` are refused. */
  readonly finishReason?: string;
  /** Default true. */
  readonly coerce?: boolean;
  readonly limits?: ArgumentLimits;
}

/** Why a tool call could not become an action. */
export type ToolCallError =
  | UnknownToolError
  | MalformedToolArgumentsError
  | IncompleteToolCallError
  | LimitExceededError
  | InvalidToolArgumentsError;

/** The outcome of `toolCallToAction`. */
export type ToolCallToActionResult =
  | {
      readonly ok: true;
      /** `toolName` is the registered name, also when the model used the provider name (`math_factorial`). */
      readonly action: Action;
      readonly repairs: string[];
      readonly coercions: readonly Coercion[];
    }
  | { readonly ok: false; readonly error: ToolCallError };

/**
 * Turns a model's raw tool call into an action ready to execute: resolves the tool (an unknown name is an
 * `UnknownToolError` listing the available tools, with a did-you-mean), then parses with safe repairs, coerces and
 * validates the arguments. Never throws; every failure is a typed error whose message the model can act on.
 *
 * @example
 * const result = toolCallToAction(registry, { id: 'call_1', toolName: 'get_weather', arguments: '{"city":"Paris"}' });
 * if (result.ok) observations.push(await executeAction(registry, result.action));
 * else history.push(toolErrorMessage(result.error));
 */
export function toolCallToAction(
  registry: ToolRegistry,
  toolCall: ToolCall,
  options: ToolCallToActionOptions = {},
): ToolCallToActionResult {
  const tool = registry.resolve(toolCall.toolName);
  if (tool === undefined) {
    const available = registry.names().map((name) => registry.providerName(name) ?? name);
    const suggestion = closestMatch(toolCall.toolName, available);
    return {
      ok: false,
      error: new UnknownToolError({
        toolName: toolCall.toolName,
        available,
        toolCallId: toolCall.id,
        ...(suggestion === undefined ? {} : { suggestion }),
      }),
    };
  }
  const parsed = parseToolArguments(toolCall.arguments, {
    toolName: tool.name,
    toolCallId: toolCall.id,
    ...(options.finishReason === undefined ? {} : { finishReason: options.finishReason }),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
  });
  if (!parsed.ok) return parsed;
  const validated = validateToolArguments(tool, parsed.value, {
    toolCallId: toolCall.id,
    ...(options.coerce === undefined ? {} : { coerce: options.coerce }),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
  });
  if (!validated.ok) return validated;
  return {
    ok: true,
    action: { id: toolCall.id, toolName: tool.name, args: validated.value },
    repairs: parsed.repairs,
    coercions: validated.coercions,
  };
}
