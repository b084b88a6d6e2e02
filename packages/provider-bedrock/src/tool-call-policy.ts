import type { Adjustment, ToolCall } from '@org/core';
import type { ToolCallPolicy } from './prepare-tool-config.js';

/** Whether a call to `toolName` must be rejected (never returned, never executed) under a policy. */
export function isRejectedToolCall(policy: ToolCallPolicy, toolName: string): boolean {
  if (policy.kind === 'reject-all') return true;
  if (policy.kind === 'expect-tool') return toolName !== policy.toolName;
  return false;
}

/**
 * The Adjustments that report what the answer did under a policy: calls rejected (tool choice `none`, or a call
 * to another tool than the emulated named one) and an emulated mode the model did not follow.
 *
 * @example
 * const adjustments = reportToolCallPolicy(policy, acceptedCalls, rejectedCalls);
 */
export function reportToolCallPolicy(
  policy: ToolCallPolicy,
  accepted: readonly ToolCall[],
  rejected: readonly ToolCall[],
): Adjustment[] {
  const adjustments: Adjustment[] = [];
  if (rejected.length > 0) {
    const why =
      policy.kind === 'reject-all'
        ? "tool choice was 'none'"
        : `tool choice named '${policy.kind === 'expect-tool' ? policy.toolName : ''}'`;
    adjustments.push({
      kind: 'tool-calls-rejected',
      message:
        `The model called ${rejected.map((call) => `'${call.toolName}'`).join(', ')} although ${why}; ` +
        'the call(s) were rejected and not returned as tool calls, so they are never executed.',
      details: {
        reason: policy.kind === 'reject-all' ? 'tool-choice-none' : 'not-the-named-tool',
        calls: rejected.map((call) => ({ id: call.id, toolName: call.toolName, arguments: call.arguments })),
      },
    });
  }
  if (policy.kind === 'expect-any' && accepted.length === 0) {
    adjustments.push({
      kind: 'tool-choice-emulated',
      message: "Tool choice 'required' was emulated, and the model answered without calling a tool.",
      details: { mode: 'required', satisfied: false },
    });
  }
  if (policy.kind === 'expect-tool' && !accepted.some((call) => call.toolName === policy.toolName)) {
    adjustments.push({
      kind: 'tool-choice-emulated',
      message: `Tool choice '${policy.toolName}' was emulated, and the model answered without calling it.`,
      details: { mode: 'tool', toolName: policy.toolName, satisfied: false },
    });
  }
  return adjustments;
}
