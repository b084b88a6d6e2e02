import type { ToolExecutionContext } from './tool.js';

/** When a tool's own work (a plan's steps, a program) ends, a little before its call's deadline. */
export interface OwnWorkDeadline {
  /** The work's time limit in ms, counted from the call's start: what a result reports as the limit that passed. */
  readonly timeoutMs: number;
  /**
   * When the work must have ended, as `performance.now()` reads time: `timeoutMs` after the call's timer started
   * (`context.deadlineAt`), so a pause before the work starts cannot move its end past the call's. Undefined for a
   * context built by hand without `deadlineAt`: count `timeoutMs` from now.
   */
  readonly endsAt: number | undefined;
}

/**
 * The deadline of work a tool runs itself, so that its summary (what finished, what took effect) is returned before
 * the call is stopped: 2% earlier than the call's deadline, between 5 and 100 ms (half the deadline when that is
 * shorter). Undefined when the call has no deadline. `execute_tool_plan` and `run_code` end their work by it.
 *
 * @example
 * const deadline = ownWorkDeadline(context);
 * const leftMs = deadline?.endsAt === undefined ? deadline?.timeoutMs : deadline.endsAt - performance.now();
 */
export function ownWorkDeadline(
  context: Pick<ToolExecutionContext, 'timeoutMs' | 'deadlineAt'>,
): OwnWorkDeadline | undefined {
  const callTimeoutMs = context.timeoutMs;
  if (callTimeoutMs === undefined || !Number.isFinite(callTimeoutMs)) return undefined;
  const margin = Math.min(100, Math.max(5, callTimeoutMs * 0.02));
  const timeoutMs = callTimeoutMs > 2 * margin ? callTimeoutMs - margin : callTimeoutMs / 2;
  const deadlineAt = context.deadlineAt;
  return {
    timeoutMs,
    endsAt: deadlineAt === undefined ? undefined : deadlineAt - (callTimeoutMs - timeoutMs),
  };
}
