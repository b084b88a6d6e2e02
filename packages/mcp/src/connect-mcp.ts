import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { MAX_TIMER_DELAY_MS, timerDelayProblem } from '@org/core';
import { type Tool, type ToolExecutionContext, ToolRegistry } from '@org/tools';
import { type AdaptSetup, adaptMcpTool, type McpApprovalPolicy } from './adapt-mcp-tool.js';
import { outputOfCallResult } from './call-result.js';
import {
  InvalidMcpOptionError,
  McpConnectionClosedError,
  McpConnectionError,
  McpInvalidResponseError,
  McpInvalidToolError,
  McpRequestError,
} from './errors.js';
import { type McpLimits, resolveMcpLimits } from './limits.js';

/** Options every kind of `connectMcp` accepts. */
export interface ConnectMcpCommonOptions {
  /** A label for the server in errors and `mcpToolInfo`. Default: the prefix, the command's name, the name the server gives, or the command's name or the URL's host. */
  readonly name?: string;
  /**
   * Registers each tool as `<prefix>.<name>` (`fs.read_file`; providers are sent `fs_read_file`, mapped back by the
   * registry): two servers with a tool of the same name can share one registry. Letters, digits, `_` and `-`.
   */
  readonly prefix?: string;
  /**
   * The registry to add the tools to (with your own tools, the plan tool, ...). Default: a new one. Tools of a
   * changed list are added and removed here, in place, so a run using this registry sees the change at its next step.
   */
  readonly registry?: ToolRegistry;
  /** Which tools need approval; default `'destructive'` (see `McpApprovalPolicy`). */
  readonly needsApproval?: McpApprovalPolicy;
  /**
   * Mark tools the server calls read-only (`readOnlyHint: true`) as eager (`mcpToolInfo(tool).eager`). Default false:
   * the hint comes from the server, and starting a call early is a decision of the application.
   */
  readonly eagerReadOnly?: boolean;
  /**
   * Per-call deadline of every adapted tool (the call is cancelled on the server when it passes): ms above 0 and at
   * most `MAX_TIMER_DELAY_MS` of `@org/core`, or `Infinity` for none. Default: none.
   */
  readonly timeoutMs?: number;
  /**
   * The SDK's timeout of one MCP request (`initialize`, `tools/list`, `tools/call`), reset by progress. Same range as
   * `timeoutMs`; `Infinity` waits as long as a timer can (about 24.8 days). Default 60 000.
   */
  readonly requestTimeoutMs?: number;
  readonly limits?: McpLimits;
  /** Fail `connectMcp` when the server lists a tool that cannot be used. Default false: see `rejectedTools`. */
  readonly strict?: boolean;
  /** Called after each change of the tool list (`notifications/tools/list_changed`), also when the refresh failed. */
  readonly onToolsChanged?: (change: McpToolsChange) => void;
}

/** Connect to a server started as a child process, over stdio. */
export interface ConnectMcpCommandOptions extends ConnectMcpCommonOptions {
  readonly command: string;
  readonly args?: readonly string[];
  /** The child's environment. Default: the SDK's safe subset of this process's (`PATH`, `HOME`, ...). */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** The child's stderr: `'inherit'` (default, as the SDK does), `'ignore'`, or `'pipe'` (read `transport.stderr`). */
  readonly stderr?: 'inherit' | 'ignore' | 'pipe';
}

/** Connect to a server over Streamable HTTP. */
export interface ConnectMcpUrlOptions extends ConnectMcpCommonOptions {
  readonly url: string | URL;
  /** Passed to every request (headers such as `Authorization`). */
  readonly requestInit?: RequestInit;
}

/** Use an SDK `Client` that is already connected; `close()` then leaves it open (it is yours). */
export interface ConnectMcpClientOptions extends ConnectMcpCommonOptions {
  readonly client: Client;
}

/** Options of `connectMcp`: a command, a URL, or a connected client, plus the common options. */
export type ConnectMcpOptions = ConnectMcpCommandOptions | ConnectMcpUrlOptions | ConnectMcpClientOptions;

/** What changed when the server's tool list was read again. */
export interface McpToolsChange {
  /** Registered names of the tools added, removed and replaced (changed schema or description). */
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: readonly string[];
  /** Tools of the new list that cannot be used. */
  readonly rejected: readonly McpInvalidToolError[];
  /** Set when the list could not be read; the previous tools stay. */
  readonly error?: unknown;
}

/** A connection made by `connectMcp`. */
export interface McpConnection {
  /** The server's tools as ordinary tools (the `registry` option when given). */
  readonly tools: ToolRegistry;
  /** The server's label. */
  readonly server: string;
  /** The SDK client, for what this package does not wrap (resources, prompts). */
  readonly client: Client;
  /** The listed tools that could not be used, from the last read of the list. */
  readonly rejectedTools: readonly McpInvalidToolError[];
  /** True once the server went away or `close()` was called; calls then fail with `McpConnectionClosedError`. */
  readonly closed: boolean;
  /** Reads the tool list again (what a `list_changed` notification does). */
  refresh(): Promise<McpToolsChange>;
  /** Removes the tools from the registry and closes what `connectMcp` opened (the child process, the HTTP session). */
  close(): Promise<void>;
}

const PREFIX_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const MAXIMUM_LIST_PAGES = 100;
const CLIENT_INFO = { name: '@org/mcp', version: '0.0.0' };

function positiveMilliseconds(option: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const problem = timerDelayProblem(value, { infinity: true });
  if (problem !== undefined) throw new InvalidMcpOptionError({ option, reason: problem });
  return value;
}

function cut(text: string, maximum = 500): string {
  return text.length > maximum ? `${text.slice(0, maximum)}…` : text;
}

function labelOf(options: ConnectMcpOptions): string {
  if (options.name !== undefined) {
    if (typeof options.name !== 'string' || options.name === '') {
      throw new InvalidMcpOptionError({ option: 'name', reason: 'must be a non-empty string' });
    }
    return cut(options.name, 100);
  }
  if (options.prefix !== undefined) return options.prefix;
  if ('command' in options) return cut(options.command.split(/[\\/]/).pop() || options.command, 100);
  if ('url' in options) {
    try {
      return new URL(options.url).host;
    } catch {
      return 'mcp';
    }
  }
  return serverNameOf(options.client) ?? 'mcp';
}

/** The name the server gave in the handshake, cleaned (it is server-chosen text). */
function serverNameOf(client: Client): string | undefined {
  const version = client.getServerVersion();
  const name = typeof version?.name === 'string' ? version.name.replace(/[^\w.@/-]/g, '_') : '';
  return name === '' ? undefined : cut(name, 100);
}

async function openTransport(
  options: ConnectMcpCommandOptions | ConnectMcpUrlOptions,
  server: string,
): Promise<Transport> {
  if ('command' in options) {
    if (typeof options.command !== 'string' || options.command === '') {
      throw new InvalidMcpOptionError({ option: 'command', reason: 'must be a non-empty string' });
    }
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    return new StdioClientTransport({
      command: options.command,
      args: [...(options.args ?? [])],
      ...(options.env === undefined ? {} : { env: { ...options.env } }),
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      stderr: options.stderr ?? 'inherit',
    });
  }
  let url: URL;
  try {
    url = new URL(options.url);
  } catch (error) {
    throw new InvalidMcpOptionError({ option: 'url', reason: `not a URL (${String(error)})` });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidMcpOptionError({
      option: 'url',
      reason: `must be http: or https:, got ${url.protocol}`,
    });
  }
  void server;
  const { StreamableHTTPClientTransport } = await import(
    '@modelcontextprotocol/sdk/client/streamableHttp.js'
  );
  return new StreamableHTTPClientTransport(
    url,
    options.requestInit === undefined ? {} : { requestInit: options.requestInit },
  );
}

/**
 * Connects to an MCP server (a command over stdio, a Streamable HTTP URL, or a connected SDK `Client`) and turns
 * its tools into ordinary tools: the input schema as the server gives it (sent through the provider dialects like
 * any JSON Schema tool), the output schema when it declares one (so plan `$ref`s into results are checked at plan
 * time), `structuredContent` as the output (the text content otherwise), `isError` as an `McpToolError`, progress
 * notifications as `tool-call-progress` events, and an abort (or the tool's deadline) as an MCP cancellation. A
 * `notifications/tools/list_changed` updates the registry in place; a server that goes away fails its pending and
 * later calls with `McpConnectionClosedError`, as error observations: the run goes on.
 *
 * Everything the server sends is bounded (`limits`) and copied prototype-safe; listed tools that cannot be used
 * are in `rejectedTools` (or fail the connection with `strict: true`).
 *
 * @example
 * import { connectMcp } from '@org/mcp';
 * import { runAgent, createFunctionCallingPlanner } from '@org/planner';
 *
 * const files = await connectMcp({ command: 'mcp-server-filesystem', args: ['/tmp/notes'], prefix: 'fs' });
 * try {
 *   const result = await runAgent({ model, tools: files.tools, planner: createFunctionCallingPlanner(), task });
 * } finally {
 *   await files.close();
 * }
 */
export async function connectMcp(options: ConnectMcpOptions): Promise<McpConnection> {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidMcpOptionError({
      option: 'options',
      reason: 'must be an object with command, url or client',
    });
  }
  const kinds = ['command', 'url', 'client'].filter((key) => Object.hasOwn(options, key));
  if (kinds.length !== 1) {
    throw new InvalidMcpOptionError({
      option: 'options',
      reason: 'give exactly one of command, url or client',
    });
  }
  if (
    options.prefix !== undefined &&
    (typeof options.prefix !== 'string' || !PREFIX_PATTERN.test(options.prefix))
  ) {
    throw new InvalidMcpOptionError({
      option: 'prefix',
      reason: 'letters, digits, "_" and "-", 1 to 64 characters',
    });
  }
  if (options.registry !== undefined && !(options.registry instanceof ToolRegistry)) {
    throw new InvalidMcpOptionError({ option: 'registry', reason: 'must be a ToolRegistry' });
  }
  const policy = options.needsApproval ?? 'destructive';
  if (typeof policy !== 'function' && policy !== 'destructive' && policy !== 'never' && policy !== 'always') {
    throw new InvalidMcpOptionError({
      option: 'needsApproval',
      reason: "'destructive', 'never', 'always' or a function",
    });
  }
  const limits = resolveMcpLimits(options.limits);
  const timeoutMs = positiveMilliseconds('timeoutMs', options.timeoutMs);
  // The SDK always arms a timer for a request: "none" (Infinity) is the longest one a timer can wait.
  const requestTimeoutMs = Math.min(
    positiveMilliseconds('requestTimeoutMs', options.requestTimeoutMs) ?? 60_000,
    MAX_TIMER_DELAY_MS,
  );
  let server = labelOf(options);
  const types = await import('@modelcontextprotocol/sdk/types.js');

  let client: Client;
  let ownsClient: boolean;
  if ('client' in options) {
    client = options.client;
    ownsClient = false;
    if (typeof client !== 'object' || client === null || typeof client.request !== 'function') {
      throw new InvalidMcpOptionError({ option: 'client', reason: 'must be an SDK Client' });
    }
    if (client.transport === undefined) {
      throw new InvalidMcpOptionError({
        option: 'client',
        reason: 'is not connected; call client.connect(transport) first',
      });
    }
  } else {
    const transport = await openTransport(options, server);
    const { Client: ClientClass } = await import('@modelcontextprotocol/sdk/client/index.js');
    client = new ClientClass(CLIENT_INFO, { capabilities: {} });
    ownsClient = true;
    try {
      await client.connect(transport, { timeout: requestTimeoutMs });
    } catch (error) {
      await client.close().catch(() => undefined);
      await transport.close().catch(() => undefined);
      throw new McpConnectionError({
        server,
        reason: cut(error instanceof Error ? error.message : String(error)),
        cause: error,
      });
    }
    if (options.name === undefined && options.prefix === undefined) server = serverNameOf(client) ?? server;
  }

  const registry = options.registry ?? new ToolRegistry();
  /** The tools this connection registered, by registered name, with what they were made from. */
  const registered = new Map<string, { readonly tool: Tool; readonly fingerprint: string }>();
  let rejectedTools: readonly McpInvalidToolError[] = [];
  let closed = false;
  let refreshing: Promise<McpToolsChange> | undefined;

  const previousOnClose = client.onclose;
  client.onclose = (): void => {
    closed = true;
    previousOnClose?.();
  };

  const toCallError = (error: unknown, toolName: string | undefined): unknown => {
    if (closed)
      return new McpConnectionClosedError({
        server,
        ...(toolName === undefined ? {} : { toolName }),
        cause: error,
      });
    if (error instanceof types.McpError) {
      if (error.code === types.ErrorCode.ConnectionClosed) {
        return new McpConnectionClosedError({
          server,
          ...(toolName === undefined ? {} : { toolName }),
          cause: error,
        });
      }
      return new McpRequestError({
        server,
        reason: cut(error.message),
        mcpCode: error.code,
        ...(toolName === undefined ? {} : { toolName }),
        cause: error,
      });
    }
    if (error instanceof Error && /not connected/i.test(error.message)) {
      return new McpConnectionClosedError({
        server,
        ...(toolName === undefined ? {} : { toolName }),
        cause: error,
      });
    }
    return new McpRequestError({
      server,
      reason: cut(error instanceof Error ? error.message : String(error)),
      ...(toolName === undefined ? {} : { toolName }),
      cause: error,
    });
  };

  const call: AdaptSetup['call'] = async (target, args, context: ToolExecutionContext) => {
    if (closed) throw new McpConnectionClosedError({ server, toolName: target.toolName });
    let progressCount = 0;
    let result: unknown;
    try {
      result = await client.request(
        { method: 'tools/call', params: { name: target.mcpName, arguments: args } },
        types.ResultSchema,
        {
          signal: context.signal,
          timeout: requestTimeoutMs,
          resetTimeoutOnProgress: true,
          onprogress: (progress) => {
            progressCount++;
            const report: { progress: number; total?: number; message?: string } = {
              progress: Number.isFinite(progress.progress) ? progress.progress : progressCount,
            };
            if (typeof progress.total === 'number' && Number.isFinite(progress.total))
              report.total = progress.total;
            if (typeof progress.message === 'string')
              report.message = cut(progress.message, limits.maxProgressMessageLength);
            context.reportProgress(report);
          },
        },
      );
    } catch (error) {
      throw toCallError(error, target.toolName);
    }
    // A list_changed notification sent before this result is being applied: the next step sees the new list.
    await Promise.resolve();
    if (refreshing !== undefined) await refreshing.catch(() => undefined);
    return outputOfCallResult(result, {
      server,
      toolName: target.toolName,
      mcpToolName: target.mcpName,
      hasOutputSchema: target.hasOutputSchema,
      maxResultSize: limits.maxResultSize,
      maxDepth: limits.maxDepth,
    });
  };

  const setup: AdaptSetup = {
    server,
    prefix: options.prefix,
    maxSchemaSize: limits.maxSchemaSize,
    maxDescriptionLength: limits.maxDescriptionLength,
    maxDepth: limits.maxDepth,
    needsApproval: policy,
    eagerReadOnly: options.eagerReadOnly === true,
    timeoutMs,
    call,
  };

  /** Reads every page of `tools/list`, bounded in pages and tools. */
  const listTools = async (): Promise<{ entries: unknown[]; overflow: number }> => {
    const entries: unknown[] = [];
    let overflow = 0;
    let cursor: string | undefined;
    const seen = new Set<string>();
    for (let page = 0; page < MAXIMUM_LIST_PAGES; page++) {
      let result: unknown;
      try {
        result = await client.request(
          { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
          types.ResultSchema,
          { timeout: requestTimeoutMs },
        );
      } catch (error) {
        throw toCallError(error, undefined);
      }
      const tools = Object.hasOwn(result as object, 'tools')
        ? (result as { tools: unknown }).tools
        : undefined;
      if (!Array.isArray(tools)) {
        throw new McpInvalidResponseError({
          server,
          field: 'tools',
          reason: 'the tools/list result has no tools array',
        });
      }
      for (const entry of tools) {
        if (entries.length < limits.maxTools) entries.push(entry);
        else overflow++;
      }
      const next = Object.hasOwn(result as object, 'nextCursor')
        ? (result as { nextCursor: unknown }).nextCursor
        : undefined;
      if (typeof next !== 'string' || next === '' || seen.has(next) || entries.length >= limits.maxTools) {
        if (typeof next === 'string' && next !== '' && !seen.has(next)) overflow++;
        return { entries, overflow };
      }
      seen.add(next);
      cursor = next;
    }
    return { entries, overflow: overflow + 1 };
  };

  const applyList = async (): Promise<McpToolsChange> => {
    const { entries, overflow } = await listTools();
    const rejected: McpInvalidToolError[] = [];
    const next = new Map<string, { tool: Tool; fingerprint: string }>();
    for (const entry of entries) {
      const adapted = adaptMcpTool(entry, setup);
      if (!adapted.ok) {
        rejected.push(adapted.error);
        continue;
      }
      if (next.has(adapted.tool.name)) {
        rejected.push(
          new McpInvalidToolError({
            server,
            mcpToolName: adapted.mcpName,
            reason: 'the server lists two tools with this name',
          }),
        );
        continue;
      }
      next.set(adapted.tool.name, { tool: adapted.tool, fingerprint: adapted.fingerprint });
    }
    if (overflow > 0) {
      rejected.push(
        new McpInvalidToolError({
          server,
          mcpToolName: `(${overflow} more)`,
          reason: `the server lists more than ${limits.maxTools} tools (limits.maxTools); the rest were not adapted`,
        }),
      );
    }
    const added: string[] = [];
    const removed: string[] = [];
    const changed: string[] = [];
    for (const [name, current] of registered) {
      const replacement = next.get(name);
      if (replacement !== undefined && replacement.fingerprint === current.fingerprint) {
        next.delete(name);
        continue;
      }
      if (registry.get(name) === current.tool) registry.unregister(name);
      registered.delete(name);
      (replacement === undefined ? removed : changed).push(name);
    }
    for (const [name, candidate] of next) {
      try {
        registry.register(candidate.tool);
      } catch (error) {
        const mcpName = options.prefix === undefined ? name : name.slice(options.prefix.length + 1);
        rejected.push(
          new McpInvalidToolError({
            server,
            mcpToolName: mcpName,
            reason: cut(error instanceof Error ? error.message : String(error)),
            cause: error,
          }),
        );
        continue;
      }
      registered.set(name, candidate);
      if (!changed.includes(name)) added.push(name);
    }
    rejectedTools = Object.freeze(rejected);
    return { added, removed, changed, rejected };
  };

  const refresh = (): Promise<McpToolsChange> => {
    const previous = refreshing ?? Promise.resolve(undefined);
    const current = previous
      .catch(() => undefined)
      .then(applyList)
      .catch(
        (error: unknown): McpToolsChange => ({ added: [], removed: [], changed: [], rejected: [], error }),
      )
      .then((change) => {
        try {
          options.onToolsChanged?.(change);
        } catch {
          // The listener's failure is its own.
        }
        return change;
      });
    refreshing = current;
    void current.finally(() => {
      if (refreshing === current) refreshing = undefined;
    });
    return current;
  };

  const removeTools = (): void => {
    for (const [name, current] of registered)
      if (registry.get(name) === current.tool) registry.unregister(name);
    registered.clear();
  };

  try {
    await applyList();
    if (options.strict === true && rejectedTools.length > 0) throw rejectedTools[0];
  } catch (error) {
    removeTools();
    (client as { onclose?: (() => void) | undefined }).onclose = previousOnClose;
    if (ownsClient) await client.close().catch(() => undefined);
    throw error;
  }
  client.setNotificationHandler(types.ToolListChangedNotificationSchema, () => {
    void refresh();
  });

  return {
    tools: registry,
    server,
    client,
    get rejectedTools(): readonly McpInvalidToolError[] {
      return rejectedTools;
    },
    get closed(): boolean {
      return closed;
    },
    refresh: async (): Promise<McpToolsChange> => {
      const change = await refresh();
      if (change.error !== undefined) throw change.error;
      return change;
    },
    close: async (): Promise<void> => {
      if (closed && registered.size === 0) return;
      removeTools();
      client.removeNotificationHandler('notifications/tools/list_changed');
      if (!ownsClient) {
        closed = true;
        (client as { onclose?: (() => void) | undefined }).onclose = previousOnClose;
        return;
      }
      closed = true;
      const transport = client.transport as { terminateSession?: () => Promise<void> } | undefined;
      if (typeof transport?.terminateSession === 'function')
        await transport.terminateSession().catch(() => undefined);
      await client.close().catch(() => undefined);
    },
  };
}
