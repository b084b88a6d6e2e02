export { approvalPromiseName, checkApproval } from './approval.js';
export {
  createRestateAgent,
  type RestateAgent,
  type RestateAgentHandlers,
} from './create-restate-agent.js';
export type { DurableCodeOptions } from './durable-code-tool.js';
export { type DurableRunEffectsOptions, durableRunEffects } from './durable-run-effects.js';
export {
  DurableModelCallError,
  InvalidRemoteToolResponseError,
  InvalidRestateAgentOptionError,
  JournalValueError,
  RemoteToolError,
  type RestateErrorCode,
} from './errors.js';
export { exactJsonCopy, journaledModelResponse, journaledObservation } from './journal-values.js';
export type {
  RemoteToolDescription,
  RemoteToolRequest,
  ToolServiceDescription,
} from './remote-tool-protocol.js';
export type {
  ApprovalInput,
  ApprovalRecord,
  DurableAgentResult,
  DurableAgentSettings,
  DurablePlanOptions,
  DurableRetryPolicy,
  DurableRunInfo,
  PendingApproval,
  RestateAgentInput,
  RestateAgentOptions,
  RestateAgentStatus,
} from './restate-agent-types.js';
export {
  createRestateToolService,
  type RestateToolService,
  type RestateToolServiceHandlers,
  type RestateToolServiceOptions,
} from './restate-tool-service.js';
export { type RestateToolSource, restateToolSource } from './restate-tool-source.js';
