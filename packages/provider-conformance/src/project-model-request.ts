import type { ModelRequest } from '@org/core';
import type { WireMessage, WireRequest } from './harness.js';

/**
 * Projects a `ModelRequest` onto the neutral `WireRequest` facts. For a model without a network (a scripted model),
 * the request it received *is* its wire request; harnesses of such models return this from `requests()`.
 *
 * @example
 * const seen: WireRequest[] = [];
 * // inside the offline model: seen.push(projectModelRequest(request, { stream: false }));
 */
export function projectModelRequest(request: ModelRequest, options: { stream: boolean }): WireRequest {
  const messages: WireMessage[] = request.messages.map((message): WireMessage => {
    if (message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0) {
      return { role: 'assistant', toolCallIds: (message.toolCalls ?? []).map((call) => call.id) };
    }
    if (message.role === 'tool') return { role: 'tool', toolCallId: message.toolCallId };
    return { role: message.role };
  });
  return {
    toolChoice: request.toolChoice,
    parallelToolCalls: request.parallelToolCalls,
    tools: (request.tools ?? []).map((tool) => ({ name: tool.name, inputSchema: tool.inputSchema })),
    messages,
    stream: options.stream,
  };
}
