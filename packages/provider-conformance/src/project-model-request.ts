import type { MessageContent, ModelRequest, ReasoningPart } from '@org/core';
import type { WireContentPart, WireMessage, WireReasoning, WireRequest } from './harness.js';

function projectContent(content: MessageContent): WireContentPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map((part): WireContentPart => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    const media = {
      ...(part.mediaType === undefined ? {} : { mediaType: part.mediaType }),
      ...(part.data === undefined ? {} : { data: part.data }),
      ...(part.url === undefined ? {} : { url: part.url }),
    };
    if (part.type === 'image') return { type: 'image', ...media };
    return { type: 'file', ...media, ...(part.filename === undefined ? {} : { filename: part.filename }) };
  });
}

function projectReasoning(part: ReasoningPart): WireReasoning {
  const { type: _type, provider: _provider, ...rest } = part;
  return rest;
}

/**
 * Projects a `ModelRequest` onto the neutral `WireRequest` facts. For a model without a network (a scripted model),
 * the request it received *is* its wire request; harnesses of such models return this from `requests()`. Every
 * fact is projected: reasoning of assistant messages, content parts of user and tool messages, the response format,
 * and the request as JSON (`rawBody`). A model that changes a request before "sending" it (leaves out reasoning of
 * another provider) projects the request as changed.
 *
 * @example
 * const seen: WireRequest[] = [];
 * // inside the offline model: seen.push(projectModelRequest(request, { stream: false }));
 */
export function projectModelRequest(request: ModelRequest, options: { stream: boolean }): WireRequest {
  const messages: WireMessage[] = request.messages.map((message): WireMessage => {
    switch (message.role) {
      case 'assistant': {
        const toolCallIds = (message.toolCalls ?? []).map((call) => call.id);
        const reasoning = (message.reasoning ?? []).map(projectReasoning);
        return {
          role: 'assistant',
          ...(toolCallIds.length > 0 ? { toolCallIds } : {}),
          ...(reasoning.length > 0 ? { reasoning } : {}),
        };
      }
      case 'tool':
        return { role: 'tool', toolCallId: message.toolCallId, content: projectContent(message.content) };
      case 'user':
        return { role: 'user', content: projectContent(message.content) };
      default:
        return { role: 'system' };
    }
  });
  const { signal: _signal, ...body } = request;
  const format = request.responseFormat;
  return {
    toolChoice: request.toolChoice,
    parallelToolCalls: request.parallelToolCalls,
    tools: (request.tools ?? []).map((tool) => ({ name: tool.name, inputSchema: tool.inputSchema })),
    messages,
    stream: options.stream,
    ...(format === undefined ? {} : { responseFormat: { name: format.name, schema: format.schema } }),
    rawBody: JSON.stringify(body),
  };
}
