import { limitValueProblem } from '@org/core';
import { InvalidMcpOptionError } from './errors.js';

/** Bounds on what an MCP server may send; each is enforced with a typed error (see the README's limits). */
export interface McpLimits {
  /** Tools adapted from one server; the rest are rejected (`rejectedTools`). Default 1 000. */
  readonly maxTools?: number;
  /** Serialised size of one tool's input or output schema, in UTF-16 units. Default 256 KiB. */
  readonly maxSchemaSize?: number;
  /** Characters of a tool description kept; a longer one is cut (and says so). Default 8 192. */
  readonly maxDescriptionLength?: number;
  /** Size of one call result (text plus structured content), in UTF-16 units. Default 4 MiB. */
  readonly maxResultSize?: number;
  /** Nesting depth of schemas and structured content. Default 64. */
  readonly maxDepth?: number;
  /** Characters of a progress message kept. Default 1 000. */
  readonly maxProgressMessageLength?: number;
}

/** The defaults of `McpLimits`. */
export const DEFAULT_MCP_LIMITS: Readonly<Required<McpLimits>> = Object.freeze({
  maxTools: 1000,
  maxSchemaSize: 256 * 1024,
  maxDescriptionLength: 8192,
  maxResultSize: 4 * 1024 * 1024,
  maxDepth: 64,
  maxProgressMessageLength: 1000,
});

/**
 * Fills the defaults in; a limit that is not a whole number of at least 1 (`NaN`, negative, a fraction: the shared
 * rule `limitValueProblem` of `@org/core`) is an `InvalidMcpOptionError`, never "no limit".
 */
export function resolveMcpLimits(limits: McpLimits | undefined): Required<McpLimits> {
  const resolved = { ...DEFAULT_MCP_LIMITS };
  if (limits === undefined) return resolved;
  for (const key of Object.keys(DEFAULT_MCP_LIMITS) as (keyof McpLimits)[]) {
    const value = limits[key];
    if (value === undefined) continue;
    const problem = limitValueProblem(value);
    if (problem !== undefined) throw new InvalidMcpOptionError({ option: `limits.${key}`, reason: problem });
    resolved[key] = value;
  }
  return resolved;
}
