import { type Action, errorMessageOf, OrgError } from '@org/core';
import { safeParse } from 'zod/v4/core';
import { type Artifact, hasArtifacts } from './artifacts.js';
import { boundMessage, budgetOf, type CallRecorder, reasonSuffix } from './call-recorder.js';
import { compiledToolOf } from './compiled-tool.js';
import type { ExecuteActionOptions, ToolObservation } from './execute-action.js';
import { resolveLimits } from './limits.js';
import { INVALID, type WalkContext, walk } from './schema-walker.js';
import { DEFAULT_OUTPUT_BUDGET_BYTES, type SerializedOutput, serializeOutput } from './serialize-output.js';
import type { Tool } from './tool.js';
import { contentBytes, hasContent, MAX_TOOL_CONTENT_BYTES, type ToolMediaPart } from './tool-content.js';
import type { Outcome } from './tool-invocation.js';

/** What the observation of a finished invocation is built from. */
export interface ObservedCall {
  readonly call: CallRecorder;
  readonly tool: Tool;
  /** The action as the tool ran it: `args` are the final arguments (after hooks and hidden parameters). */
  readonly action: Action;
  readonly options: ExecuteActionOptions;
  readonly timeoutMs: number | undefined;
}

function safeHasArtifacts(value: unknown): boolean {
  try {
    return hasArtifacts(value);
  } catch {
    return false;
  }
}

function safeHasContent(value: unknown): boolean {
  try {
    return hasContent(value);
  } catch {
    return false;
  }
}

function thrownDetails(thrown: unknown): Record<string, unknown> {
  try {
    if (OrgError.isInstance(thrown)) return { thrownCode: thrown.code, retryable: thrown.retryable };
    if (thrown instanceof Error) return { thrownName: thrown.name };
    return { thrownType: thrown === null ? 'null' : typeof thrown };
  } catch {
    return { thrownType: 'unknown' };
  }
}

/**
 * The observation of an invocation's outcome: a timeout, an abort, a rejection or a throw as an error observation;
 * a returned value checked against the output schema, shown to `afterToolUse`, serialised and cut to the budget.
 */
export async function observeOutcome(observed: ObservedCall, outcome: Outcome): Promise<ToolObservation> {
  const { call, tool, action, options, timeoutMs } = observed;
  switch (outcome.kind) {
    case 'timeout':
      return call.fail(
        'timeout',
        'timeout',
        // Narrower arguments cannot help a tool that runs other tools (a plan): what matters is that some of its
        // calls may have taken effect before the stop.
        tool.nestedTools === undefined
          ? `Tool '${tool.name}' did not finish within ${timeoutMs} ms and was stopped. Try narrower arguments.`
          : `Tool '${tool.name}' did not finish within ${timeoutMs} ms and was stopped. Calls it made before the stop may have taken effect; check before repeating them.`,
        { timeoutMs },
      );
    case 'aborted':
      return call.fail(
        'aborted',
        'aborted',
        `Tool '${tool.name}' was aborted before it finished${reasonSuffix(outcome.reason)}.`,
      );
    case 'rejected':
      return call.finish(outcome.status, {
        error: { ...outcome.error, message: boundMessage(outcome.error.message, budgetOf(options)) },
      });
    case 'thrown':
      return call.fail(
        'error',
        'tool_execution_failed',
        `Tool '${tool.name}' failed: ${errorMessageOf(outcome.error)}`,
        thrownDetails(outcome.error),
      );
    default:
      break;
  }

  let value = outcome.value;
  let artifacts: readonly Artifact[] | undefined;
  if (safeHasArtifacts(value)) {
    const carrier = value as { output: unknown; artifacts: readonly Artifact[] };
    artifacts = carrier.artifacts;
    value = carrier.output;
  }
  let content: readonly ToolMediaPart[] | undefined;
  if (safeHasContent(value)) {
    const carrier = value as { output: unknown; content: readonly ToolMediaPart[] };
    content = carrier.content;
    value = carrier.output;
    const bytes = contentBytes(content);
    if (bytes > MAX_TOOL_CONTENT_BYTES) {
      return call.fail(
        'error',
        'content_too_large',
        `Tool '${tool.name}' returned ${bytes} bytes of images and files, more than the ${MAX_TOOL_CONTENT_BYTES} a tool result may carry.`,
        { bytes, limit: MAX_TOOL_CONTENT_BYTES },
      );
    }
  }

  const outputProblem = checkOutput(tool, value);
  if (outputProblem !== undefined) {
    return call.finish('error', {
      error: {
        code: 'invalid_tool_output',
        message: boundMessage(
          `Tool '${tool.name}' returned output that does not match its output schema: ${outputProblem}`,
          budgetOf(options),
        ),
      },
      rawOutput: value,
      hasRaw: true,
    });
  }

  const budget = options.outputBudgetBytes ?? DEFAULT_OUTPUT_BUDGET_BYTES;
  let serialized: SerializedOutput | undefined;
  if (options.hooks?.afterToolUse !== undefined) {
    serialized = serializeOutput(value, budget);
    const draft: ToolObservation = {
      actionId: action.id,
      toolName: tool.name,
      status: 'success',
      output: serialized.output,
      durationMs: Math.max(0, call.now() - call.started),
      rawOutput: value,
    };
    try {
      const decision = await options.hooks.afterToolUse({ action, tool, observation: draft });
      if (decision !== undefined) {
        const reason = String(decision.reason);
        call.intercept(tool.name, { decision: 'rewritten', reason, source: 'afterToolUse' });
        value = decision.output;
        serialized = undefined;
      }
    } catch (thrown) {
      return call.fail('error', 'hook_failed', `The afterToolUse hook failed: ${errorMessageOf(thrown)}`);
    }
  }

  // A primitive output is serialised once. An object is serialised again after `afterToolUse`: the hook may have
  // edited it in place (redaction) without returning a replacement.
  if (serialized === undefined || (typeof value === 'object' && value !== null))
    serialized = serializeOutput(value, budget);
  return call.finish('success', {
    output: serialized.output,
    rawOutput: value,
    hasRaw: true,
    truncated: serialized.truncated,
    ...(artifacts === undefined ? {} : { artifacts }),
    ...(content === undefined ? {} : { content }),
  });
}

/** Why an output does not match the tool's output schema, or `undefined` when it does (or there is none). */
function checkOutput(tool: Tool, value: unknown): string | undefined {
  const compiled = compiledToolOf(tool);
  try {
    if (compiled.outputZod !== undefined) {
      const result = safeParse(compiled.outputZod, value);
      if (result.success) return undefined;
      return result.error.issues
        .map((issue) => `${issue.path.join('.') || '(output)'}: ${issue.message}`)
        .join('; ');
    }
    if (compiled.outputSchema !== undefined) {
      const context: WalkContext = {
        root: compiled.outputSchema,
        coerce: false,
        limits: resolveLimits(undefined),
        hidden: new Set(),
        issues: [],
        coercions: [],
      };
      if (walk(compiled.outputSchema, value, '', context) !== INVALID && context.issues.length === 0)
        return undefined;
      return context.issues.map((issue) => `${issue.path || '(output)'}: ${issue.problem}`).join('; ');
    }
  } catch (thrown) {
    return `the output could not be checked (${errorMessageOf(thrown)})`;
  }
  return undefined;
}
