/**
 * The OpenTelemetry names this package writes, in one place. GenAI names follow the GenAI semantic conventions
 * (`docs/gen-ai/gen-ai-spans.md`, `gen-ai-agent-spans.md`, status Development); `error.type` is stable. They are
 * strings here rather than a dependency on `@opentelemetry/semantic-conventions`, whose GenAI names live in its
 * unstable `incubating` entry point. Names under `org.` are this library's own.
 */
export const ATTR = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  agentName: 'gen_ai.agent.name',
  requestModel: 'gen_ai.request.model',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  responseFinishReasons: 'gen_ai.response.finish_reasons',
  usageInputTokens: 'gen_ai.usage.input_tokens',
  usageOutputTokens: 'gen_ai.usage.output_tokens',
  usageCacheReadInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  outputMessages: 'gen_ai.output.messages',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolCallArguments: 'gen_ai.tool.call.arguments',
  toolCallResult: 'gen_ai.tool.call.result',
  errorType: 'error.type',
  runId: 'org.run.id',
  runFinishReason: 'org.run.finish_reason',
  runSteps: 'org.run.steps',
  /**
   * The whole run's tokens so far, on an `invoke_agent` span: a run resumed after an approval pause has one span per
   * segment, each with its own segment's `gen_ai.usage.*` (summable); this is the run's total at that span's end.
   */
  runTotalInputTokens: 'org.run.total_usage.input_tokens',
  runTotalOutputTokens: 'org.run.total_usage.output_tokens',
  inferenceStep: 'org.inference.step',
  toolStatus: 'org.tool.status',
  planId: 'org.plan.id',
  planStepId: 'org.plan.step.id',
} as const;

/** Values of `gen_ai.operation.name`. */
export const OPERATION = {
  invokeAgent: 'invoke_agent',
  chat: 'chat',
  executeTool: 'execute_tool',
} as const;

/** Names of the span events this package adds. */
export const SPAN_EVENT = {
  adjustment: 'org.adjustment',
  approvalRequested: 'org.approval_requested',
  decisionExtractionFailed: 'org.decision_extraction_failed',
  toolCallIntercepted: 'org.tool_call_intercepted',
  validationFailed: 'org.validation_failed',
} as const;

/**
 * `gen_ai.provider.name` for a `LanguageModel.provider`: the conventions' well-known value where ours differs
 * (`bedrock` is `aws.bedrock`), the provider's own name otherwise.
 */
export function providerNameOf(provider: string): string {
  return provider === 'bedrock' ? 'aws.bedrock' : provider;
}
