export {
  CONFORMANCE_TOOLS,
  HISTORY_TOOL_CALLS,
  HISTORY_WITH_TOOL_CALLS,
  HISTORY_WITHOUT_TOOL_CALLS,
} from './conformance-fixtures.js';
export { runConformanceSuite } from './conformance-suite.js';
export type {
  ConformanceFixture,
  ConformanceHarness,
  DisconnectReply,
  ErrorReply,
  HarnessCapabilities,
  ResponseReply,
  ScriptedReasoning,
  ScriptedReply,
  StallReply,
  WireContentPart,
  WireMessage,
  WireReasoning,
  WireRequest,
  WireResponseFormat,
  WireToolChoice,
} from './harness.js';
export { projectModelRequest } from './project-model-request.js';
