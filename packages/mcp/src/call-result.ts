import { truncateText } from '@org/core';
import { copyServerJson } from './copy-server-json.js';
import { McpInvalidResponseError, McpToolError } from './errors.js';

/**
 * UTF-8 bytes of a server's error text kept in an `McpToolError`, cut with the packages' marker (`truncateText` of
 * `@org/core`) and redacted of secrets: the message reaches the model.
 */
export const MAXIMUM_ERROR_TEXT_LENGTH = 8000;

/** Who a result belongs to, for the errors it may raise. */
export interface CallResultContext {
  readonly server: string;
  readonly toolName: string;
  readonly mcpToolName: string;
  readonly hasOutputSchema: boolean;
  readonly maxResultSize: number;
  readonly maxDepth: number;
}

function own(record: object, key: string): unknown {
  return Object.hasOwn(record, key) ? (record as Record<string, unknown>)[key] : undefined;
}

function sizeNote(data: unknown): string {
  return typeof data === 'string' ? `, ${Math.floor((data.length * 3) / 4)} bytes` : '';
}

/** One content block as text: text as is, anything else as a one-line note (the model cannot see binary data). */
function blockText(block: unknown): string {
  if (typeof block !== 'object' || block === null) return '[unreadable content block]';
  const type = own(block, 'type');
  const mimeType = own(block, 'mimeType');
  const mime = typeof mimeType === 'string' ? mimeType.slice(0, 100) : 'unknown type';
  switch (type) {
    case 'text': {
      const text = own(block, 'text');
      return typeof text === 'string' ? text : '[text block without text]';
    }
    case 'image':
    case 'audio':
      return `[${type}: ${mime}${sizeNote(own(block, 'data'))}]`;
    case 'resource_link': {
      const uri = own(block, 'uri');
      return `[resource link: ${typeof uri === 'string' ? uri.slice(0, 2000) : 'no uri'}]`;
    }
    case 'resource': {
      const resource = own(block, 'resource');
      if (typeof resource !== 'object' || resource === null) return '[resource without contents]';
      const text = own(resource, 'text');
      if (typeof text === 'string') return text;
      const uri = own(resource, 'uri');
      const resourceMime = own(resource, 'mimeType');
      return `[resource: ${typeof uri === 'string' ? uri.slice(0, 2000) : 'no uri'} (${
        typeof resourceMime === 'string' ? resourceMime.slice(0, 100) : 'unknown type'
      }${sizeNote(own(resource, 'blob'))})]`;
    }
    default:
      return `[content block of type ${JSON.stringify(String(type).slice(0, 40))}]`;
  }
}

/**
 * The output of an MCP call result: its `structuredContent` (a bounded, prototype-safe copy) when present, else
 * its content as text. An `isError` result throws `McpToolError`; anything unusable throws
 * `McpInvalidResponseError`.
 */
export function outputOfCallResult(result: unknown, context: CallResultContext): unknown {
  const invalid = (field: string, reason: string): never => {
    throw new McpInvalidResponseError({ server: context.server, toolName: context.toolName, field, reason });
  };
  if (typeof result !== 'object' || result === null || Array.isArray(result)) {
    return invalid('result', 'not an object');
  }
  const content = own(result, 'content') ?? [];
  if (!Array.isArray(content)) return invalid('content', 'not an array');
  let length = 0;
  const parts: string[] = [];
  for (const block of content) {
    const text = blockText(block);
    length += text.length + 1;
    if (length > context.maxResultSize) {
      return invalid('content', `more than ${context.maxResultSize} characters (limits.maxResultSize)`);
    }
    parts.push(text);
  }
  const text = parts.join('\n');
  if (own(result, 'isError') === true) {
    throw new McpToolError({
      server: context.server,
      toolName: context.toolName,
      mcpToolName: context.mcpToolName,
      text: truncateText(text, MAXIMUM_ERROR_TEXT_LENGTH, { what: 'error text', redact: 'all' }),
    });
  }
  const structured = own(result, 'structuredContent');
  if (structured !== undefined) {
    if (typeof structured !== 'object' || structured === null || Array.isArray(structured)) {
      return invalid('structuredContent', 'not an object');
    }
    const copied = copyServerJson(structured, {
      maxDepth: context.maxDepth,
      maxSize: context.maxResultSize,
    });
    if (!copied.ok) return invalid('structuredContent', copied.problem.reason);
    return copied.value;
  }
  if (context.hasOutputSchema) {
    return invalid(
      'structuredContent',
      'the tool declares an output schema but the result has no structuredContent',
    );
  }
  return text;
}
