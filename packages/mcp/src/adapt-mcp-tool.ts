import type { JsonSchema } from '@org/core';
import { defineTool, type Tool, type ToolExecutionContext } from '@org/tools';
import { copyServerJson } from './copy-server-json.js';
import { McpInvalidToolError } from './errors.js';
import { attachMcpToolInfo, type McpToolAnnotations, type McpToolInfo } from './mcp-tool-info.js';

/** What a `needsApproval` policy function sees of a tool. */
export interface McpToolDescription {
  readonly server: string;
  readonly mcpName: string;
  readonly annotations: McpToolAnnotations;
}

/**
 * Which adapted tools need a human's approval before each call:
 * - `'destructive'` (default): those the server marks `destructiveHint: true` and not `readOnlyHint: true`;
 * - `'never'`, `'always'`;
 * - a function of the tool's description (a throw means approval is needed).
 */
export type McpApprovalPolicy = 'destructive' | 'never' | 'always' | ((tool: McpToolDescription) => boolean);

/** Everything an adapted tool needs from its connection. */
export interface AdaptSetup {
  readonly server: string;
  readonly prefix: string | undefined;
  readonly maxSchemaSize: number;
  readonly maxDescriptionLength: number;
  readonly maxDepth: number;
  readonly needsApproval: McpApprovalPolicy;
  readonly eagerReadOnly: boolean;
  readonly timeoutMs: number | undefined;
  readonly call: (
    target: { readonly toolName: string; readonly mcpName: string; readonly hasOutputSchema: boolean },
    args: Record<string, unknown>,
    context: ToolExecutionContext,
  ) => Promise<unknown>;
}

/** An adapted tool, or why a listed tool could not be adapted. */
export type AdaptResult =
  | { readonly ok: true; readonly tool: Tool; readonly mcpName: string; readonly fingerprint: string }
  | { readonly ok: false; readonly error: McpInvalidToolError };

const ANNOTATION_FLAGS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

function own(record: object, key: string): unknown {
  return Object.hasOwn(record, key) ? (record as Record<string, unknown>)[key] : undefined;
}

function readAnnotations(value: unknown): McpToolAnnotations {
  const annotations: { -readonly [K in keyof McpToolAnnotations]: McpToolAnnotations[K] } = {};
  if (typeof value !== 'object' || value === null) return annotations;
  const title = own(value, 'title');
  if (typeof title === 'string') annotations.title = title.slice(0, 200);
  for (const flag of ANNOTATION_FLAGS) {
    const flagValue = own(value, flag);
    if (typeof flagValue === 'boolean') annotations[flag] = flagValue;
  }
  return annotations;
}

function decideApproval(policy: McpApprovalPolicy, description: McpToolDescription): boolean {
  if (policy === 'never') return false;
  if (policy === 'always') return true;
  if (policy === 'destructive') {
    return description.annotations.destructiveHint === true && description.annotations.readOnlyHint !== true;
  }
  try {
    return Boolean(policy(description));
  } catch {
    return true;
  }
}

/**
 * Turns one entry of a server's `tools/list` into a tool: the name (with the connection's prefix) must be one the
 * registry accepts, the schemas are copied within the limits (prototype-safe) and compiled by `defineTool` like any
 * JSON Schema tool. Never throws: a tool that cannot be used is an `McpInvalidToolError`.
 */
export function adaptMcpTool(descriptor: unknown, setup: AdaptSetup): AdaptResult {
  const reject = (mcpName: unknown, reason: string, cause?: unknown): AdaptResult => ({
    ok: false,
    error: new McpInvalidToolError({
      server: setup.server,
      mcpToolName: mcpName,
      reason,
      ...(cause === undefined ? {} : { cause }),
    }),
  });
  if (typeof descriptor !== 'object' || descriptor === null || Array.isArray(descriptor)) {
    return reject('(not an object)', 'a tool entry must be an object');
  }
  const mcpName = own(descriptor, 'name');
  if (typeof mcpName !== 'string' || mcpName === '')
    return reject(mcpName, 'its name is not a non-empty string');
  const name = setup.prefix === undefined ? mcpName : `${setup.prefix}.${mcpName}`;

  const schemaLimits = { maxDepth: setup.maxDepth, maxSize: setup.maxSchemaSize };
  const input = copyServerJson(own(descriptor, 'inputSchema') ?? { type: 'object' }, schemaLimits);
  if (!input.ok) return reject(mcpName, `its input schema is ${input.problem.reason}`);
  if (typeof input.value !== 'object' || input.value === null || Array.isArray(input.value)) {
    return reject(mcpName, 'its input schema is not an object');
  }
  const rawOutput = own(descriptor, 'outputSchema');
  let output: JsonSchema | undefined;
  if (rawOutput !== undefined) {
    const copied = copyServerJson(rawOutput, schemaLimits);
    if (!copied.ok) return reject(mcpName, `its output schema is ${copied.problem.reason}`);
    if (typeof copied.value !== 'object' || copied.value === null || Array.isArray(copied.value)) {
      return reject(mcpName, 'its output schema is not an object');
    }
    output = copied.value as JsonSchema;
  }

  const annotations = readAnnotations(own(descriptor, 'annotations'));
  const rawTitle = own(descriptor, 'title');
  const title = typeof rawTitle === 'string' ? rawTitle.slice(0, 200) : annotations.title;
  const rawDescription = own(descriptor, 'description');
  let description =
    typeof rawDescription === 'string' && rawDescription.trim() !== ''
      ? rawDescription
      : `${title ?? mcpName} (a tool of MCP server '${setup.server}', which gave no description).`;
  if (description.length > setup.maxDescriptionLength) {
    description = `${description.slice(0, setup.maxDescriptionLength)}… [description cut at ${setup.maxDescriptionLength} characters]`;
  }
  const needsApproval = decideApproval(setup.needsApproval, { server: setup.server, mcpName, annotations });
  const target = { toolName: name, mcpName, hasOutputSchema: output !== undefined };

  let tool: Tool;
  try {
    tool = defineTool({
      name,
      description,
      input: input.value as JsonSchema,
      ...(output === undefined ? {} : { output }),
      ...(setup.timeoutMs === undefined ? {} : { timeoutMs: setup.timeoutMs }),
      needsApproval,
      execute: (args: Record<string, unknown>, context: ToolExecutionContext) =>
        setup.call(target, args, context),
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'its definition was refused';
    return reject(mcpName, reason.length > 500 ? `${reason.slice(0, 500)}…` : reason, error);
  }
  const info: McpToolInfo = {
    server: setup.server,
    mcpName,
    title,
    annotations,
    eager: setup.eagerReadOnly && annotations.readOnlyHint === true,
    needsApproval,
    hasOutputSchema: output !== undefined,
  };
  attachMcpToolInfo(tool, info);
  const fingerprint = JSON.stringify([
    name,
    description,
    input.value,
    output ?? null,
    annotations,
    title ?? null,
  ]);
  return { ok: true, tool, mcpName, fingerprint };
}
