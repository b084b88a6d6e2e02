import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ToolRegistry } from '@org/tools';
import { createMcpServer, type ServeMcpOptions } from './create-mcp-server.js';

/** A running MCP server made by `serveMcp`. */
export interface McpServing {
  /** The SDK server, for what this package does not wrap. */
  readonly server: Server;
  /** Closes the server and its transport. */
  close(): Promise<void>;
}

/**
 * Serves a registry's tools over one MCP transport: `StdioServerTransport` (this process is the server a client
 * spawned), a `StreamableHTTPServerTransport` you route requests to, or an in-memory one. For an HTTP server with
 * sessions, see `serveMcpHttp`. Calls run as `createMcpServer` describes.
 *
 * @example
 * import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
 * import { createToolPlanTool } from '@org/plan-executor';
 *
 * const tools = new ToolRegistry([getWeather]);
 * const served = await serveMcp(new ToolRegistry([...tools.list(), createToolPlanTool({ tools })]), new StdioServerTransport());
 */
export async function serveMcp(
  registry: ToolRegistry,
  transport: Transport,
  options: ServeMcpOptions = {},
): Promise<McpServing> {
  const server = createMcpServer(registry, options);
  await server.connect(transport);
  return { server, close: () => server.close() };
}
