export type { McpApprovalPolicy, McpToolDescription } from './adapt-mcp-tool.js';
export {
  type ConnectMcpClientOptions,
  type ConnectMcpCommandOptions,
  type ConnectMcpCommonOptions,
  type ConnectMcpOptions,
  type ConnectMcpUrlOptions,
  connectMcp,
  type McpConnection,
  type McpToolsChange,
} from './connect-mcp.js';
export { createMcpServer, type ServeMcpOptions } from './create-mcp-server.js';
export {
  InvalidMcpOptionError,
  McpConnectionClosedError,
  McpConnectionError,
  type McpErrorCode,
  McpInvalidResponseError,
  McpInvalidToolError,
  McpRequestError,
  McpToolError,
} from './errors.js';
export { DEFAULT_MCP_LIMITS, type McpLimits } from './limits.js';
export { type McpToolAnnotations, type McpToolInfo, mcpToolInfo } from './mcp-tool-info.js';
export { type McpServing, serveMcp } from './serve-mcp.js';
export { type McpHttpServing, type ServeMcpHttpOptions, serveMcpHttp } from './serve-mcp-http.js';
