import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type ListToolsResult,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import {
  type Action,
  type JsonSchema,
  type RunEvent,
  type RunEventListeners,
  runEventListenersProblem,
  timerDelayProblem,
  toRunEventListener,
} from '@org/core';
import {
  type ArgumentLimits,
  executeAction,
  formatObservationForModel,
  type Tool,
  type ToolHooks,
  type ToolRegistry,
  toJsonSchema,
  toJsonValue,
  toolCallToAction,
  toolNeedsApproval,
} from '@org/tools';
import { InvalidMcpOptionError } from './errors.js';
import { type McpToolAnnotations, mcpToolInfo } from './mcp-tool-info.js';

/** Options of `createMcpServer`, `serveMcp` and `serveMcpHttp`. */
export interface ServeMcpOptions {
  /** The server's name and version in the MCP handshake. Default `@org/mcp` / `0.0.0`. */
  readonly serverInfo?: { readonly name: string; readonly version: string };
  /** Instructions sent to clients in the handshake. */
  readonly instructions?: string;
  /** Hooks around every call, as in `executeAction`. */
  readonly hooks?: ToolHooks;
  /** Values of hidden parameters (`inject`), as in `executeAction`; never visible to the MCP client. */
  readonly injected?: Readonly<Record<string, unknown>>;
  /**
   * A deadline for every call (the shorter of it and the tool's own wins): ms above 0 and at most
   * `MAX_TIMER_DELAY_MS` of `@org/core`, or `Infinity` for none; anything else is an `InvalidMcpOptionError`.
   */
  readonly timeoutMs?: number;
  /** Budget of the text result, as in the agent loop; default 50 000 bytes. */
  readonly outputBudgetBytes?: number;
  /** Limits on the client's arguments, as for a model's (`toolCallToAction`). */
  readonly argumentLimits?: ArgumentLimits;
  /**
   * Decides a call of a tool that needs approval (`needsApproval`). Default: none, and such calls are refused
   * (`isError`, `approval_required`): there is no human on an MCP call unless you bring one.
   */
  readonly approve?: (action: Action, tool: Tool) => boolean | PromiseLike<boolean>;
  /** Annotations to announce per tool. Default: those a tool adapted by `connectMcp` came with, else none. */
  readonly annotations?: (tool: Tool) => McpToolAnnotations | undefined;
  /**
   * Receives the events of every call: one listener or several (called in order, each isolated from the others'
   * throws). Anything else is an `InvalidMcpOptionError` (`option: 'onEvent'`) when the server is made.
   */
  readonly onEvent?: RunEventListeners;
}

const DEFAULT_SERVER_INFO = { name: '@org/mcp', version: '0.0.0' };
const PROGRESS_MESSAGE_LENGTH = 500;
const outputSchemas = new WeakMap<Tool, JsonSchema | null>();

/**
 * The JSON Schema dialect a schema written as JSON Schema declares at its root (`$schema`), or `undefined` (a zod
 * schema, or none declared). Tool schemas are normalised for providers, which refuse or ignore `$schema`, so it is
 * read from the tool's own schema; MCP clients read it to pick the dialect (MCP defaults to 2020-12 without it).
 */
function declaredDialect(schema: unknown): { readonly $schema: string } | undefined {
  if (typeof schema !== 'object' || schema === null || '_zod' in schema || !Object.hasOwn(schema, '$schema'))
    return undefined;
  const dialect = (schema as { readonly $schema?: unknown }).$schema;
  return typeof dialect === 'string' ? { $schema: dialect } : undefined;
}

/** The tool's output as an MCP `outputSchema` (an object schema, its declared dialect kept), or `undefined`. */
function outputSchemaOf(tool: Tool): JsonSchema | undefined {
  let schema = outputSchemas.get(tool);
  if (schema === undefined) {
    try {
      const converted = tool.output === undefined ? null : toJsonSchema(tool.output);
      schema =
        converted !== null && converted.type === 'object'
          ? { ...declaredDialect(tool.output), ...converted }
          : null;
    } catch {
      schema = null;
    }
    outputSchemas.set(tool, schema);
  }
  return schema ?? undefined;
}

/** A one-line progress message for any progress value (a string, `{ message }`, a plan's run event). */
function progressMessage(progress: unknown): string | undefined {
  let text: string | undefined;
  if (typeof progress === 'string') text = progress;
  else if (typeof progress === 'object' && progress !== null) {
    const record = progress as Record<string, unknown>;
    if (typeof record.message === 'string') text = record.message;
    else if (typeof record.type === 'string') {
      const step = typeof record.stepId === 'string' ? ` ${record.stepId}` : '';
      const tool = typeof record.toolName === 'string' ? ` (${record.toolName})` : '';
      text = `${record.type}${step}${tool}`;
    } else {
      try {
        text = JSON.stringify(toJsonValue(progress));
      } catch {
        text = undefined;
      }
    }
  }
  if (text === undefined) return undefined;
  return text.length > PROGRESS_MESSAGE_LENGTH ? `${text.slice(0, PROGRESS_MESSAGE_LENGTH)}…` : text;
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * An MCP server (the SDK's low-level `Server`, not yet connected) answering `tools/list` with the registry's tools
 * (provider names, JSON Schema inputs, object output schemas) and `tools/call` the way the agent loop runs a call:
 * `toolCallToAction` (parse, repair, coerce, validate, argument limits), then `executeAction` (hooks, injected values,
 * deadlines, output budget). A failed call is an `isError` result with the message a model would read; an unknown
 * tool is a JSON-RPC error (`-32602`), as MCP specifies. Put `execute_tool_plan` in the registry to serve plans.
 *
 * @example
 * const server = createMcpServer(registry, { timeoutMs: 30_000 });
 * await server.connect(new StdioServerTransport());
 */
export function createMcpServer(registry: ToolRegistry, options: ServeMcpOptions = {}): Server {
  if (options.timeoutMs !== undefined) {
    // Checked here, with the shared rule of `@org/core`, rather than at the first call a client makes.
    const problem = timerDelayProblem(options.timeoutMs, { infinity: true });
    if (problem !== undefined) throw new InvalidMcpOptionError({ option: 'timeoutMs', reason: problem });
  }
  const listenersProblem = runEventListenersProblem(options.onEvent);
  if (listenersProblem !== undefined)
    throw new InvalidMcpOptionError({ option: 'onEvent', reason: listenersProblem });
  const listener = toRunEventListener(options.onEvent);
  const server = new Server(options.serverInfo ?? DEFAULT_SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
  });
  const annotationsOf = options.annotations ?? ((tool: Tool) => mcpToolInfo(tool)?.annotations);

  server.setRequestHandler(ListToolsRequestSchema, (): ListToolsResult => {
    const tools = registry.list();
    const specs = registry.specs({ target: 'json-schema' });
    return {
      tools: tools.map((tool, index) => {
        const spec = specs[index];
        const inputSchema = (spec?.inputSchema ?? {
          type: 'object',
        }) as ListToolsResult['tools'][number]['inputSchema'];
        const entry: ListToolsResult['tools'][number] = {
          name: spec?.name ?? tool.name,
          description: tool.description,
          inputSchema: { ...declaredDialect(tool.input), ...inputSchema, type: 'object' },
        };
        const outputSchema = outputSchemaOf(tool);
        if (outputSchema !== undefined) {
          entry.outputSchema = outputSchema as ListToolsResult['tools'][number]['inputSchema'];
        }
        const annotations = annotationsOf(tool);
        if (annotations !== undefined && Object.keys(annotations).length > 0)
          entry.annotations = { ...annotations };
        return entry;
      }),
    };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const name = request.params.name;
    const tool = registry.resolve(name);
    if (tool === undefined) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${JSON.stringify(name.slice(0, 120))}`);
    }
    const id = `mcp-${String(extra.requestId)}`;
    let argumentsText: string;
    try {
      argumentsText = JSON.stringify(request.params.arguments ?? {});
    } catch {
      return errorResult('Error (malformed_tool_arguments): the arguments cannot be read as JSON.');
    }
    const converted = toolCallToAction(
      registry,
      { id, toolName: name, arguments: argumentsText },
      {
        ...(options.argumentLimits === undefined ? {} : { limits: options.argumentLimits }),
      },
    );
    if (!converted.ok) return errorResult(`Error (${converted.error.code}): ${converted.error.message}`);
    const action = converted.action;

    let requireApproval = true;
    if (
      options.approve !== undefined &&
      tool.needsApproval !== false &&
      (await toolNeedsApproval(tool, action.args))
    ) {
      try {
        requireApproval = !(await options.approve(action, tool));
      } catch {
        requireApproval = true;
      }
    }

    const progressToken = request.params._meta?.progressToken;
    let progressCount = 0;
    const onEvent = (event: RunEvent): void => {
      listener?.(event);
      if (progressToken === undefined || event.type !== 'tool-call-progress' || event.actionId !== action.id)
        return;
      progressCount++;
      const message = progressMessage(event.progress);
      void extra
        .sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress: progressCount, ...(message === undefined ? {} : { message }) },
        })
        .catch(() => undefined);
    };
    const observation = await executeAction(registry, action, {
      signal: extra.signal,
      onEvent,
      requireApproval,
      ...(options.hooks === undefined ? {} : { hooks: options.hooks }),
      ...(options.injected === undefined ? {} : { injected: options.injected }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.outputBudgetBytes === undefined ? {} : { outputBudgetBytes: options.outputBudgetBytes }),
    });
    const text = formatObservationForModel(observation);
    if (observation.status !== 'success') return errorResult(text);
    const result: CallToolResult = { content: [{ type: 'text', text }] };
    if (outputSchemaOf(tool) !== undefined) {
      const structured = toJsonValue(observation.rawOutput);
      if (typeof structured === 'object' && structured !== null && !Array.isArray(structured)) {
        result.structuredContent = structured;
      }
    }
    return result;
  });
  return server;
}
