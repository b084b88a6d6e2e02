export {
  type AgUiHandler,
  type AgUiHandlerOptions,
  type AgUiRunContext,
  createAgUiHandler,
  DEFAULT_MAX_BODY_BYTES,
} from './ag-ui-handler.js';
export {
  AGENT_STATE_METADATA_KEY,
  type ApprovalAnswer,
  approvalResume,
  TOOL_APPROVAL_REASON,
} from './approval-interrupts.js';
export {
  type AgUiErrorCode,
  AgUiRequestError,
  type AgUiRequestProblem,
  InvalidAgUiOptionError,
} from './errors.js';
export {
  AgUiEventMapper,
  type AgUiEventMapperOptions,
  planStepCallId,
  toolResultMessageId,
} from './event-mapper.js';
export { AWAITING_FRONT_END } from './front-end-tools.js';
export type { AgUiAgentOptions } from './prepare-run.js';
export { type AgUiServer, type ServeAgUiOptions, serveAgUi } from './serve-ag-ui.js';
