import type { Message, ModelRequest, ToolSpec } from '@org/core';
import { passthroughOptions } from './provider-options.js';
import type { ToolPlan } from './tool-plan.js';

/** Settings of the Responses API body that are not in the request. */
export interface ResponsesBodySettings {
  readonly provider: string;
  readonly modelId: string;
}

type InputItem =
  | { role: 'system' | 'user' | 'assistant'; content: string }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'function_call_output'; call_id: string; output: string };

function toInputItems(message: Message): InputItem[] {
  switch (message.role) {
    case 'system':
    case 'user':
      return [{ role: message.role, content: message.content }];
    case 'assistant': {
      const items: InputItem[] = [];
      if (message.content !== '' || (message.toolCalls?.length ?? 0) === 0) {
        items.push({ role: 'assistant', content: message.content });
      }
      for (const call of message.toolCalls ?? []) {
        items.push({
          type: 'function_call',
          call_id: call.id,
          name: call.toolName,
          arguments: call.arguments,
        });
      }
      return items;
    }
    case 'tool':
      return [{ type: 'function_call_output', call_id: message.toolCallId, output: message.content }];
  }
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

/** The Responses API request body for one request. Stop sequences have no Responses field; see `planSettings`. */
export function buildResponsesBody(
  request: ModelRequest,
  plan: ToolPlan,
  settings: ResponsesBodySettings,
  stream: boolean,
): Record<string, unknown> {
  const input: InputItem[] = request.messages.flatMap(toInputItems);
  if (plan.instruction !== undefined) input.unshift({ role: 'system', content: plan.instruction });
  const { choice } = plan;
  return {
    ...passthroughOptions(request, settings.provider),
    model: settings.modelId,
    input,
    ...(plan.tools.length > 0
      ? { tools: plan.tools.map((tool) => toResponsesTool(tool, plan.strict(tool))) }
      : {}),
    ...(choice === undefined
      ? {}
      : { tool_choice: typeof choice === 'string' ? choice : { type: 'function', name: choice.name } }),
    ...(plan.parallelToolCalls === undefined ? {} : { parallel_tool_calls: plan.parallelToolCalls }),
    ...(request.maxOutputTokens === undefined ? {} : { max_output_tokens: request.maxOutputTokens }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(stream ? { stream: true } : {}),
  };
}
