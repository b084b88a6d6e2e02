import { brandError, OrgError } from '@org/core';

/** Stable codes of the errors defined in `@org/mcp`. */
export type McpErrorCode =
  | 'mcp_connection_failed'
  | 'mcp_connection_closed'
  | 'mcp_tool_error'
  | 'mcp_request_failed'
  | 'mcp_invalid_response'
  | 'mcp_invalid_tool'
  | 'invalid_mcp_option';

/** How much of a server-chosen string (a tool name, an error text) an error message quotes. */
const QUOTED_LENGTH = 120;

/** A server-chosen string, cut and quoted for a message: a hostile server cannot make our messages huge. */
export function quoteServerText(text: unknown, maximum: number = QUOTED_LENGTH): string {
  const value = typeof text === 'string' ? text : String(typeof text);
  return JSON.stringify(value.length > maximum ? `${value.slice(0, maximum)}…` : value);
}

/**
 * The connection to an MCP server could not be made: the command could not be spawned, the URL refused the
 * connection, or the MCP handshake (`initialize`) failed.
 *
 * @example
 * try { await connectMcp({ command: 'mcp-server-memory' }) } catch (error) {
 *   if (McpConnectionError.isInstance(error)) console.error(error.server, error.cause);
 * }
 */
export class McpConnectionError extends OrgError {
  /** The label of the server (`options.name`, else the command or the URL's host). */
  readonly server: string;

  constructor(options: { server: string; reason: string; cause?: unknown }) {
    super('mcp_connection_failed', {
      message: `Could not connect to MCP server '${options.server}': ${options.reason}`,
      cause: options.cause,
      retryable: true,
    });
    this.server = options.server;
  }
}
brandError(McpConnectionError, 'McpConnectionError');

/**
 * The server went away (its process exited, the connection closed) while a call was pending, or before it was
 * made. The run goes on: the agent loop sees an error observation for this call.
 */
export class McpConnectionClosedError extends OrgError {
  readonly server: string;
  /** The tool being called, as registered here; `undefined` when no call was involved. */
  readonly toolName: string | undefined;

  constructor(options: { server: string; toolName?: string; cause?: unknown }) {
    super('mcp_connection_closed', {
      message:
        `The connection to MCP server '${options.server}' is closed` +
        `${options.toolName === undefined ? '' : `; the call to '${options.toolName}' did not complete`}.`,
      cause: options.cause,
    });
    this.server = options.server;
    this.toolName = options.toolName;
  }
}
brandError(McpConnectionClosedError, 'McpConnectionClosedError');

/**
 * The server ran the tool and reported a failure (`isError: true`). `text` is the server's error text, cut to
 * the response limit; the message a model reads carries it.
 */
export class McpToolError extends OrgError {
  readonly server: string;
  /** The tool as registered here (with its prefix). */
  readonly toolName: string;
  /** The tool's name on the server. */
  readonly mcpToolName: string;
  /** The text content of the error result, bounded. */
  readonly text: string;

  constructor(options: { server: string; toolName: string; mcpToolName: string; text: string }) {
    super('mcp_tool_error', {
      message: options.text === '' ? 'the MCP server reported an error without a message' : options.text,
    });
    this.server = options.server;
    this.toolName = options.toolName;
    this.mcpToolName = options.mcpToolName;
    this.text = options.text;
  }
}
brandError(McpToolError, 'McpToolError');

/**
 * The server answered a request with a JSON-RPC error (an unknown tool, invalid params, a request timeout, ...).
 * `mcpCode` is the JSON-RPC code; a timeout (`-32001`) is `retryable`.
 */
export class McpRequestError extends OrgError {
  readonly server: string;
  readonly toolName: string | undefined;
  /** The JSON-RPC error code, when the server sent one. */
  readonly mcpCode: number | undefined;

  constructor(options: {
    server: string;
    reason: string;
    toolName?: string;
    mcpCode?: number;
    cause?: unknown;
  }) {
    super('mcp_request_failed', {
      message:
        `MCP server '${options.server}' refused ` +
        `${options.toolName === undefined ? 'the request' : `the call to '${options.toolName}'`}: ${options.reason}`,
      cause: options.cause,
      retryable: options.mcpCode === -32001,
    });
    this.server = options.server;
    this.toolName = options.toolName;
    this.mcpCode = options.mcpCode;
  }
}
brandError(McpRequestError, 'McpRequestError');

/**
 * Something the server sent cannot be used: a result over the size limit, nested too deep, not JSON, or not the
 * shape MCP defines.
 */
export class McpInvalidResponseError extends OrgError {
  readonly server: string;
  readonly toolName: string | undefined;
  /** What was wrong, e.g. `structuredContent`, `content`, `tools`. */
  readonly field: string;

  constructor(options: {
    server: string;
    field: string;
    reason: string;
    toolName?: string;
    cause?: unknown;
  }) {
    super('mcp_invalid_response', {
      message:
        `MCP server '${options.server}' sent an unusable '${options.field}'` +
        `${options.toolName === undefined ? '' : ` for '${options.toolName}'`}: ${options.reason}`,
      cause: options.cause,
    });
    this.server = options.server;
    this.toolName = options.toolName;
    this.field = options.field;
  }
}
brandError(McpInvalidResponseError, 'McpInvalidResponseError');

/**
 * A tool the server listed that cannot become a tool here: a name we cannot register (spaces, quotes, over 256
 * characters, a clash), a schema over the limits or that no provider accepts. It is not registered; the connection
 * lists it in `rejectedTools` (and `strict: true` makes it fail `connectMcp`).
 */
export class McpInvalidToolError extends OrgError {
  readonly server: string;
  /** The tool's name on the server, cut to 120 characters. */
  readonly mcpToolName: string;

  constructor(options: { server: string; mcpToolName: unknown; reason: string; cause?: unknown }) {
    super('mcp_invalid_tool', {
      message: `MCP server '${options.server}' lists tool ${quoteServerText(options.mcpToolName)}, which cannot be used: ${options.reason}`,
      cause: options.cause,
    });
    this.server = options.server;
    const name =
      typeof options.mcpToolName === 'string' ? options.mcpToolName : String(typeof options.mcpToolName);
    this.mcpToolName = name.slice(0, QUOTED_LENGTH);
  }
}
brandError(McpInvalidToolError, 'McpInvalidToolError');

/** An option of `connectMcp`, `serveMcp` or `serveMcpHttp` that cannot be honoured. */
export class InvalidMcpOptionError extends OrgError {
  readonly option: string;

  constructor(options: { option: string; reason: string }) {
    super('invalid_mcp_option', { message: `Invalid option '${options.option}': ${options.reason}` });
    this.option = options.option;
  }
}
brandError(InvalidMcpOptionError, 'InvalidMcpOptionError');
