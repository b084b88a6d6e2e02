import { brandError, type ObservationError, OrgError, truncateText } from '@org/core';

/** Stable codes of the errors `@org/planner` throws or returns. */
export type PlannerErrorCode =
  | 'invalid_agent_options'
  | 'decision_extraction_failed'
  | 'tool_call_loop'
  | 'invalid_resume_state'
  | 'resume_already_claimed'
  | 'parallel_tool_call_limit'
  | 'tool_call_failed'
  | 'invalid_tool_executor_result'
  | 'invalid_compiled_messages'
  | 'invalid_agent_config'
  | 'structured_output_failed';

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
 * Why a resume was refused (`InvalidResumeStateError.reason`):
 * - `malformed`: the state is not a paused run of this version, or a field has the wrong shape (`field` names it);
 * - `unsealed`: `stateSecret` is configured and the state carries no seal;
 * - `tampered`: the state's seal does not match its content (an edit, or another secret);
 * - `inconsistent`: the pending step contradicts itself or the tools (an action that is not what its call says, an
 *   approval for a call that is not pending, arguments the tool's schema refuses; `field` names it);
 * - `decisions`: missing, unknown or malformed approval decisions (`missingDecisions`);
 * - `options`: the resume's options contradict the paused run's (`missingOptions`, `mismatchedOptions`).
 */
export type InvalidResumeStateReason =
  | 'malformed'
  | 'unsealed'
  | 'tampered'
  | 'inconsistent'
  | 'decisions'
  | 'options';

/**
 * A resume whose state or approval decisions do not match the paused run, or whose state is malformed, unsealed,
 * tampered with or inconsistent (`reason`, and `field` for the first field at fault). Thrown before the resumed run
 * starts: nothing ran, and the state's resume token is not spent, so a corrected resume may follow.
 *
 * @example
 * try { await runAgent({ model, tools, resume: { state, decisions } }) } catch (error) {
 *   if (InvalidResumeStateError.isInstance(error) && error.reason === 'decisions') askAgainFor(error.missingDecisions);
 * }
 */
export class InvalidResumeStateError extends OrgError {
  readonly reason: InvalidResumeStateReason;
  /** The state field (or decision) at fault, as a path: `pending.turn.actions[0].args`, `decisions.call_1`. */
  readonly field: string | undefined;
  /** Pending action ids without a decision. */
  readonly missingDecisions: readonly string[];
  /** Options the paused run had that the resume must give again (`hooks`, `injected`, ...), or `tools` it lacks. */
  readonly missingOptions: readonly string[];
  /** Options the resume gives other than the paused run's (`systemPrompt`, `maxSteps`, ...). */
  readonly mismatchedOptions: readonly string[];

  constructor(options: {
    message: string;
    reason: InvalidResumeStateReason;
    field?: string;
    missingDecisions?: readonly string[];
    missingOptions?: readonly string[];
    mismatchedOptions?: readonly string[];
    cause?: unknown;
  }) {
    super('invalid_resume_state', {
      message: options.message,
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
    this.reason = options.reason;
    this.field = options.field;
    this.missingDecisions = options.missingDecisions ?? [];
    this.missingOptions = options.missingOptions ?? [];
    this.mismatchedOptions = options.mismatchedOptions ?? [];
  }
}
brandError(InvalidResumeStateError, 'InvalidResumeStateError');

/**
 * The paused state was already resumed: its resume token was claimed before (a duplicate webhook, a retried request,
 * another process). Thrown before anything runs: the approved calls ran once, with the first resume.
 *
 * @example
 * try { await runAgent({ model, tools, resumeTokenStore, resume: { state, decisions } }) } catch (error) {
 *   if (ResumeAlreadyClaimedError.isInstance(error)) return respond(409, 'already handled');
 * }
 */
export class ResumeAlreadyClaimedError extends OrgError {
  readonly runId: string;
  /** The state's `resumeToken`. */
  readonly resumeToken: string;

  constructor(options: { runId: string; resumeToken: string }) {
    super('resume_already_claimed', {
      message:
        `The paused state of run '${options.runId}' was already resumed (resume token ${options.resumeToken}); ` +
        'a paused state is resumed once. Nothing was run.',
    });
    this.runId = options.runId;
    this.resumeToken = options.resumeToken;
  }
}
brandError(ResumeAlreadyClaimedError, 'ResumeAlreadyClaimedError');

/** One failed call named by `ToolCallFailedError`. */
export interface FailedToolCall {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly status: 'error' | 'timeout';
  readonly error: ObservationError | undefined;
}

/**
 * With `throwOnToolFailure`, a tool call of the step failed (status `error` or `timeout`): the run ended with
 * `finishReason: 'error'` after recording the step (every call of it answered in `messages`). Names the first failed
 * call in call order, and lists every failed call of the step.
 *
 * @example
 * const result = await runAgent({ model, tools, task, throwOnToolFailure: true });
 * if (ToolCallFailedError.isInstance(result.error)) console.error(result.error.toolName, result.error.toolCallId);
 */
export class ToolCallFailedError extends OrgError {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly status: 'error' | 'timeout';
  /** The failed call's error, as its observation carries it. */
  readonly observationError: ObservationError | undefined;
  /** Every failed call of the step, in call order, the first one included. */
  readonly failures: readonly FailedToolCall[];

  constructor(options: { failures: readonly [FailedToolCall, ...FailedToolCall[]] }) {
    const [first] = options.failures;
    const others = options.failures.length - 1;
    super('tool_call_failed', {
      message:
        `Tool call '${first.toolCallId}' (${first.toolName}) ended with status ${first.status}` +
        `${first.error === undefined ? '' : `: ${first.error.message}`}` +
        `${others > 0 ? ` (and ${others} other call(s) of the step failed)` : ''}; throwOnToolFailure ended the run.`,
    });
    this.toolCallId = first.toolCallId;
    this.toolName = first.toolName;
    this.status = first.status;
    this.observationError = first.error;
    this.failures = options.failures;
  }
}
brandError(ToolCallFailedError, 'ToolCallFailedError');

/**
 * A custom `toolExecutor` broke its contract: it did not resolve with exactly one observation per action, each
 * naming its action's id and tool with a known status. The run ends with `finishReason: 'error'`; the step's calls
 * are answered with `tool_executor_failed` results so the conversation stays valid.
 *
 * @example
 * if (InvalidToolExecutorResultError.isInstance(result.error)) console.error(result.error.actionId, result.error.message);
 */
export class InvalidToolExecutorResultError extends OrgError {
  /** The action whose observation is missing, duplicated or malformed, when one is at fault. */
  readonly actionId: string | undefined;

  constructor(options: { message: string; actionId?: string }) {
    super('invalid_tool_executor_result', {
      message: `The tool executor's result is invalid: ${options.message}`,
    });
    this.actionId = options.actionId;
  }
}
brandError(InvalidToolExecutorResultError, 'InvalidToolExecutorResultError');

/**
 * `compileMessages` returned messages no provider would accept: not a non-empty list of user, assistant and tool
 * messages, or tool calls and results that do not pair (see `assertToolCallPairing`). The run ends with
 * `finishReason: 'error'` before the model call.
 *
 * @example
 * if (InvalidCompiledMessagesError.isInstance(result.error)) console.error(result.error.messageIndex, result.error.message);
 */
export class InvalidCompiledMessagesError extends OrgError {
  /** The message at fault, when one is. */
  readonly messageIndex: number | undefined;

  constructor(options: { message: string; messageIndex?: number; cause?: unknown }) {
    super('invalid_compiled_messages', {
      message: `compileMessages returned an invalid conversation: ${options.message}`,
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
    this.messageIndex = options.messageIndex;
  }
}
brandError(InvalidCompiledMessagesError, 'InvalidCompiledMessagesError');

/** One problem of an agent configuration: where (`spec.planner.config.max_parallel_tool_calls`) and what. */
export interface AgentConfigProblem {
  readonly path: string;
  /** The same path as keys and list indexes, to locate the value in the source (a YAML node, a line). */
  readonly segments: readonly (string | number)[];
  readonly message: string;
}

/**
 * An agent configuration (seed 000's `spec.planner` / `resources.inference_gateways`) has unknown keys or invalid
 * values. Lists every problem with its path; nothing is silently dropped.
 *
 * @example
 * try { agentOptionsFromConfig(parse(text), { environment: {} }) } catch (error) {
 *   if (InvalidAgentConfigError.isInstance(error)) for (const problem of error.problems) console.error(problem.path, problem.message);
 * }
 */
export class InvalidAgentConfigError extends OrgError {
  readonly problems: readonly AgentConfigProblem[];

  constructor(options: { problems: readonly AgentConfigProblem[] }) {
    super('invalid_agent_config', {
      message: `The agent configuration is invalid:\n${options.problems
        .map((problem) => `- ${problem.path === '' ? '(root)' : problem.path}: ${problem.message}`)
        .join('\n')}`,
    });
    this.problems = options.problems;
  }
}
brandError(InvalidAgentConfigError, 'InvalidAgentConfigError');

/**
 * The run's final answer did not match its `output` schema, after the one repair round trip the loop allows (the
 * model was shown what was wrong and answered again). Carries the last answer's text (bounded) and the problem.
 *
 * @example
 * const result = await runAgent({ model, tools, task, output: z.object({ city: z.string() }) });
 * if (StructuredOutputError.isInstance(result.error)) console.error(result.error.problem);
 */
export class StructuredOutputError extends OrgError {
  /** The last answer the model gave (redacted, cut to 2 000 bytes). */
  readonly text: string;
  /** What was wrong with it, as the model was told. */
  readonly problem: string;

  constructor(options: { text: string; problem: string }) {
    super('structured_output_failed', {
      message: `The final answer does not match the output schema, even after a repair round trip: ${options.problem}`,
    });
    this.text = truncateText(options.text, 2_000, { redact: 'all' });
    this.problem = options.problem;
  }
}
brandError(StructuredOutputError, 'StructuredOutputError');
