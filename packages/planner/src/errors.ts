import { brandError, OrgError } from '@org/core';

/** Stable codes of the errors `@org/planner` throws or returns. */
export type PlannerErrorCode =
  | 'invalid_agent_options'
  | 'decision_extraction_failed'
  | 'tool_call_loop'
  | 'invalid_resume_state'
  | 'parallel_tool_call_limit';

/**
 * An option of `runAgent`, `streamAgent` or a planner factory is missing, malformed or contradicts the model
 * (e.g. the function-calling planner with a model declared without tool support). Thrown before any model call.
 *
 * @example
 * try { await runAgent({ model, tools, planner }) } catch (error) {
 *   if (InvalidAgentOptionsError.isInstance(error)) console.error(error.option, error.message);
 * }
 */
export class InvalidAgentOptionsError extends OrgError {
  /** The option at fault, e.g. `maxSteps`, `task`, `planner`. */
  readonly option: string;

  constructor(options: { option: string; message: string }) {
    super('invalid_agent_options', { message: `Option '${options.option}': ${options.message}` });
    this.option = options.option;
  }
}
brandError(InvalidAgentOptionsError, 'InvalidAgentOptionsError');

/**
 * A ReAct model's answer could not be read as a decision, after every retry. Carries the last text and the
 * parse error the model was shown.
 *
 * @example
 * const result = await runAgent({ model, tools, planner: createReActPlanner(), task });
 * if (DecisionExtractionError.isInstance(result.error)) console.error(result.error.reason, result.error.text);
 */
export class DecisionExtractionError extends OrgError {
  /** Attempts made, the first one included. */
  readonly attempts: number;
  /** The last model text that failed to parse. */
  readonly text: string;
  /** Why the last text failed to parse, as shown to the model. */
  readonly reason: string;

  constructor(options: { attempts: number; text: string; reason: string }) {
    super('decision_extraction_failed', {
      message:
        `No decision could be read from the model's answer after ${options.attempts} attempt(s): ${options.reason} ` +
        'Use a model that follows the decision format, raise maxRetries, or use function calling.',
    });
    this.attempts = options.attempts;
    this.text = options.text;
    this.reason = options.reason;
  }
}
brandError(DecisionExtractionError, 'DecisionExtractionError');

/**
 * The model repeated the same call (same tool, same arguments), getting the same result each time, more often than
 * the loop guard allows.
 *
 * @example
 * if (result.finishReason === 'loop-guard' && ToolCallLoopError.isInstance(result.error)) {
 *   console.warn(`stuck on ${result.error.toolName}`);
 * }
 */
export class ToolCallLoopError extends OrgError {
  readonly toolName: string;
  /** The repeated arguments, as canonical JSON. */
  readonly argumentsJson: string;
  /** How many times in a row the call was made with the same result, the refused one included. */
  readonly count: number;

  constructor(options: { toolName: string; argumentsJson: string; count: number; maximum: number }) {
    super('tool_call_loop', {
      message:
        `The model called '${options.toolName}' with the same arguments ${options.count} times ` +
        `(${options.argumentsJson}), getting the same result each time; the loop guard allows ${options.maximum} ` +
        'such calls in a row. The run was stopped.',
    });
    this.toolName = options.toolName;
    this.argumentsJson = options.argumentsJson;
    this.count = options.count;
  }
}
brandError(ToolCallLoopError, 'ToolCallLoopError');

/**
 * A resume whose state or approval decisions do not match the paused run.
 *
 * @example
 * try { await runAgent({ model, tools, resume: { state, decisions } }) } catch (error) {
 *   if (InvalidResumeStateError.isInstance(error)) askAgainFor(error.missingDecisions);
 * }
 */
export class InvalidResumeStateError extends OrgError {
  /** Pending action ids without a decision. */
  readonly missingDecisions: readonly string[];
  /** Options the paused run had that the resume must give again (`hooks`, `injected`, ...), or `tools` it lacks. */
  readonly missingOptions: readonly string[];
  /** Options the resume gives other than the paused run's (`systemPrompt`, `maxSteps`, ...). */
  readonly mismatchedOptions: readonly string[];

  constructor(options: {
    message: string;
    missingDecisions?: readonly string[];
    missingOptions?: readonly string[];
    mismatchedOptions?: readonly string[];
  }) {
    super('invalid_resume_state', { message: options.message });
    this.missingDecisions = options.missingDecisions ?? [];
    this.missingOptions = options.missingOptions ?? [];
    this.mismatchedOptions = options.mismatchedOptions ?? [];
  }
}
brandError(InvalidResumeStateError, 'InvalidResumeStateError');
