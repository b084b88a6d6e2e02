import type { Message, ModelRequest, ToolSpec } from '@org/core';
import { passthroughOptions } from './provider-options.js';
import type { ToolPlan } from './tool-plan.js';

/** Settings of the Chat Completions body that are not in the request. */
export interface ChatBodySettings {
  readonly provider: string;
  readonly modelId: string;
  /** `max_completion_tokens` (OpenAI) or `max_tokens` (older OpenAI-compatible servers). */
  readonly maxTokensParameter: 'max_completion_tokens' | 'max_tokens';
  /** Send `stream_options: { include_usage: true }` on streamed requests. */
  readonly streamUsage: boolean;
}

type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
    }
  | { role: 'tool'; tool_call_id: string; content: string };

function toChatMessage(message: Message): ChatMessage {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'assistant': {
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) return { role: 'assistant', content: message.content };
      return {
        role: 'assistant',
        // OpenAI rejects an empty string next to tool calls from some models; null is the documented "no text".
        content: message.content === '' ? null : message.content,
        tool_calls: calls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.toolName, arguments: call.arguments },
        })),
      };
    }
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
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

/** The Chat Completions request body for one request. */
export function buildChatBody(
  request: ModelRequest,
  plan: ToolPlan,
  settings: ChatBodySettings,
  stream: boolean,
): Record<string, unknown> {
  const messages: ChatMessage[] = request.messages.map(toChatMessage);
  if (plan.instruction !== undefined) messages.unshift({ role: 'system', content: plan.instruction });
  const { choice } = plan;
  return {
    ...passthroughOptions(request, settings.provider),
    model: settings.modelId,
    messages,
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
    ...(request.maxOutputTokens === undefined
      ? {}
      : { [settings.maxTokensParameter]: request.maxOutputTokens }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.stopSequences === undefined || request.stopSequences.length === 0
      ? {}
      : { stop: [...request.stopSequences] }),
    ...(stream
      ? { stream: true, ...(settings.streamUsage ? { stream_options: { include_usage: true } } : {}) }
      : {}),
  };
}
