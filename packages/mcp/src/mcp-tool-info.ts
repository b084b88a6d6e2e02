import type { Tool } from '@org/tools';

/**
 * The behaviour hints an MCP server declares on a tool (`annotations`), booleans only. They are hints from the
 * server, not guarantees: a server you do not trust can claim anything.
 */
export interface McpToolAnnotations {
  readonly title?: string;
  /** The tool does not change its environment. MCP's default: false. */
  readonly readOnlyHint?: boolean;
  /** A change it makes may destroy data (only meaningful when not read-only). MCP's default: true. */
  readonly destructiveHint?: boolean;
  /** Calling it again with the same arguments has no further effect. MCP's default: false. */
  readonly idempotentHint?: boolean;
  /** It reaches outside the server (the web, other systems). MCP's default: true. */
  readonly openWorldHint?: boolean;
}

/** What `connectMcp` knows about a tool it adapted; read it with `mcpToolInfo(tool)`. */
export interface McpToolInfo {
  /** The label of the server it comes from. */
  readonly server: string;
  /** Its name on the server (the registered name may carry a prefix). */
  readonly mcpName: string;
  readonly title: string | undefined;
  readonly annotations: McpToolAnnotations;
  /**
   * Whether it may start while the model's answer is still streaming: true only when `connectMcp` was given
   * `eagerReadOnly: true` and the server says `readOnlyHint: true`. Tools have no `eager` flag yet; when they do,
   * `connectMcp` passes this value to `defineTool`.
   */
  readonly eager: boolean;
  /** Whether the connection's `needsApproval` policy made the tool need approval. */
  readonly needsApproval: boolean;
  /** The output schema the server declared, when it declared one (also the tool's `output`). */
  readonly hasOutputSchema: boolean;
}

const infos = new WeakMap<Tool, McpToolInfo>();

/** Records the info of an adapted tool. */
export function attachMcpToolInfo(tool: Tool, info: McpToolInfo): void {
  infos.set(tool, Object.freeze({ ...info, annotations: Object.freeze({ ...info.annotations }) }));
}

/**
 * The MCP origin and annotations of a tool made by `connectMcp`; `undefined` for any other tool.
 *
 * @example
 * const { tools } = await connectMcp({ command: 'mcp-server-filesystem', args: [directory] });
 * for (const tool of tools.list()) console.log(tool.name, mcpToolInfo(tool)?.annotations.readOnlyHint);
 */
export function mcpToolInfo(tool: Tool): McpToolInfo | undefined {
  return infos.get(tool);
}
