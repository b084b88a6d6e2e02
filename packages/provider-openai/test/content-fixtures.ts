import type { Message, ToolCall } from '@org/core';

/** A 1×1 PNG, base64. */
export const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** A few bytes standing for a PDF, base64. */
export const PDF = 'JVBERi0xLjQKJSVFT0YK';

export const CHART_CALL: ToolCall = {
  id: 'call_chart',
  toolName: 'render_chart',
  arguments: '{"city":"Paris"}',
};
export const TABLE_CALL: ToolCall = {
  id: 'call_table',
  toolName: 'get_table',
  arguments: '{"city":"Paris"}',
};

/** A user message with text, an inline image, an image by URL, an inline file and a file by URL. */
export const USER_WITH_MEDIA: Message = {
  role: 'user',
  content: [
    { type: 'text', text: 'Compare these.' },
    { type: 'image', mediaType: 'image/png', data: PNG },
    { type: 'image', url: 'https://example.com/radar.png' },
    { type: 'file', mediaType: 'application/pdf', data: PDF, filename: 'report.pdf' },
  ],
};

/** Two parallel calls: the first returned text and an image, the second text only. Then the user speaks again. */
export const HISTORY_WITH_TOOL_MEDIA: readonly Message[] = [
  { role: 'user', content: 'Chart and table for Paris?' },
  { role: 'assistant', content: '', toolCalls: [CHART_CALL, TABLE_CALL] },
  {
    role: 'tool',
    toolCallId: CHART_CALL.id,
    toolName: CHART_CALL.toolName,
    content: [
      { type: 'text', text: 'Chart rendered.' },
      { type: 'image', mediaType: 'image/png', data: PNG },
    ],
  },
  {
    role: 'tool',
    toolCallId: TABLE_CALL.id,
    toolName: TABLE_CALL.toolName,
    content: [{ type: 'text', text: 'Mon 18, Tue 20' }],
  },
  { role: 'user', content: 'Summarise.' },
];
