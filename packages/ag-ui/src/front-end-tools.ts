import type { Tool as AgUiTool } from '@ag-ui/core';
import type { JsonSchema } from '@org/core';
import { defineTool, type Tool, type ToolRegistry } from '@org/tools';
import { AgUiRequestError } from './errors.js';

/**
 * What the loop records as the result of a front-end tool call in this run: the call ends the run (the tool is
 * `terminal`), and this placeholder never reaches the front end or a later model call, because the front end's own
 * result takes its place in the next run input.
 */
export const AWAITING_FRONT_END = Object.freeze({ status: 'awaiting_front_end' });

/**
 * The tools a front end declared in its run input, as tools the model may call. Each is `terminal`: a step that
 * calls one runs its other calls as usual, then the run ends with the call unanswered for the front end to run; its
 * result comes back as a tool message of the next run input. The arguments are validated against the declared
 * `parameters` like any tool's (a call with invalid arguments is answered with the error, and the model may retry).
 * Refused (`AgUiRequestError`, `problem: 'tools'`): a name the server's tools already use, a name declared twice, a
 * name or schema `defineTool` refuses.
 */
export function toFrontEndTools(declared: readonly AgUiTool[], serverTools: ToolRegistry): Tool[] {
  const seen = new Set<string>();
  return declared.map((tool, index) => {
    const field = `tools[${index}]`;
    if (serverTools.get(tool.name) !== undefined || seen.has(tool.name)) {
      throw new AgUiRequestError({
        problem: 'tools',
        message: `The front end declares the tool ${JSON.stringify(tool.name.slice(0, 100))}, ${
          seen.has(tool.name) ? 'twice' : 'whose name a server tool already has'
        }.`,
        field: `${field}.name`,
      });
    }
    seen.add(tool.name);
    const parameters: unknown = tool.parameters ?? { type: 'object', properties: {} };
    try {
      return defineTool({
        name: tool.name,
        description: tool.description,
        input: parameters as JsonSchema,
        terminal: true,
        execute: () => AWAITING_FRONT_END,
      });
    } catch (cause) {
      throw new AgUiRequestError({
        problem: 'tools',
        message: `The front-end tool ${JSON.stringify(tool.name.slice(0, 100))} cannot be offered: ${
          cause instanceof Error ? cause.message.slice(0, 300) : 'invalid definition'
        }`,
        field,
        cause,
      });
    }
  });
}
