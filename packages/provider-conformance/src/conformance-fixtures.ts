import type { Message, ToolCall, ToolSpec } from '@org/core';

/**
 * The tools every conformance case offers: two, so `required` and a named choice differ.
 *
 * @example
 * await model.generate({ messages: HISTORY_WITH_TOOL_CALLS, tools: CONFORMANCE_TOOLS });
 */
export const CONFORMANCE_TOOLS: readonly ToolSpec[] = Object.freeze([
  {
    name: 'get_weather',
    description: 'Current weather for a city.',
    inputSchema: {
      type: 'object',
      properties: {
        city: { type: 'string', description: 'City name, e.g. Paris' },
        unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
      },
      required: ['city', 'unit'],
      additionalProperties: false,
    },
  },
  {
    name: 'search_docs',
    description: 'Full-text search over the product documentation.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string' },
        limit: { type: 'integer', minimum: 1, maximum: 20 },
      },
      required: ['query', 'limit'],
      additionalProperties: false,
    },
  },
]);

/**
 * Tool calls already answered in `HISTORY_WITH_TOOL_CALLS`.
 *
 * @example
 * HISTORY_TOOL_CALLS.map((call) => call.id); // ['call_hist_weather', 'call_hist_search']
 */
export const HISTORY_TOOL_CALLS: readonly ToolCall[] = Object.freeze([
  { id: 'call_hist_weather', toolName: 'get_weather', arguments: '{"city":"Oslo","unit":"celsius"}' },
  { id: 'call_hist_search', toolName: 'search_docs', arguments: '{"query":"umbrella policy","limit":3}' },
]);

/**
 * A conversation that has not used tools yet.
 *
 * @example
 * await model.generate({ messages: HISTORY_WITHOUT_TOOL_CALLS, tools: CONFORMANCE_TOOLS });
 */
export const HISTORY_WITHOUT_TOOL_CALLS: readonly Message[] = Object.freeze([
  { role: 'system', content: 'You are a concise assistant. Use the tools when they help.' },
  { role: 'user', content: 'What is the weather in Paris, and what do the docs say about umbrellas?' },
]);

/**
 * A conversation with an assistant turn of two parallel tool calls, their results, and a follow-up question.
 *
 * @example
 * await model.stream({ messages: HISTORY_WITH_TOOL_CALLS, tools: CONFORMANCE_TOOLS });
 */
export const HISTORY_WITH_TOOL_CALLS: readonly Message[] = Object.freeze([
  { role: 'system', content: 'You are a concise assistant. Use the tools when they help.' },
  { role: 'user', content: 'Weather in Oslo, and the umbrella policy?' },
  { role: 'assistant', content: '', toolCalls: HISTORY_TOOL_CALLS },
  {
    role: 'tool',
    toolCallId: 'call_hist_weather',
    toolName: 'get_weather',
    content: '{"temperature":4,"sky":"rain"}',
  },
  {
    role: 'tool',
    toolCallId: 'call_hist_search',
    toolName: 'search_docs',
    content: 'Umbrellas are lent at the front desk.',
    isError: false,
  },
  { role: 'assistant', content: 'It rains in Oslo (4 °C); umbrellas are lent at the front desk.' },
  { role: 'user', content: 'And in Paris? Check the docs for a rain policy too.' },
]);
