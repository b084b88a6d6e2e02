import { type Message, type Observation, ToolChoice, type ToolChoiceInput, toToolChoice } from '@org/core';

/** What a tool-choice policy sees before each planning step. */
export interface ToolChoiceContext {
  /** Zero-based index of the step about to be planned. */
  readonly step: number;
  /** The conversation so far (without the system prompt). */
  readonly history: readonly Message[];
  /** The observations of the previous step; empty on the first step. */
  readonly lastObservations: readonly Observation[];
  /** The names of the tools called so far, in order. */
  readonly calledTools: readonly string[];
}

/** Chooses the tool choice of each step; `undefined` means `auto`. */
export type ToolChoicePolicy = (context: ToolChoiceContext) => ToolChoiceInput | undefined;

/**
 * A policy that forces the model to call `toolName` until it has called it `times` times (default once) in
 * this run, then lets it decide (`auto`), so the loop cannot spin on a forced call.
 *
 * @example
 * await runAgent({ model, tools, planner, task, toolChoice: forceToolUse('search') });
 */
export function forceToolUse(toolName: string, options: { times?: number } = {}): ToolChoicePolicy {
  const forced = ToolChoice.tool(toolName);
  const times = options.times ?? 1;
  return (context) =>
    context.calledTools.filter((name) => name === toolName).length < times ? forced : 'auto';
}

/**
 * A policy that keeps the tools offered but forbids calling them (`none`): the model must answer from what it
 * has. Pass `{ afterStep }` to allow tools until that step and forbid them from then on.
 *
 * @example
 * await runAgent({ model, tools, planner, messages, toolChoice: preventToolUse() });
 */
export function preventToolUse(options: { afterStep?: number } = {}): ToolChoicePolicy {
  const from = options.afterStep ?? 0;
  return (context) => (context.step >= from ? 'none' : 'auto');
}

/** Normalises a static choice or a policy's answer, with the same errors as `toToolChoice`. */
export function resolveToolChoice(
  choice: ToolChoiceInput | ToolChoicePolicy | undefined,
  context: ToolChoiceContext,
): ToolChoice {
  if (typeof choice === 'function') return toToolChoice(choice(context) ?? 'auto');
  return toToolChoice(choice ?? 'auto');
}

/** Whether a forced choice was honoured by the calls the model made. */
export function isForcedChoiceSatisfied(choice: ToolChoice, calledToolNames: readonly string[]): boolean {
  if (choice.type === 'required') return calledToolNames.length > 0;
  if (choice.type === 'tool') return calledToolNames.includes(choice.toolName);
  return false;
}
