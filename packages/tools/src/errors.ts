import { brandError, OrgError } from '@org/core';

/** How many tools or issues an error message lists before summarising the rest. */
const MAXIMUM_LISTED = 30;

/** Stable codes of the errors defined in `@org/tools`. */
export type ToolErrorCode =
  | 'invalid_tool_name'
  | 'invalid_tool_definition'
  | 'invalid_tool_schema'
  | 'unsafe_pattern'
  | 'duplicate_tool'
  | 'unknown_tool'
  | 'malformed_tool_arguments'
  | 'invalid_tool_arguments'
  | 'invalid_tool_description'
  | 'invalid_artifact'
  | 'invalid_tool_option';

/**
 * A tool name that no provider accepts and that cannot be mapped to one: empty, too long, or with characters
 * outside `[A-Za-z0-9_.:/-]`. Names with dots, colons or slashes are accepted and mapped (see `ToolRegistry`).
 *
 * @example
 * try { defineTool({ name: 'get weather', ... }) } catch (error) {
 *   if (InvalidToolNameError.isInstance(error)) console.error(error.toolName);
 * }
 */
export class InvalidToolNameError extends OrgError {
  readonly toolName: string;

  constructor(options: { toolName: string; reason: string }) {
    super('invalid_tool_name', {
      message: `Invalid tool name ${JSON.stringify(options.toolName)}: ${options.reason}`,
    });
    this.toolName = options.toolName;
  }
}
brandError(InvalidToolNameError, 'InvalidToolNameError');

/** A tool definition with a missing or malformed field (empty description, a negative timeout, ...). */
export class InvalidToolDefinitionError extends OrgError {
  readonly toolName: string;
  /** The field at fault, e.g. `description`, `timeoutMs`, `inject`. */
  readonly field: string;

  constructor(options: { toolName: string; field: string; reason: string }) {
    super('invalid_tool_definition', {
      message: `Tool '${options.toolName}': invalid '${options.field}': ${options.reason}`,
    });
    this.toolName = options.toolName;
    this.field = options.field;
  }
}
brandError(InvalidToolDefinitionError, 'InvalidToolDefinitionError');

/** A schema that cannot be used: not an object at its root, an unknown type name, or not representable for a target. */
export class InvalidToolSchemaError extends OrgError {
  readonly toolName: string | undefined;
  /** JSON-pointer-like path of the offending schema node, `''` for the root. */
  readonly path: string;
  /** The target that cannot accept it, when the problem is target-specific. */
  readonly target: string | undefined;

  constructor(options: {
    message: string;
    path: string;
    toolName?: string;
    target?: string;
    cause?: unknown;
  }) {
    super('invalid_tool_schema', {
      message:
        `${options.toolName === undefined ? 'Schema' : `Tool '${options.toolName}': schema`}` +
        `${options.path === '' ? '' : ` at '${options.path}'`}` +
        `${options.target === undefined ? '' : ` (target '${options.target}')`}: ${options.message}`,
      cause: options.cause,
    });
    this.toolName = options.toolName;
    this.path = options.path;
    this.target = options.target;
  }
}
brandError(InvalidToolSchemaError, 'InvalidToolSchemaError');

/** A regex `pattern` that may backtrack catastrophically (nested or overlapping quantifiers), refused at definition. */
export class UnsafePatternError extends OrgError {
  readonly pattern: string;
  readonly path: string;
  readonly toolName: string | undefined;

  constructor(options: { pattern: string; path: string; reason: string; toolName?: string }) {
    super('unsafe_pattern', {
      message:
        `${options.toolName === undefined ? '' : `Tool '${options.toolName}': `}pattern ${JSON.stringify(options.pattern)}` +
        `${options.path === '' ? '' : ` at '${options.path}'`} was refused: ${options.reason}. ` +
        'Rewrite it without nested or overlapping quantifiers.',
    });
    this.pattern = options.pattern;
    this.path = options.path;
    this.toolName = options.toolName;
  }
}
brandError(UnsafePatternError, 'UnsafePatternError');

/** Two tools with the same name in one registry. */
export class DuplicateToolError extends OrgError {
  readonly toolName: string;

  constructor(options: { toolName: string }) {
    super('duplicate_tool', {
      message: `A tool named '${options.toolName}' is already registered; tool names must be unique.`,
    });
    this.toolName = options.toolName;
  }
}
brandError(DuplicateToolError, 'DuplicateToolError');

/** A call to a tool that is not registered. Lists the available tools and the closest name. */
export class UnknownToolError extends OrgError {
  readonly toolName: string;
  readonly toolCallId: string | undefined;
  readonly available: readonly string[];
  readonly suggestion: string | undefined;

  constructor(options: {
    toolName: string;
    available: readonly string[];
    suggestion?: string;
    toolCallId?: string;
  }) {
    const shown = options.available.slice(0, MAXIMUM_LISTED).map((name) => `'${name}'`);
    const more = options.available.length - shown.length;
    const list = shown.length === 0 ? 'none' : `${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
    super('unknown_tool', {
      message:
        `There is no tool named ${JSON.stringify(options.toolName)}.` +
        `${options.suggestion === undefined ? '' : ` Did you mean '${options.suggestion}'?`}` +
        ` Available tools: ${list}.`,
    });
    this.toolName = options.toolName;
    this.toolCallId = options.toolCallId;
    this.available = options.available;
    this.suggestion = options.suggestion;
  }
}
brandError(UnknownToolError, 'UnknownToolError');

/** Argument text that is not JSON, even after the safe repairs, or whose top level is not an object. */
export class MalformedToolArgumentsError extends OrgError {
  /** Character offset where parsing failed, when known. */
  readonly position: number | undefined;
  /** The field at fault (`ratio`, `items[2].value`) when the failure is about one value, e.g. a number out of range. */
  readonly path: string | undefined;
  readonly toolName: string | undefined;
  readonly toolCallId: string | undefined;

  constructor(options: {
    reason: string;
    position?: number;
    path?: string;
    toolName?: string;
    toolCallId?: string;
  }) {
    super('malformed_tool_arguments', {
      message:
        `The arguments${options.toolName === undefined ? '' : ` of tool '${options.toolName}'`} are not a valid JSON object: ` +
        `${options.reason}${options.position === undefined ? '' : ` (at character ${options.position})`}. ` +
        'Send the arguments as one JSON object, e.g. {"name": "value"}.',
    });
    this.position = options.position;
    this.path = options.path;
    this.toolName = options.toolName;
    this.toolCallId = options.toolCallId;
  }
}
brandError(MalformedToolArgumentsError, 'MalformedToolArgumentsError');

/** One failing field of a tool call. */
export interface ToolArgumentIssue {
  /** Where, as a dotted path with brackets for indices: `location`, `items[2].price`; `''` for the whole object. */
  readonly path: string;
  /** What is wrong, written for the model. */
  readonly problem: string;
  /** How to fix it, when there is a concrete fix (a did-you-mean, the allowed values). */
  readonly suggestion?: string;
}

/**
 * Arguments that parsed but do not match the tool's schema. `issues` lists every failing field at once; the message
 * is written so that a model can correct its call on the next turn.
 */
export class InvalidToolArgumentsError extends OrgError {
  readonly toolName: string;
  readonly toolCallId: string | undefined;
  readonly issues: readonly ToolArgumentIssue[];

  constructor(options: { toolName: string; issues: readonly ToolArgumentIssue[]; toolCallId?: string }) {
    const count = options.issues.length;
    // A model reads the message: the first problems are enough to act on; `issues` keeps every one.
    const lines = options.issues
      .slice(0, MAXIMUM_LISTED)
      .map(
        (issue) =>
          `- ${issue.path === '' ? '(arguments)' : issue.path}: ${issue.problem}` +
          `${issue.suggestion === undefined ? '' : ` ${issue.suggestion}`}`,
      );
    super('invalid_tool_arguments', {
      message:
        `Invalid arguments for tool '${options.toolName}' (${count} problem${count === 1 ? '' : 's'}):\n` +
        `${lines.join('\n')}\n${count > MAXIMUM_LISTED ? `- ... and ${count - MAXIMUM_LISTED} more like these\n` : ''}` +
        `Fix ${count === 1 ? 'it' : 'all of them'} and call '${options.toolName}' again.`,
    });
    this.toolName = options.toolName;
    this.toolCallId = options.toolCallId;
    this.issues = options.issues;
  }
}
brandError(InvalidToolArgumentsError, 'InvalidToolArgumentsError');

/** A tool description (config-only tool, YAML or JSON list) that cannot be turned into a tool. */
export class InvalidToolDescriptionError extends OrgError {
  /** Where in the loaded document, e.g. `[2].args`; `''` for the whole document. */
  readonly path: string;

  constructor(options: { path: string; reason: string; cause?: unknown }) {
    super('invalid_tool_description', {
      message: `Invalid tool description${options.path === '' ? '' : ` at '${options.path}'`}: ${options.reason}`,
      cause: options.cause,
    });
    this.path = options.path;
  }
}
brandError(InvalidToolDescriptionError, 'InvalidToolDescriptionError');

/** An artifact with a malformed url, sha256, size or mime type. */
export class InvalidArtifactError extends OrgError {
  readonly field: string;

  constructor(options: { field: string; reason: string }) {
    super('invalid_artifact', { message: `Invalid artifact '${options.field}': ${options.reason}` });
    this.field = options.field;
  }
}
brandError(InvalidArtifactError, 'InvalidArtifactError');

/**
 * An option passed to a function of this package that it cannot honour, e.g. `executeAction`'s `timeoutMs` of `-1`,
 * `NaN` or more than 2 147 483 647 ms (the largest delay a timer can wait; a larger one would fire at once).
 *
 * @example
 * try { await executeAction(registry, action, { timeoutMs: 0 }) } catch (error) {
 *   if (InvalidToolOptionError.isInstance(error)) console.error(error.option); // 'timeoutMs'
 * }
 */
export class InvalidToolOptionError extends OrgError {
  /** The option at fault, e.g. `timeoutMs`. */
  readonly option: string;

  constructor(options: { option: string; reason: string }) {
    super('invalid_tool_option', { message: `Invalid option '${options.option}': ${options.reason}` });
    this.option = options.option;
  }
}
brandError(InvalidToolOptionError, 'InvalidToolOptionError');
