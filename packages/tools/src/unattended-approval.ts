import { type Action, errorMessageOf, type ObservationError } from '@org/core';
import { type Tool, toolNeedsApproval } from './tool.js';

/** What a call that cannot pause for a human is, for {@link unattendedApprovalRefusal}. */
export interface UnattendedCall {
  /** How the refusal names the call: `Step 'lookup'`, `Call to 'delete_file'`. */
  readonly subject: string;
  /** What made the call and cannot ask a human: `plan`, `program`. */
  readonly container: string;
  /** The tool's name as the model wrote it (a provider-safe alias, say); default `tool.name`. */
  readonly toolName?: string;
  /** Decides a call whose tool needs approval (`approveStep`, `approveCall`); without it, such a call is refused. */
  readonly approve?: ((action: Action) => boolean | Promise<boolean>) | undefined;
  /** Fields the refusal's error carries for a caller (`stepId`, ...); `toolName` is always there. */
  readonly details?: Readonly<Record<string, unknown>>;
}

/**
 * The rule for a call made where no human can be asked (a plan's step, a code-mode program's call): it runs when its
 * tool needs no approval for these (already validated and coerced) arguments, or when `approve` approves it;
 * otherwise it is refused with `approval_required` and the advice to call the tool directly. A rule or an `approve`
 * that throws refuses the call (failing closed) and says why. Plan steps and program calls decide through this one
 * function, so both give the model the same message.
 *
 * @returns `undefined` when the call may run, else the error of its `blocked` observation.
 * @example
 * const refusal = await unattendedApprovalRefusal(tool, action, { subject: `Step '${step.id}'`, container: 'plan' });
 * if (refusal !== undefined) return { status: 'blocked', error: refusal };
 */
export async function unattendedApprovalRefusal(
  tool: Tool,
  action: Action,
  call: UnattendedCall,
): Promise<ObservationError | undefined> {
  const toolName = call.toolName ?? tool.name;
  const details = { ...call.details, toolName };
  try {
    if (!(await toolNeedsApproval(tool, action.args))) return undefined;
    if ((await call.approve?.(action)) === true) return undefined;
  } catch (cause) {
    return {
      code: 'approval_required',
      message: `${call.subject} was not run: deciding whether tool '${toolName}' needs approval failed (${errorMessageOf(cause)}).`,
      details,
    };
  }
  return {
    code: 'approval_required',
    message: `${call.subject} was not run: tool '${toolName}' needs approval, which a ${call.container} cannot ask for. Call '${toolName}' directly instead.`,
    details,
  };
}
