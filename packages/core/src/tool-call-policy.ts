import type { Adjustment } from './adjustment.js';
import type { ToolCall } from './tool-call.js';
import type { ToolChoice } from './tool-choice.js';

/**
 * Which tool calls of an answer reach the caller, and what is checked on the answer, after a request was sent with
 * an emulated tool choice. A natively honoured choice needs no check (`accept-all`); an emulated one is only an
 * instruction to the model, so the answer is checked: calls the choice forbids are rejected (left out of the
 * response and never executed) and a mode the model ignored is reported.
 */
export type ToolCallPolicy =
  /** Every call is accepted: the choice was honoured natively (or is `auto`). */
  | { readonly kind: 'accept-all' }
  /** An emulated `none`: every call is rejected. */
  | { readonly kind: 'reject-all' }
  /** An emulated `required`: every call is accepted; an answer without one is reported. */
  | { readonly kind: 'expect-any' }
  /** An emulated named tool: calls of other tools are rejected; an answer without a call of it is reported. */
  | { readonly kind: 'expect-tool'; readonly toolName: string };

/** What the reports of a policy name: the provider, as in the adapter's errors. */
export interface ToolCallPolicyContext {
  readonly provider: string;
}

const ACCEPT_ALL: ToolCallPolicy = Object.freeze({ kind: 'accept-all' });
const REJECT_ALL: ToolCallPolicy = Object.freeze({ kind: 'reject-all' });
const EXPECT_ANY: ToolCallPolicy = Object.freeze({ kind: 'expect-any' });

/**
 * Constructors for `ToolCallPolicy` values.
 *
 * @example
 * const policy = support === 'native' ? ToolCallPolicy.acceptAll() : ToolCallPolicy.forEmulatedChoice(choice);
 */
export const ToolCallPolicy = Object.freeze({
  /** Every call is kept: the provider enforced the tool choice natively. */
  acceptAll: (): ToolCallPolicy => ACCEPT_ALL,
  /** Every call is rejected (reported): an emulated `none` the model ignored. */
  rejectAll: (): ToolCallPolicy => REJECT_ALL,
  /** At least one call is expected: an emulated `required`; an answer without one is reported. */
  expectAny: (): ToolCallPolicy => EXPECT_ANY,
  /** Calls of `toolName` only: an emulated named choice; calls of other tools are rejected and reported. */
  expectTool: (toolName: string): ToolCallPolicy => Object.freeze({ kind: 'expect-tool', toolName }),
  /**
   * The policy that checks an answer to an emulated tool choice: `none` rejects every call, `required` expects
   * one, a named tool expects that one and rejects others, `auto` accepts all.
   */
  forEmulatedChoice: (choice: ToolChoice): ToolCallPolicy => {
    switch (choice.type) {
      case 'auto':
        return ACCEPT_ALL;
      case 'none':
        return REJECT_ALL;
      case 'required':
        return EXPECT_ANY;
      case 'tool':
        return Object.freeze({ kind: 'expect-tool', toolName: choice.toolName });
    }
  },
});

/**
 * Whether the policy lets a call of `toolName` through. A stream assembler asks it when a call starts, so that a
 * rejected call never produces a `tool-call-start` or `tool-call-delta` part.
 *
 * @example
 * if (!isToolCallAccepted(policy, block.name)) rejected.push(call);
 */
export function isToolCallAccepted(policy: ToolCallPolicy, toolName: string): boolean {
  if (policy.kind === 'reject-all') return false;
  if (policy.kind === 'expect-tool') return toolName === policy.toolName;
  return true;
}

/**
 * The Adjustments that report an answer checked under a policy: the rejected calls (`tool-calls-rejected`, with
 * each call's id, name and raw arguments), and an emulated `required` or named tool the model ignored
 * (`tool-choice-emulated` with `honoured: false`). Empty for an answer the policy let through unchanged.
 *
 * @example
 * // at the end of a stream, with the calls sorted as they started
 * adjustments.push(...reportToolCallPolicy(policy, accepted, rejected, { provider: 'bedrock' }));
 */
export function reportToolCallPolicy(
  policy: ToolCallPolicy,
  accepted: readonly ToolCall[],
  rejected: readonly ToolCall[],
  context: ToolCallPolicyContext,
): Adjustment[] {
  const adjustments: Adjustment[] = [];
  if (rejected.length > 0) {
    const names = rejected.map((call) => `'${call.toolName}'`).join(', ');
    const why =
      policy.kind === 'expect-tool'
        ? `the emulated tool choice only allows '${policy.toolName}'`
        : "the tool choice 'none' forbids tool calls";
    adjustments.push({
      kind: 'tool-calls-rejected',
      message: `The model called ${names} although ${why}; the call(s) were left out of the response and must not be executed.`,
      details: {
        provider: context.provider,
        reason: policy.kind === 'expect-tool' ? 'not-the-named-tool' : 'tool-choice-none',
        toolCalls: rejected.map((call) => ({
          id: call.id,
          toolName: call.toolName,
          arguments: call.arguments,
        })),
      },
    });
  }
  if (policy.kind === 'expect-any' && accepted.length === 0) {
    adjustments.push({
      kind: 'tool-choice-emulated',
      message:
        "The emulated tool choice 'required' was not honoured: the model answered without calling a tool.",
      details: { provider: context.provider, mode: 'required', honoured: false },
    });
  }
  if (policy.kind === 'expect-tool' && !accepted.some((call) => call.toolName === policy.toolName)) {
    adjustments.push({
      kind: 'tool-choice-emulated',
      message: `The emulated tool choice '${policy.toolName}' was not honoured: the model answered without calling it.`,
      details: { provider: context.provider, mode: 'tool', toolName: policy.toolName, honoured: false },
    });
  }
  return adjustments;
}

/**
 * Checks a complete answer's tool calls under a policy: the accepted calls, in their order, and the Adjustments
 * that report the rest (`reportToolCallPolicy`).
 *
 * @example
 * const checked = applyToolCallPolicy(policy, toolCalls, { provider: 'anthropic' });
 * return { ...response, toolCalls: checked.toolCalls, adjustments: [...adjustments, ...checked.adjustments] };
 */
export function applyToolCallPolicy(
  policy: ToolCallPolicy,
  toolCalls: readonly ToolCall[],
  context: ToolCallPolicyContext,
): { readonly toolCalls: ToolCall[]; readonly adjustments: Adjustment[] } {
  const accepted: ToolCall[] = [];
  const rejected: ToolCall[] = [];
  for (const call of toolCalls) (isToolCallAccepted(policy, call.toolName) ? accepted : rejected).push(call);
  return { toolCalls: accepted, adjustments: reportToolCallPolicy(policy, accepted, rejected, context) };
}
