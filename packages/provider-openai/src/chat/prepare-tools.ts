import type { ToolSpec } from '@org/core';
import type { ToolPlan } from '../tool-plan.js';

/** Chat Completions `tools`, `tool_choice` and `parallel_tool_calls` for a tool plan (nothing when no tools are sent). */
export function prepareChatTools(plan: ToolPlan): Record<string, unknown> {
  const { choice } = plan;
  return {
    ...(plan.tools.length > 0
      ? { tools: plan.tools.map((tool) => toChatTool(tool, plan.strict(tool), plan.strictSchemas)) }
      : {}),
    ...(choice === undefined
      ? {}
      : {
          tool_choice:
            typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } },
        }),
    ...(plan.parallelToolCalls === undefined ? {} : { parallel_tool_calls: plan.parallelToolCalls }),
  };
}

/**
 * `strict: true` for a strict tool; `strict: false` for a tool sent non-strict to a model declared with strict
 * schemas (as the Responses API always says it); absent otherwise, the API's default and what compatible servers
 * without strict mode expect.
 */
function toChatTool(tool: ToolSpec, strict: boolean, strictSchemas: boolean): Record<string, unknown> {
  return {
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description,
      parameters: tool.inputSchema,
      ...(strict ? { strict: true } : strictSchemas && tool.strict === false ? { strict: false } : {}),
    },
  };
}
