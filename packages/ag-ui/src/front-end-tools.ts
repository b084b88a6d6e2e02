import type { Tool as AgUiTool } from '@ag-ui/core';
import type { ContentPart, JsonSchema, MessageContent } from '@org/core';
import {
  DEFAULT_OUTPUT_BUDGET_BYTES,
  defineTool,
  formatObservationForModel,
  type Tool,
  type ToolRegistry,
} from '@org/tools';
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
    // No schema, or an empty one (`{}`, which some clients send for a tool without arguments): arguments are always
    // an object, so it is offered as an object with no declared properties.
    const parameters: unknown = isEmptySchema(tool.parameters)
      ? { type: 'object', properties: {} }
      : tool.parameters;
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

/** `undefined`, `null` or `{}`: a declaration that describes no arguments. */
function isEmptySchema(parameters: unknown): boolean {
  if (parameters === undefined || parameters === null) return true;
  return typeof parameters === 'object' && !Array.isArray(parameters) && Object.keys(parameters).length === 0;
}

/** The code of a front-end tool's failure (a tool message with `error`), as the model reads it. */
export const FRONT_END_TOOL_FAILED = 'front_end_tool_failed';

/** A front end's answer to one of its tools' calls, as the run input's tool message carries it. */
export interface FrontEndResult {
  readonly toolCallId: string;
  readonly toolName: string;
  /** The message's content, already in the loop's form. */
  readonly content: MessageContent;
  /** The message's `error`: the tool failed in the front end. */
  readonly error: string | undefined;
}

/**
 * A front-end tool's result as the model reads it, made the way a server tool's result is (`formatObservationForModel`
 * of `@org/tools`): its text cut to the output budget with a marker, registered secrets redacted; a failure as
 * `Error (front_end_tool_failed): <the front end's error>`, bounded and redacted the same way. Images and documents
 * in the content are kept (the run input's size bounds them); each text part is cut to the budget.
 */
export function frontEndResultContent(
  result: FrontEndResult,
  outputBudgetBytes: number | undefined,
): { content: MessageContent; isError: boolean } {
  const observation = { actionId: result.toolCallId, toolName: result.toolName, durationMs: 0 };
  // Always given: without a budget, `formatObservationForModel` bounds an output by memory only (16 MiB), taking it
  // to come from `executeAction`, which cut it already.
  const options = { budgetBytes: outputBudgetBytes ?? DEFAULT_OUTPUT_BUDGET_BYTES };
  if (result.error !== undefined) {
    const content = formatObservationForModel(
      { ...observation, status: 'error', error: { code: FRONT_END_TOOL_FAILED, message: result.error } },
      options,
    );
    return { content, isError: true };
  }
  const bounded = (text: string): string =>
    formatObservationForModel({ ...observation, status: 'success', output: text }, options);
  if (typeof result.content === 'string') return { content: bounded(result.content), isError: false };
  return {
    content: result.content.map(
      (part): ContentPart => (part.type === 'text' ? { type: 'text', text: bounded(part.text) } : part),
    ),
    isError: false,
  };
}
