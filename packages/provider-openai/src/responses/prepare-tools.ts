import type { ToolSpec } from '@org/core';
import type { ToolPlan } from '../tool-plan.js';

/** Responses API `tools`, `tool_choice` and `parallel_tool_calls` for a tool plan (nothing when no tools are sent). */
export function prepareResponsesTools(plan: ToolPlan): Record<string, unknown> {
  const { choice } = plan;
  return {
    ...(plan.tools.length > 0
      ? { tools: plan.tools.map((tool) => toResponsesTool(tool, plan.strict(tool))) }
      : {}),
    ...(choice === undefined
      ? {}
      : { tool_choice: typeof choice === 'string' ? choice : { type: 'function', name: choice.name } }),
    ...(plan.parallelToolCalls === undefined ? {} : { parallel_tool_calls: plan.parallelToolCalls }),
  };
}

function toResponsesTool(tool: ToolSpec, strict: boolean): Record<string, unknown> {
  // `strict` is always sent: the Responses API treats a missing `strict` as true, which would reject every
  // schema not written in the strict dialect.
  return {
    type: 'function',
    name: tool.name,
    description: tool.description,
    parameters: tool.inputSchema,
    strict,
  };
}
