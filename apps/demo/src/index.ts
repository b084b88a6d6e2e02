export {
  type AgentConfig,
  type AgentToolDescription,
  fillAnswerTemplate,
  parseAgentConfig,
} from './agent-config.js';
export { agentConfigToTask } from './agent-task.js';
export type { ConnectedTools, DemoTask, DemoTaskDefinition, ToolClock } from './demo-task.js';
export {
  AgentConfigError,
  type AgentConfigProblem,
  DemoUsageError,
  MissingCredentialsError,
} from './errors.js';
export { createLiveTrace, type LiveTrace, type LiveTraceOptions } from './live-trace.js';
export { connectMemoryTools, memoryServerScript, memoryTask, TEAM_MEMORY } from './memory-task.js';
export { answerAsRequested, createOfflineModel, type OfflineModelOptions } from './offline-model.js';
export { type DemoArguments, parseDemoArguments, USAGE } from './parse-args.js';
export {
  buildPlanTimeline,
  criticalPathOf,
  describeCriticalPath,
  type ModelCallSpan,
  type PlacedStep,
  type PlanTimeline,
  planStepArguments,
  referencedSteps,
  type TimelineStep,
} from './plan-timeline.js';
export {
  createProviderModel,
  missingCredentials,
  OPENAI_APIS,
  type OpenAIApi,
  type OpenAIConnection,
  type ProviderModelOptions,
  REAL_PROVIDERS,
  type RealProvider,
  STRUCTURED_OUTPUT_ROUTES,
  type StructuredOutputRoute,
} from './providers.js';
export {
  describeEvent,
  type EarlyStart,
  formatComparisonTable,
  formatTypedOutput,
  seconds,
  stamp,
} from './report.js';
export { DEFAULT_OUT_DIR, type DemoIo, type DemoOutcome, runDemo } from './run-demo.js';
export {
  MODE_LABELS,
  MODES,
  type Mode,
  type ModeRun,
  type RunTaskInModeOptions,
  runTaskInMode,
  type TypedOutput,
  type TypedOutputRoute,
} from './run-mode.js';
export {
  buildRunTimeline,
  earlyStartCount,
  type RunTimeline,
  type RunTimelineOptions,
  summarizeRunTimeline,
  type TimelineModelCall,
  type TimelineToolCall,
} from './run-timeline.js';
export { defineTaskOutput, type TaskOutput } from './task-output.js';
export {
  createWeatherTool,
  DEMO_TASKS,
  FAILING_SHOP,
  INVOICES,
  invoicesTask,
  ORDERS,
  OrdersReport,
  ordersTask,
  PAPERS,
  pricesTask,
  researchTask,
  SHOPS,
  WEATHER,
  weatherTask,
} from './tasks.js';
export { renderTimelineSvg } from './timeline-svg.js';
