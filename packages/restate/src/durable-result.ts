import { OrgError } from '@org/core';
import type { AgentResult } from '@org/planner';
import { toJsonValue } from '@org/tools';
import { DurableModelCallError } from './errors.js';
import type { ApprovalRecord, DurableAgentResult } from './restate-agent-types.js';

/**
 * A run's result as the workflow's output: JSON data (tool outputs as `toJsonValue` of `@org/tools` writes them),
 * the error as `{ name, code, causeCode?, message }`, and the approvals the run waited for. A paused state never leaves the
 * workflow: the run waits for its approval instead of returning it.
 */
export function durableResult(result: AgentResult, approvals: readonly ApprovalRecord[]): DurableAgentResult {
  // `segmentUsage` is left out: a durable run's pauses happen inside the workflow, so to its caller the run is one
  // segment and its `usage` (the whole run's, every model call counted once) is the only usage there is.
  const { error, state: _state, pendingApprovals: _pending, segmentUsage: _segmentUsage, ...data } = result;
  return {
    ...(toJsonValue(data) as unknown as Omit<DurableAgentResult, 'error' | 'approvals'>),
    ...(error === undefined
      ? {}
      : {
          error: {
            name: error.name,
            ...(OrgError.isInstance(error) ? { code: error.code } : {}),
            ...(DurableModelCallError.isInstance(error) && error.causeCode !== undefined
              ? { causeCode: error.causeCode }
              : {}),
            message: error.message,
          },
        }),
    approvals,
  };
}
