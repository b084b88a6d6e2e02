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
export { connectMemoryTools, memoryServerScript, memoryTask, TEAM_MEMORY } from './memory-task.js';
export { type DemoArguments, parseDemoArguments, USAGE } from './parse-args.js';
export {
  buildPlanTimeline,
  type PlanTimeline,
  referencedSteps,
  renderTimelineSvg,
  type TimelineStep,
} from './plan-timeline.js';
export {
  createProviderModel,
  missingCredentials,
  OPENAI_APIS,
  type OpenAIApi,
  type OpenAIConnection,
  REAL_PROVIDERS,
  type RealProvider,
} from './providers.js';
export { describeEvent, formatComparisonTable } from './report.js';
export { DEFAULT_OUT_DIR, type DemoIo, type DemoOutcome, runDemo } from './run-demo.js';
export {
  MODE_LABELS,
  MODES,
  type Mode,
  type ModeRun,
  type RunTaskInModeOptions,
  runTaskInMode,
} from './run-mode.js';
export {
  createWeatherTool,
  DEMO_TASKS,
  FAILING_SHOP,
  ORDERS,
  ordersTask,
  PAPERS,
  pricesTask,
  researchTask,
  SHOPS,
  WEATHER,
  weatherTask,
} from './tasks.js';
