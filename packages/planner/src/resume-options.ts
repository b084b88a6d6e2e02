import { type ToolChoice, toToolChoice } from '@org/core';
import type { AgentOptions } from './agent-types.js';
import { InvalidResumeStateError } from './errors.js';
import { buildSystemPrompt } from './system-prompt.js';

/**
 * What a paused run was configured with, saved in its state so a resume continues the same run: the values that are
 * plain data, and the names of the options that are not (functions, application values such as `injected`), which a
 * resume must give again.
 */
export interface PausedRunSettings {
  /** The system prompt the run's model calls carried (its base prompt, leading system messages and strategic plan). */
  readonly systemPrompt?: string;
  readonly maxSteps: number;
  readonly maxIdenticalToolCalls: number;
  /** A static tool choice; absent when the run used a policy function. */
  readonly toolChoice?: ToolChoice;
  readonly maxConcurrency?: number;
  readonly toolTimeoutMs?: number;
  readonly outputBudgetBytes?: number;
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  readonly throwOnToolFailure?: boolean;
  readonly stopOnToolBlock?: boolean;
  /** The names of the tools the run offered; a resume must offer each of them. */
  readonly tools: readonly string[];
  /** Options given to the paused run that a state cannot hold (`hooks`, `injected`, `stopWhen`, ...). */
  readonly requires: readonly string[];
}

/** Numeric and boolean options saved as given. */
const SAVED_NUMBERS = [
  'maxConcurrency',
  'toolTimeoutMs',
  'outputBudgetBytes',
  'maxOutputTokens',
  'temperature',
  'throwOnToolFailure',
  'stopOnToolBlock',
] as const satisfies readonly (keyof AgentOptions & keyof PausedRunSettings)[];

/** Options that a state cannot hold: a resume must give them again when the paused run had them. */
const REQUIRED_AGAIN = [
  'hooks',
  'injected',
  'stopWhen',
  'planner',
  'providerOptions',
  'policy',
  'prepareStep',
  'output',
  'toolExecutor',
  'effects',
  'compileMessages',
  'stateSecret',
] as const;

/** The names a state's `run.requires` may list: the options above, and `toolChoice` when it was a policy function. */
export const RESUME_REQUIRED_OPTIONS: ReadonlySet<string> = new Set<string>([
  ...REQUIRED_AGAIN,
  'toolChoice',
]);

/** The system prompt of a run: its base prompt, the leading system messages, then the strategic plan. */
export function systemPromptOf(options: AgentOptions): string | undefined {
  const leadingSystem: string[] = [];
  for (const message of options.messages ?? []) {
    if (message.role !== 'system') break;
    leadingSystem.push(message.content);
  }
  const basePrompt = [options.systemPrompt, ...leadingSystem].filter(
    (part): part is string => part !== undefined && part !== '',
  );
  return buildSystemPrompt(
    basePrompt.length === 0 ? undefined : basePrompt.join('\n\n'),
    options.strategicPlan,
    options.maxStrategicPlanCharacters,
  );
}

/** The settings to save in a paused run's state. */
export function pausedRunSettings(
  options: AgentOptions,
  resolved: {
    readonly systemPrompt: string | undefined;
    readonly maxSteps: number;
    readonly maxIdenticalToolCalls: number;
    readonly tools: readonly string[];
  },
): PausedRunSettings {
  const settings: Record<string, unknown> = {
    ...(resolved.systemPrompt === undefined ? {} : { systemPrompt: resolved.systemPrompt }),
    maxSteps: resolved.maxSteps,
    maxIdenticalToolCalls: resolved.maxIdenticalToolCalls,
    tools: [...resolved.tools],
  };
  if (typeof options.toolChoice !== 'function' && options.policy === undefined) {
    settings.toolChoice = toToolChoice(options.toolChoice);
  }
  for (const name of SAVED_NUMBERS) if (options[name] !== undefined) settings[name] = options[name];
  const requires: string[] = REQUIRED_AGAIN.filter((name) => options[name] !== undefined);
  if (typeof options.toolChoice === 'function') requires.push('toolChoice');
  settings.requires = requires;
  return settings as unknown as PausedRunSettings;
}

/**
 * The options a resume runs with: the paused run's saved settings, where the resume does not give them. A resume that
 * lacks an option the paused run had and the state cannot hold (its `hooks`, `injected` values, ...), gives a
 * different value for a saved one, or starts a new conversation (`task`, `messages`) is refused with an
 * `InvalidResumeStateError` naming each option. A state saved without settings is resumed with the options as given.
 */
export function resumedOptions(options: AgentOptions): AgentOptions {
  const saved = options.resume?.state.run;
  if (saved === undefined) return options;
  // `requires` comes from the state: its names were checked against RESUME_REQUIRED_OPTIONS before this read.
  const missing = saved.requires.filter((name) => options[name as keyof AgentOptions] === undefined);
  const mismatched: string[] = [];
  if (options.task !== undefined || (options.messages ?? []).some((message) => message.role !== 'system')) {
    mismatched.push(options.task !== undefined ? 'task' : 'messages');
  }
  const givesPrompt =
    options.systemPrompt !== undefined ||
    options.strategicPlan !== undefined ||
    (options.messages ?? []).length > 0;
  if (givesPrompt && systemPromptOf(options) !== saved.systemPrompt) mismatched.push('systemPrompt');
  if (options.maxSteps !== undefined && options.maxSteps !== saved.maxSteps) mismatched.push('maxSteps');
  if (
    options.maxIdenticalToolCalls !== undefined &&
    options.maxIdenticalToolCalls !== saved.maxIdenticalToolCalls
  ) {
    mismatched.push('maxIdenticalToolCalls');
  }
  // JSON writes Infinity (no deadline, no budget) as null: read it back as Infinity.
  const savedValue = (name: (typeof SAVED_NUMBERS)[number]): unknown =>
    (saved[name] as unknown) === null ? Number.POSITIVE_INFINITY : saved[name];
  for (const name of SAVED_NUMBERS) {
    if (options[name] !== undefined && options[name] !== savedValue(name)) mismatched.push(name);
  }
  if (
    saved.toolChoice !== undefined &&
    options.toolChoice !== undefined &&
    typeof options.toolChoice !== 'function' &&
    JSON.stringify(toToolChoice(options.toolChoice)) !== JSON.stringify(saved.toolChoice)
  ) {
    mismatched.push('toolChoice');
  }
  if (missing.length > 0 || mismatched.length > 0) {
    throw new InvalidResumeStateError({
      reason: 'options',
      message:
        (missing.length > 0
          ? `The paused run had ${missing.join(', ')}, which a state cannot hold: give ${missing.length === 1 ? 'it' : 'them'} again to resume. `
          : '') +
        (mismatched.length > 0
          ? `The resume gives ${mismatched.join(', ')} other than the paused run's; leave ${mismatched.length === 1 ? 'it' : 'them'} out to continue the run as it was configured.`
          : ''),
      missingOptions: missing,
      mismatchedOptions: mismatched,
    });
  }
  const {
    messages: _messages,
    strategicPlan: _strategicPlan,
    systemPrompt: _systemPrompt,
    ...rest
  } = options;
  const resumed: Record<string, unknown> = {
    ...rest,
    maxSteps: saved.maxSteps,
    maxIdenticalToolCalls: saved.maxIdenticalToolCalls,
  };
  if (saved.systemPrompt !== undefined) resumed.systemPrompt = saved.systemPrompt;
  if (saved.toolChoice !== undefined && options.toolChoice === undefined)
    resumed.toolChoice = saved.toolChoice;
  for (const name of SAVED_NUMBERS) if (saved[name] !== undefined) resumed[name] = savedValue(name);
  return resumed as unknown as AgentOptions;
}

/** Refuses a resume whose tools lack one the paused run offered. */
export function assertResumedTools(options: AgentOptions, offered: readonly string[]): void {
  const saved = options.resume?.state.run;
  if (saved === undefined) return;
  const available = new Set(offered);
  const missing = saved.tools.filter((name) => !available.has(name));
  if (missing.length > 0) {
    throw new InvalidResumeStateError({
      reason: 'options',
      message: `The paused run offered ${missing.map((name) => `'${name}'`).join(', ')}, which the resume's tools lack.`,
      missingOptions: ['tools'],
    });
  }
}
