import { closestMatch } from './closest-match.js';
import { InvalidToolChoiceError } from './errors.js';

/**
 * How a model may use the offered tools on one request:
 * - `auto`: the model decides (the default);
 * - `required`: the model must call at least one tool (Anthropic and Bedrock call this `any`);
 * - `none`: the model must not call a tool, although tools stay offered;
 * - `tool`: the model must call the named tool.
 */
export type ToolChoice =
  | { readonly type: 'auto' }
  | { readonly type: 'required' }
  | { readonly type: 'none' }
  | { readonly type: 'tool'; readonly toolName: string };

/** The four modes, as their names. */
export type ToolChoiceMode = ToolChoice['type'];

/** Everything `toToolChoice` accepts: a mode name (`'any'` is an alias of `'required'`) or a choice object. */
export type ToolChoiceInput = 'auto' | 'required' | 'any' | 'none' | ToolChoice;

const AUTO: ToolChoice = Object.freeze({ type: 'auto' });
const REQUIRED: ToolChoice = Object.freeze({ type: 'required' });
const NONE: ToolChoice = Object.freeze({ type: 'none' });

/** The accepted string forms, in the order error messages list them. */
export const TOOL_CHOICE_NAMES: readonly string[] = Object.freeze(['auto', 'required', 'any', 'none']);

function invalidToolName(toolName: unknown): InvalidToolChoiceError {
  return new InvalidToolChoiceError({
    message: `A named tool choice needs a non-empty tool name, got ${JSON.stringify(toolName) ?? String(toolName)}.`,
    value: toolName,
    accepted: [],
  });
}

/**
 * Constructors for `ToolChoice` values.
 *
 * @example
 * const request = { messages, tools, toolChoice: ToolChoice.tool('get_weather') };
 */
export const ToolChoice = Object.freeze({
  /** The model decides whether to call tools. */
  auto: (): ToolChoice => AUTO,
  /** The model must call at least one tool. */
  required: (): ToolChoice => REQUIRED,
  /** Alias of `required`, under the name Anthropic and Bedrock use. */
  any: (): ToolChoice => REQUIRED,
  /** The model must not call tools; the tools stay offered so a history that used them stays valid. */
  none: (): ToolChoice => NONE,
  /** The model must call the tool named `toolName`. */
  tool: (toolName: string): ToolChoice => {
    if (typeof toolName !== 'string' || toolName.trim() === '') throw invalidToolName(toolName);
    return Object.freeze({ type: 'tool', toolName });
  },
});

/**
 * Normalises user input (a mode name, possibly from configuration or an environment variable, or a choice object)
 * into a `ToolChoice`. Any string is accepted by the type, since configuration is only known at run time. `undefined` means `auto`. Mode names are matched after trimming and lower-casing, so
 * `OPENAI_TOOL_CHOICE=Required` works; anything else throws `InvalidToolChoiceError` listing what is accepted.
 *
 * @example
 * toToolChoice('any'); // { type: 'required' }
 * toToolChoice(process.env.OPENAI_TOOL_CHOICE); // auto when unset
 */
export function toToolChoice(input: ToolChoiceInput | (string & {}) | undefined | null): ToolChoice {
  if (input === undefined || input === null) return AUTO;
  if (typeof input === 'string') {
    switch (input.trim().toLowerCase()) {
      case 'auto':
        return AUTO;
      case 'required':
      case 'any':
        return REQUIRED;
      case 'none':
        return NONE;
      default:
        throw new InvalidToolChoiceError({
          message: `Unknown tool choice ${JSON.stringify(input)}. Accepted: 'auto', 'required', 'any' (alias of 'required'), 'none', or { type: 'tool', toolName }.`,
          value: input,
          accepted: TOOL_CHOICE_NAMES,
        });
    }
  }
  if (typeof input === 'object') {
    const type: unknown = (input as { type?: unknown }).type;
    if (type === 'auto') return AUTO;
    if (type === 'required' || type === 'any') return REQUIRED;
    if (type === 'none') return NONE;
    if (type === 'tool') return ToolChoice.tool((input as { toolName?: unknown }).toolName as string);
  }
  throw new InvalidToolChoiceError({
    message: `Invalid tool choice ${safeDescribe(input)}. Expected 'auto', 'required', 'any', 'none', or { type: 'tool', toolName }.`,
    value: input,
    accepted: TOOL_CHOICE_NAMES,
  });
}

function safeDescribe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/**
 * Checks that a choice can be honoured with the tools actually offered: a named tool must be one of them, and
 * `required` / `tool` need at least one tool. Throws `InvalidToolChoiceError` naming the tool, the offered tools
 * and the closest match.
 *
 * @example
 * assertToolChoiceOffered(ToolChoice.tool('get_wether'), ['get_weather', 'search']);
 * // throws: Tool choice names 'get_wether', which is not offered. Did you mean 'get_weather'? Offered: get_weather, search.
 */
export function assertToolChoiceOffered(choice: ToolChoice, offeredToolNames: Iterable<string>): void {
  const offered = [...offeredToolNames];
  if (choice.type === 'tool') {
    if (offered.includes(choice.toolName)) return;
    const suggestion = closestMatch(choice.toolName, offered);
    throw new InvalidToolChoiceError({
      message:
        `Tool choice names '${choice.toolName}', which is not offered.` +
        (suggestion ? ` Did you mean '${suggestion}'?` : '') +
        ` Offered: ${offered.length > 0 ? offered.join(', ') : '(no tools)'}.`,
      value: choice,
      accepted: offered,
      toolName: choice.toolName,
      ...(suggestion === undefined ? {} : { suggestion }),
    });
  }
  if (choice.type === 'required' && offered.length === 0) {
    throw new InvalidToolChoiceError({
      message: `Tool choice 'required' needs at least one tool, but no tools are offered.`,
      value: choice,
      accepted: offered,
    });
  }
}
