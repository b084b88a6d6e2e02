import type { Adjustment, ToolCall } from '@org/core';

/**
 * Which returned tool calls reach the caller. Natively every client tool call does; an emulated `none` rejects all,
 * an emulated named tool rejects calls of other tools. Rejected calls are reported, never executed.
 */
export interface ToolCallPolicy {
  readonly rejectAll: boolean;
  readonly onlyToolName: string | undefined;
}

/** The policy that accepts every call. */
export const ACCEPT_ALL_TOOL_CALLS: ToolCallPolicy = Object.freeze({
  rejectAll: false,
  onlyToolName: undefined,
});

/** Whether the policy lets a call of `toolName` through. */
export function isToolCallAccepted(policy: ToolCallPolicy, toolName: string): boolean {
  if (policy.rejectAll) return false;
  return policy.onlyToolName === undefined || policy.onlyToolName === toolName;
}

/** The `tool-calls-rejected` adjustment for calls the policy kept back, if any. */
export function rejectedToolCallsAdjustment(
  policy: ToolCallPolicy,
  rejected: readonly ToolCall[],
): Adjustment | undefined {
  if (rejected.length === 0) return undefined;
  return {
    kind: 'tool-calls-rejected',
    message:
      `The model called ${rejected.map((call) => `'${call.toolName}'`).join(', ')} although the emulated tool choice ` +
      (policy.rejectAll ? `'none' forbids tool calls` : `only allows '${policy.onlyToolName}'`) +
      `; the call(s) were left out of the response and not executed.`,
    details: { toolCalls: rejected.map((call) => ({ id: call.id, toolName: call.toolName })) },
  };
}

/** A `tool_use` block the client must run: no `caller`, or the model calling it directly. */
export function isClientToolUse(block: { readonly type?: unknown; readonly caller?: unknown }): boolean {
  if (block.type !== 'tool_use') return false;
  const caller = block.caller as { readonly type?: unknown } | null | undefined;
  return caller === undefined || caller === null || caller.type === 'direct';
}
